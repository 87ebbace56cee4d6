"""The GPQA report (`reports/gpqa-report.json`, `GET /runs/{id}/gpqa-report`): one item per
evaluation plus the dashboard's `analytics` (original harness §7).

`gpqa_report` builds it in one go. Its parts are public for a report kept up to date one
evaluation at a time (the api's, while a run is live): `gpqa_entry` digests one evaluation and
`gpqa_parts` folds the digests into everything but the items.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from bench_common.evaluation import EvaluationRecord
from bench_common.reports.gpqa_analytics import (
    Observation,
    by_question,
    epoch_consistency,
    epoch_trends,
    hardest_questions,
    latency_buckets,
    length_buckets,
    observe,
    response_quality,
)
from bench_common.reports.gpqa_items import ParsedPrompt, parse_prompt, report_item
from bench_common.reports.records import outcome, response_and_reasoning, unique_records
from bench_common.reports.scores import fold_scores
from bench_common.reports.stats import rate

GPQA_REPORT_VERSION = 1


class GpqaEntry(NamedTuple):
    """One evaluation digested for the report: its item and its observation."""

    item: dict[str, Any]
    observation: Observation


def gpqa_entry(record: EvaluationRecord, parsed: ParsedPrompt) -> GpqaEntry:
    """Digest one evaluation, its question's prompt parsed as `parsed`."""
    status = outcome(record)
    response, reasoning = response_and_reasoning(record)
    return GpqaEntry(
        report_item(record, status, parsed, response, reasoning),
        observe(record, status, response, reasoning),
    )


def gpqa_report(records: Iterable[EvaluationRecord]) -> dict[str, Any]:
    """Build the GPQA report of one run (a JSON-ready dict, camelCase keys).

    Args:
        records: the run's evaluations in any order; the first record of a (sample, epoch)
            wins.

    Returns:
        `{schemaVersion, accuracy, accuracyInterval95, totalQuestions, correctAnswers,
        evaluations, counts, items, analytics}` where `counts` has correct, wrong, noAnswer
        and skipped evaluations, `items` one entry per evaluation in sample/epoch order, and
        `analytics` the latency buckets, epoch consistency, response quality, response and
        reasoning length buckets, the 20 hardest questions and per-epoch trends.
    """
    prompts: dict[str, ParsedPrompt] = {}
    entries: list[GpqaEntry] = []
    for record in unique_records(records):
        parsed = prompts.get(record.sample_id)
        if parsed is None:  # epochs of a question share its prompt: parse it once
            parsed = prompts[record.sample_id] = parse_prompt(record.input or "")
        entries.append(gpqa_entry(record, parsed))
    head, analytics = gpqa_parts(
        [e.observation for e in entries], {s: p.question for s, p in prompts.items()}
    )
    return {**head, "items": [e.item for e in entries], "analytics": analytics}


def gpqa_parts(
    observations: Sequence[Observation], questions: Mapping[str, str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report without its items: the keys that come before `items`, and `analytics`.

    Args:
        observations: one per evaluation, de-duplicated, in item order.
        questions: the question text of each sample id (for the hardest questions).
    """
    metrics = fold_scores(observations)
    questions_seen = by_question(observations)
    hardest = hardest_questions(questions_seen)
    for row in hardest:
        row["question"] = questions[row["sampleId"]]
    interval = metrics.interval
    scored = metrics.completed_evaluations
    head = {
        "schemaVersion": GPQA_REPORT_VERSION,
        "accuracy": metrics.accuracy,
        "accuracyInterval95": (
            None
            if interval is None
            else {
                "lower": interval.lower,
                "upper": interval.upper,
                "level": interval.level,
                "method": interval.method,
                "questions": interval.n,
            }
        ),
        "totalQuestions": metrics.total_questions,
        "correctAnswers": metrics.correct_answers,
        "evaluations": metrics.evaluations,
        "evaluationAccuracy": rate(metrics.correct_evaluations, scored),
        "counts": {
            "correct": sum(1 for o in observations if o.status == "correct"),
            "wrong": sum(1 for o in observations if o.status == "wrong"),
            "noAnswer": sum(1 for o in observations if o.status == "no_answer"),
            "skipped": sum(1 for o in observations if o.status == "skipped"),
        },
    }
    analytics = {
        "latencyBuckets": latency_buckets(observations),
        "epochConsistency": epoch_consistency(questions_seen),
        "responseQuality": response_quality(observations),
        "responseLengthBuckets": length_buckets(observations, reasoning=False),
        "reasoningLengthBuckets": length_buckets(observations, reasoning=True),
        "hardestQuestions": hardest,
        "epochTrends": epoch_trends(observations),
    }
    return head, analytics
