"""The GPQA report (`reports/gpqa-report.json`, `GET /runs/{id}/gpqa-report`): one item per
evaluation plus the dashboard's `analytics` (original harness §7)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bench_common.evaluation import EvaluationRecord
from bench_common.reports.gpqa_analytics import (
    Observation,
    by_question,
    epoch_consistency,
    epoch_trends,
    hardest_questions,
    latency_buckets,
    length_buckets,
    response_quality,
)
from bench_common.reports.gpqa_items import ParsedPrompt, parse_prompt, report_item
from bench_common.reports.records import outcome, response_and_reasoning, unique_records
from bench_common.reports.response_checks import check_response
from bench_common.reports.scores import fold_scores
from bench_common.reports.stats import rate

GPQA_REPORT_VERSION = 1


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
    ordered = unique_records(records)
    metrics = fold_scores(ordered)
    prompts: dict[str, ParsedPrompt] = {}
    items: list[dict[str, Any]] = []
    observations: list[Observation] = []
    for record in ordered:
        status = outcome(record)
        response, reasoning = response_and_reasoning(record)
        parsed = prompts.get(record.sample_id)
        if parsed is None:  # epochs of a question share its prompt: parse it once
            parsed = prompts[record.sample_id] = parse_prompt(record.input or "")
        items.append(report_item(record, status, parsed, response, reasoning))
        observations.append(
            Observation(record, status, len(response), len(reasoning), check_response(response))
        )
    questions = by_question(observations)
    hardest = hardest_questions(questions)
    for row in hardest:
        row["question"] = prompts[row["sampleId"]].question
    interval = metrics.interval
    scored = metrics.completed_evaluations
    return {
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
        "items": items,
        "analytics": {
            "latencyBuckets": latency_buckets(observations),
            "epochConsistency": epoch_consistency(questions),
            "responseQuality": response_quality(observations),
            "responseLengthBuckets": length_buckets(observations, reasoning=False),
            "reasoningLengthBuckets": length_buckets(observations, reasoning=True),
            "hardestQuestions": hardest,
            "epochTrends": epoch_trends(observations),
        },
    }
