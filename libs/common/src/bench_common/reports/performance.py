"""The performance report of a run's requests (`reports/performance-report.json`).

Built from the attempt records (`RequestAttemptStarted`/`Completed` in managed mode, the
request-log JSON lines in the CLI): latency percentiles, in-flight peak and average,
throughput, output tokens per second, and reliability (success, error, post-processing failure
and retry rates, error status counts), the figures of the original's requests viewer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from bench_common.attempts import AttemptCompleted, AttemptProgressed, AttemptStarted
from bench_common.reports.stats import distribution, rate

PERFORMANCE_REPORT_VERSION = 1

AttemptInput = AttemptStarted | AttemptCompleted | AttemptProgressed


def _ms(t: datetime) -> float:
    return t.timestamp() * 1000.0


def performance_report(attempts: Iterable[AttemptInput]) -> dict[str, Any]:
    """Fold attempt records into the performance report (a JSON-ready dict, camelCase keys).

    Records are de-duplicated by request id (the first `started` and the first `completed`
    win); progress records are ignored. An attempt started but never completed is *pending*:
    it counts as in flight until the end of the observed window.

    Args:
        attempts: attempt records in any order.

    Returns:
        `{schemaVersion, requests, latency, timeToFirstOutput, concurrency, throughput,
        reliability, usage}`; rates and statistics of empty samples are None.
    """
    started: dict[str, AttemptStarted] = {}
    completed: dict[str, AttemptCompleted] = {}
    for record in attempts:
        if isinstance(record, AttemptCompleted):
            completed.setdefault(record.request_id, record)
        elif isinstance(record, AttemptStarted):
            started.setdefault(record.request_id, record)
    identities: dict[str, AttemptStarted | AttemptCompleted] = {**started, **completed}
    done = list(completed.values())
    pending = [s for rid, s in started.items() if rid not in completed]
    ok = [c for c in done if c.ok]
    failed = [c for c in done if not c.ok]
    retries = sum(1 for a in identities.values() if a.attempt > 1)
    calls = {a.call_id for a in identities.values()}
    retried_calls = {a.call_id for a in identities.values() if a.attempt > 1}

    window_start, window_end = _window(done, pending)
    window_ms = max(0.0, window_end - window_start) if done or pending else 0.0
    peak, busy_ms = _in_flight(done, pending, window_end)
    output_tokens = sum(c.usage.output_tokens for c in done if c.usage is not None)
    statuses = Counter("no status" if c.status is None else str(c.status) for c in failed)
    stages = Counter(c.failure_stage for c in failed if c.failure_stage is not None)
    post_processing = sum(1 for c in done if c.failure_stage == "response_processing")
    return {
        "schemaVersion": PERFORMANCE_REPORT_VERSION,
        "requests": {
            "attempts": len(identities),
            "completed": len(done),
            "pending": len(pending),
            "succeeded": len(ok),
            "failed": len(failed),
            "calls": len(calls),
            "retryAttempts": retries,
            "retriedCalls": len(retried_calls),
        },
        "latency": distribution([c.duration_ms for c in done]),
        "timeToFirstOutput": distribution(
            [c.time_to_first_output_ms for c in done if c.time_to_first_output_ms is not None]
        ),
        "concurrency": {
            "peakInFlight": peak,
            "averageInFlight": round(busy_ms / window_ms, 3) if window_ms > 0 else None,
        },
        "throughput": {
            "windowMs": round(window_ms),
            "requestsPerMinute": round(len(done) / window_ms * 60_000, 3) if window_ms else None,
            "effectiveOutputTokensPerSecond": (
                round(output_tokens / window_ms * 1000, 3) if window_ms else None
            ),
        },
        "reliability": {
            "successRate": rate(len(ok), len(done)),
            "errorRate": rate(len(failed), len(done)),
            "postProcessingFailureRate": rate(post_processing, len(done)),
            "retryAttemptRate": rate(retries, len(identities)),
            "pending": len(pending),
            "errorStatusCounts": dict(sorted(statuses.items())),
            "failureStageCounts": dict(sorted(stages.items())),
        },
        "usage": _usage(done),
    }


def _window(done: list[AttemptCompleted], pending: list[AttemptStarted]) -> tuple[float, float]:
    """(first start, last finish) in epoch milliseconds; a pending attempt ends the window no
    earlier than its start."""
    starts = [_ms(a.started_at) for a in done] + [_ms(a.started_at) for a in pending]
    ends = [_ms(a.finished_at) for a in done] + [_ms(a.started_at) for a in pending]
    if not starts:
        return 0.0, 0.0
    return min(starts), max(max(ends), max(starts))


def _in_flight(
    done: list[AttemptCompleted], pending: list[AttemptStarted], window_end: float
) -> tuple[int, float]:
    """(peak attempts in flight at once, total attempt-milliseconds inside the window).

    Intervals are half-open, so an attempt that ends when another starts never overlaps it.
    """
    edges: list[tuple[float, int]] = []
    busy = 0.0
    for c in done:
        start, end = _ms(c.started_at), _ms(c.finished_at)
        end = max(start, end)
        edges += [(start, 1), (end, -1)]
        busy += end - start
    for s in pending:
        start = _ms(s.started_at)
        edges += [(start, 1), (window_end, -1)]
        busy += max(0.0, window_end - start)
    edges.sort()  # at equal times -1 sorts before +1: half-open intervals
    peak = current = 0
    for _, delta in edges:
        current += delta
        peak = max(peak, current)
    return peak, busy


def _usage(done: list[AttemptCompleted]) -> dict[str, float | int]:
    totals = Counter[str]()
    cost = 0.0
    for c in done:
        if c.usage is None:
            continue
        totals["inputTokens"] += c.usage.input_tokens
        totals["outputTokens"] += c.usage.output_tokens
        totals["reasoningTokens"] += c.usage.reasoning_tokens
        totals["totalTokens"] += c.usage.total_tokens
        totals["cacheReadTokens"] += c.usage.cache_read_tokens
        cost += c.usage.cost
    keys = ("inputTokens", "outputTokens", "reasoningTokens", "totalTokens", "cacheReadTokens")
    result: dict[str, float | int] = {k: totals[k] for k in keys}
    result["cost"] = round(cost, 10)
    return result
