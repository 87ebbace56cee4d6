"""Run scores for the reports, by the rules of `bench_common.aggregation` (question accuracy,
Wilson interval), without the usage and extractor folds the reports do not need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol

from bench_common.aggregation import Interval, question_accuracy, wilson_interval
from bench_common.evaluation import EvaluationRecord
from bench_common.usage import Usage


class Scored(Protocol):
    """What scoring reads of an evaluation (a record, or a report's observation of one)."""

    @property
    def sample_id(self) -> str: ...

    @property
    def score(self) -> str: ...


class Scores(NamedTuple):
    """Question- and evaluation-level scores of de-duplicated records."""

    accuracy: float
    total_questions: int
    correct_answers: int
    skipped_questions: int
    evaluations: int
    completed_evaluations: int
    correct_evaluations: int
    interval: Interval | None

    @property
    def skipped_evaluations(self) -> int:
        """Evaluations scored S."""
        return self.evaluations - self.completed_evaluations


def fold_scores(ordered: Sequence[Scored]) -> Scores:
    """Scores of records already de-duplicated (`records.unique_records`)."""
    by_question: dict[str, list[bool]] = {}
    completed = correct = 0
    for r in ordered:
        scored = by_question.setdefault(r.sample_id, [])
        if r.score != "S":
            scored.append(r.score == "C")
            completed += 1
            correct += r.score == "C"
    accuracy, total, correct_questions = question_accuracy(by_question)
    return Scores(
        accuracy=accuracy,
        total_questions=total,
        correct_answers=correct_questions,
        skipped_questions=sum(1 for s in by_question.values() if not s),
        evaluations=len(ordered),
        completed_evaluations=completed,
        correct_evaluations=correct,
        interval=wilson_interval(accuracy, total),
    )


def total_usage(records: Sequence[EvaluationRecord]) -> Usage:
    """The sum of the records' usage (one model built, not one per record)."""
    return Usage(
        input_tokens=sum(r.usage.input_tokens for r in records),
        output_tokens=sum(r.usage.output_tokens for r in records),
        total_tokens=sum(r.usage.total_tokens for r in records),
        reasoning_tokens=sum(r.usage.reasoning_tokens for r in records),
        cache_read_tokens=sum(r.usage.cache_read_tokens for r in records),
        cost=sum(r.usage.cost for r in records),
        generation_time_ms=sum(r.usage.generation_time_ms for r in records),
    )
