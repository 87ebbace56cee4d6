"""The JSON summary printed on stdout: the original's fields plus honest statistics."""

from __future__ import annotations

from typing import Any

from bench_common.aggregation import RunMetrics
from bench_common.evaluation import EvaluationRecord
from bench_common.run_config import RunConfig


def build_summary(
    *,
    config: RunConfig,
    session_id: str,
    metrics: RunMetrics,
    records: list[EvaluationRecord],
    status: str,
    failure_reason: str | None,
    results_path: str | None,
    duration_ms: int,
) -> dict[str, Any]:
    """The stdout document. Original fields first (benchmark ... sampleScores), then additions."""
    interval = metrics.interval
    return {
        "benchmark": config.benchmark,
        "model": config.model,
        "sessionId": session_id,
        "solverConfig": config.solver_config_json(),
        "accuracy": metrics.accuracy,
        "totalQuestions": metrics.total_questions,
        "correctAnswers": metrics.correct_answers,
        "usage": metrics.usage.to_summary(),
        "sampleScores": [
            {
                "sampleId": r.sample_id,
                "epoch": r.epoch,
                "value": r.score,
                "answer": r.answer,
                "explanation": r.explanation,
                "metadata": r.metadata,
            }
            for r in sorted(records, key=lambda r: (r.sample_index, r.epoch))
        ],
        "status": status,
        "failureReason": failure_reason,
        "resultsPath": results_path,
        "epochs": config.epochs,
        "skippedQuestions": metrics.skipped_questions,
        "evaluations": metrics.evaluations,
        "completedEvaluations": metrics.completed_evaluations,
        "skippedEvaluations": metrics.skipped_evaluations,
        "accuracyInterval95": (
            None
            if interval is None
            else {
                "lower": interval.lower,
                "upper": interval.upper,
                "method": interval.method,
                "questions": interval.n,
            }
        ),
        "epochResults": [
            {
                "epoch": e.epoch,
                "accuracy": e.accuracy,
                "correct": e.correct,
                "scored": e.scored,
                "skipped": e.skipped,
            }
            for e in metrics.epoch_results
        ],
        "correctAnswerDistribution": metrics.target_distribution,
        "answerDistribution": metrics.answer_distribution,
        "accuracyByExtractor": metrics.extractor_accuracy,
        "extractorDisagreements": metrics.extractor_disagreements,
        "auxiliaryUsage": {k: u.to_summary() for k, u in metrics.auxiliary_usage.items()},
        "durationMs": duration_ms,
    }
