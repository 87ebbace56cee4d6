"""The run summary of `GET /runs/{id}/summary` (original harness §5), from evaluation records.

Scores follow `bench_common.aggregation`'s rules (the CLI's); this module adds the original's
shape: per-epoch and per-subdomain results and the normalised failure messages.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from bench_common.aggregation import add_auxiliary_usage, question_accuracy
from bench_common.evaluation import EvaluationRecord
from bench_common.reports.records import subdomain, unique_records
from bench_common.reports.scores import fold_scores, total_usage
from bench_common.usage import Usage

FAILURE_PREFIXES = ("Model error", "Solver error")
FAILURE_MESSAGE_LIMIT = 200

_UUID_OR_HEX = re.compile(
    r"\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b|\b(?=[a-z]*\d)[0-9a-f]{8,}\b",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


def normalise_failure(explanation: str) -> str:
    """One failure message per kind: ids -> `<id>`, numbers -> `<n>`, at most 200 characters.

    Example: "Model error after 7 attempt(s): HTTP 503 (x-request-id 9f8e7d6c5b4a)" ->
    "Model error after <n> attempt(s): HTTP <n> (x-request-id <id>)".
    """
    text = _UUID_OR_HEX.sub("<id>", explanation)
    text = _DIGITS.sub("<n>", text)
    text = _SPACES.sub(" ", text).strip()
    return text[:FAILURE_MESSAGE_LIMIT]


def failures(records: Iterable[EvaluationRecord]) -> list[dict[str, Any]]:
    """`[{message, count}]` of model and solver errors, most frequent first."""
    counts = Counter(
        normalise_failure(r.explanation)
        for r in records
        if r.explanation and r.explanation.startswith(FAILURE_PREFIXES)
    )
    return [{"message": m, "count": n} for m, n in sorted(counts.items(), key=_by_count)]


def _by_count(item: tuple[str, int]) -> tuple[int, str]:
    return (-item[1], item[0])


def _group(name: str, records: list[EvaluationRecord]) -> dict[str, Any]:
    """Accuracy of a group of evaluations under the run's rules (mean over epochs)."""
    by_question: dict[str, list[bool]] = {}
    for r in records:
        scored = by_question.setdefault(r.sample_id, [])
        if r.score != "S":
            scored.append(r.score == "C")
    accuracy, total, correct = question_accuracy(by_question)
    return {
        "name": name,
        "accuracy": accuracy,
        "correctAnswers": correct,
        "totalQuestions": total,
        "skippedQuestions": sum(1 for s in by_question.values() if not s),
    }


def summary(
    records: Iterable[EvaluationRecord],
    *,
    task: str,
    model: str,
    epochs: int,
    temperature: float | None = None,
    created_at: datetime | str | None = None,
) -> dict[str, Any]:
    """The summary document of one run (JSON-ready dict, camelCase keys).

    Args:
        records: the run's evaluations (duplicates of a (sample, epoch) count once).
        task: the benchmark id; model: the model id; epochs: epochs requested.
        temperature: the temperature the run used (the benchmark default when unset).
        created_at: when the run was created (ISO string or datetime).

    Returns:
        The original's fields (`task` ... `failures`, `epochResults` named "Epoch N" with N
        counted from 1, `subdomains` by ascending accuracy) plus `accuracyInterval95` and
        `auxiliaryUsage` (models other than the candidate, by role; empty for GPQA).
    """
    ordered = unique_records(records)
    m = fold_scores(ordered)
    per_epoch: dict[int, list[EvaluationRecord]] = defaultdict(list)
    per_subdomain: dict[str, list[EvaluationRecord]] = defaultdict(list)
    for r in ordered:
        per_epoch[r.epoch].append(r)
        name = subdomain(r)
        if name is not None:
            per_subdomain[name].append(r)
    epoch_results = [
        {**_group(f"Epoch {epoch + 1}", rs), "epoch": epoch}
        for epoch, rs in sorted(per_epoch.items())
    ]
    subdomains = sorted(
        (_group(name, rs) for name, rs in per_subdomain.items()),
        key=lambda g: (g["accuracy"], g["name"]),
    )
    u = total_usage(ordered)
    auxiliary: dict[str, Usage] = {}
    for r in ordered:
        add_auxiliary_usage(auxiliary, r)
    interval = m.interval
    return {
        "task": task,
        "model": model,
        "epochs": epochs,
        "temperature": temperature,
        "createdAt": created_at.isoformat() if isinstance(created_at, datetime) else created_at,
        "accuracy": m.accuracy,
        "correctAnswers": m.correct_answers,
        "totalQuestions": m.total_questions,
        "skippedQuestions": m.skipped_questions,
        "evaluations": m.evaluations,
        "uniqueQuestions": len({r.sample_id for r in ordered}),
        "skippedEvaluations": m.skipped_evaluations,
        "inputTokens": u.input_tokens,
        "outputTokens": u.output_tokens,
        "totalTokens": u.total_tokens,
        "reasoningTokens": u.reasoning_tokens,
        "cacheReadTokens": u.cache_read_tokens,
        "totalCost": round(u.cost, 10),
        "generationTimeMs": u.generation_time_ms,
        "auxiliaryUsage": {role: usage.to_summary() for role, usage in sorted(auxiliary.items())},
        "epochResults": epoch_results,
        "subdomains": subdomains,
        "failures": failures(ordered),
        "accuracyInterval95": (
            None
            if interval is None
            else {"lower": interval.lower, "upper": interval.upper, "method": interval.method}
        ),
    }
