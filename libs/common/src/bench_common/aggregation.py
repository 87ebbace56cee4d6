"""Run metrics folded from evaluation records: one pure function shared by every consumer.

The CLI summary, the Parquet run columns, the archiver's reports and the API's summaries all
call `aggregate`, so a CLI run and a managed run of the same evaluations report the same
numbers. Rules (original harness §2.1): accuracy is the mean over questions of the mean over
that question's non-skipped epochs; a question counts as correct when that mean is >= 0.5;
questions whose every epoch was skipped are counted apart and excluded.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from bench_common.evaluation import EvaluationRecord
from bench_common.usage import Usage

Z_95 = 1.959963984540054


class Interval(BaseModel):
    """A confidence interval for a proportion."""

    model_config = ConfigDict(frozen=True)

    lower: float
    upper: float
    level: float = 0.95
    method: str = "wilson"
    n: int


class EpochResult(BaseModel):
    """Accuracy of one epoch over the questions that epoch scored."""

    model_config = ConfigDict(frozen=True)

    epoch: int
    accuracy: float
    correct: int
    scored: int
    skipped: int


class RunMetrics(BaseModel):
    """Everything a summary, a Parquet file or a report says about a run's scores."""

    model_config = ConfigDict(frozen=True)

    accuracy: float = 0.0
    total_questions: int = 0
    correct_answers: int = 0
    skipped_questions: int = 0
    evaluations: int = 0
    completed_evaluations: int = 0
    skipped_evaluations: int = 0
    correct_evaluations: int = 0
    interval: Interval | None = None
    epoch_results: list[EpochResult] = Field(default_factory=list)
    usage: Usage = Usage()
    auxiliary_usage: dict[str, Usage] = Field(default_factory=dict)
    target_distribution: dict[str, int] = Field(default_factory=dict)
    answer_distribution: dict[str, int] = Field(default_factory=dict)
    extractor_accuracy: dict[str, float] = Field(default_factory=dict)
    extractor_disagreements: int = 0


def wilson_interval(p_hat: float, n: int, z: float = Z_95) -> Interval | None:
    """Wilson score interval for a proportion `p_hat` observed over `n` units (None if n=0)."""
    if n <= 0:
        return None
    denom = 1 + z * z / n
    centre = (p_hat + z * z / (2 * n)) / denom
    half = z * math.sqrt(p_hat * (1 - p_hat) / n + z * z / (4 * n * n)) / denom
    return Interval(lower=max(0.0, centre - half), upper=min(1.0, centre + half), n=n)


def question_accuracy(scores_by_question: dict[str, list[bool]]) -> tuple[float, int, int]:
    """(accuracy, scored questions, correct questions) from per-question non-skipped results."""
    means = [sum(s) / len(s) for s in scores_by_question.values() if s]
    if not means:
        return 0.0, 0, 0
    return sum(means) / len(means), len(means), sum(1 for m in means if m >= 0.5)


def aggregate(records: Iterable[EvaluationRecord]) -> RunMetrics:
    """Fold evaluation records into run metrics. Duplicates of a (sample, epoch) count once."""
    unique: dict[tuple[str, int], EvaluationRecord] = {}
    for record in records:
        unique.setdefault((record.sample_id, record.epoch), record)
    ordered = sorted(unique.values(), key=lambda r: (r.sample_index, r.sample_id, r.epoch))

    by_question: dict[str, list[bool]] = {}
    by_extractor: dict[str, dict[str, list[bool]]] = defaultdict(dict)
    per_epoch: dict[int, list[EvaluationRecord]] = defaultdict(list)
    usage = Usage()
    auxiliary: dict[str, Usage] = {}
    targets: Counter[str] = Counter()
    answers: Counter[str] = Counter()
    disagreements = 0
    seen_targets: set[str] = set()

    for record in ordered:
        scored = by_question.setdefault(record.sample_id, [])
        per_epoch[record.epoch].append(record)
        usage = usage + record.usage
        add_auxiliary_usage(auxiliary, record)
        if record.target and record.sample_id not in seen_targets:
            seen_targets.add(record.sample_id)
            targets[record.target] += 1
        if record.score == "S":
            continue
        scored.append(record.score == "C")
        answers[record.answer or "none"] += 1
        extracted = record.metadata.get("extracted")
        if isinstance(extracted, dict) and record.target is not None:
            values = {str(k): v for k, v in extracted.items()}
            if len({v if isinstance(v, str) else None for v in values.values()}) > 1:
                disagreements += 1
            for name, value in values.items():
                by_extractor[name].setdefault(record.sample_id, []).append(value == record.target)

    accuracy, total_q, correct_q = question_accuracy(by_question)
    completed = sum(1 for r in ordered if r.score != "S")
    return RunMetrics(
        accuracy=accuracy,
        total_questions=total_q,
        correct_answers=correct_q,
        skipped_questions=sum(1 for s in by_question.values() if not s),
        evaluations=len(ordered),
        completed_evaluations=completed,
        skipped_evaluations=len(ordered) - completed,
        correct_evaluations=sum(1 for r in ordered if r.score == "C"),
        interval=wilson_interval(accuracy, total_q),
        epoch_results=[_epoch_result(e, rs) for e, rs in sorted(per_epoch.items())],
        usage=usage,
        auxiliary_usage=auxiliary,
        target_distribution=dict(sorted(targets.items())),
        answer_distribution=dict(sorted(answers.items())),
        extractor_accuracy={n: question_accuracy(q)[0] for n, q in sorted(by_extractor.items())},
        extractor_disagreements=disagreements,
    )


def _epoch_result(epoch: int, records: list[EvaluationRecord]) -> EpochResult:
    scored = [r for r in records if r.score != "S"]
    correct = sum(1 for r in scored if r.score == "C")
    return EpochResult(
        epoch=epoch,
        accuracy=correct / len(scored) if scored else 0.0,
        correct=correct,
        scored=len(scored),
        skipped=len(records) - len(scored),
    )


def add_auxiliary_usage(totals: dict[str, Usage], record: EvaluationRecord) -> None:
    """Add the record's usage of models other than the candidate (e.g. TAU's simulated
    customer, `metadata.auxiliary_usage.<role>`) to `totals`, by role."""
    raw = record.metadata.get("auxiliary_usage")
    if not isinstance(raw, dict):
        return
    for name, value in raw.items():
        if isinstance(value, dict):
            totals[str(name)] = totals.get(str(name), Usage()) + Usage.model_validate(value)
