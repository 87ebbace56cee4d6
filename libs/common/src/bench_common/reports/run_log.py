"""The run log (`logs/run.log`, `GET /runs/{id}/logs`): structured JSON lines rendered from a
run's events.

Lifecycle entries (accepted, admitted, started, every 10% of the evaluations, finished with its
failure reason, archive upload) as the original writes them, plus what helps explain a failure:
each evaluation that ended in a model or solver error and, more verbose, each failed request
attempt and each retry. Events carry no credentials, so neither does the log.

How much is shown follows the run's `logLevel` (`RunConfig.log_level`, the original's
`LOG_LEVEL`); each level shows what the quieter ones show, plus:

- below 0 (none): only the final entry (succeeded, failed with its reason, cancelled);
- 0 (error): warnings and errors: a rejection, cancel and abort requests, failed evaluations,
  archive failures;
- 1 and 2 (info): the lifecycle entries, milestones, uploads;
- 3 (debug, the default): each failed request attempt and each retry, as `bench run` warns of
  each retry on stderr (they are what explains a slow or failing run);
- 4 and above (trace): each successful request attempt too.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from bench_common.envelope import Event
from bench_common.events import (
    ArchiveFailed,
    ArchiveRetryRequested,
    ArtifactUploaded,
    RequestAttemptCompleted,
    RequestAttemptStarted,
    RunAbortRequested,
    RunAdmitted,
    RunArchived,
    RunCancelRequested,
    RunDisabled,
    RunFinished,
    RunRejected,
    RunRequested,
    RunStarted,
    SampleCompleted,
)
from bench_common.reports.summary import FAILURE_PREFIXES

ERROR_TEXT_LIMIT = 500
ALWAYS, ERROR, INFO, DEBUG, TRACE = -99, 0, 1, 3, 4
"""The lowest log level showing an entry (see the module doc)."""
DEFAULT_LOG_LEVEL = 3

Line = tuple[str, str, dict[str, Any]]
"""(level, message, fields) of one log entry."""


def _time(t: datetime) -> str:
    return t.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _clip(text: str | None) -> str | None:
    return None if text is None else text[:ERROR_TEXT_LIMIT]


class _Progress:
    """Counts scored evaluations (first per sample and epoch) and reports 10% milestones."""

    def __init__(self) -> None:
        self.total = 0
        self.seen: set[tuple[str, int]] = set()
        self.completed = self.skipped = self.correct = 0
        self.next_tenth = 1

    def add(self, event: SampleCompleted) -> list[Line]:
        record = event.record
        key = (record.sample_id, record.epoch)
        if key in self.seen:
            return []
        self.seen.add(key)
        if record.score == "S":
            self.skipped += 1
        else:
            self.completed += 1
            self.correct += record.score == "C"
        lines: list[Line] = []
        if record.explanation and record.explanation.startswith(FAILURE_PREFIXES):
            lines.append(("warning", "Evaluation failed", {
                "sampleId": record.sample_id, "epoch": record.epoch, "score": record.score,
                "explanation": _clip(record.explanation),
            }))  # fmt: skip
        processed = len(self.seen)
        tenth = min(10, processed * 10 // self.total) if self.total else 0
        if tenth >= self.next_tenth:  # a jump past several milestones logs the last one
            percent = tenth * 10
            message = f"Progress {percent}% ({processed}/{self.total} evaluations)"
            if percent == 100:
                message += "; every evaluation is scored"
            lines.append(("info", message, {
                "percent": percent, "processed": processed, "total": self.total,
                "completed": self.completed, "skipped": self.skipped, "correct": self.correct,
            }))  # fmt: skip
            self.next_tenth = tenth + 1
        return lines


def _lifecycle(event: Event) -> list[Line]:
    render = _RENDERERS.get(type(event))
    line = None if render is None else render(event)
    return [] if line is None else [line]


def shown_from(event: Event, level: str) -> int:
    """The lowest log level that shows an entry of `event` at `level` (warning, info...)."""
    if isinstance(event, RunFinished):
        return ALWAYS
    if isinstance(event, RequestAttemptCompleted) and event.record.ok:
        return TRACE
    if isinstance(event, RequestAttemptStarted | RequestAttemptCompleted):
        return DEBUG
    return ERROR if level in {"warning", "error"} else INFO


def run_log_lines(events: Iterable[Event]) -> list[str]:
    """Render a run's events, oldest first, as JSON log lines (no trailing newlines).

    Each line is `{"timestamp", "level", "message", "runId", "event", ...fields}` with
    camelCase fields; `timestamp` is the event's time (UTC, milliseconds, `Z`). What is shown
    follows the log level of the run's `RunRequested` (the first event of a run; the default
    until it is seen).

    Args:
        events: one run's events in stream order (others are rendered too, under their own
            run id, so pass one run's history).
    """
    progress = _Progress()
    log_level = DEFAULT_LOG_LEVEL
    out: list[str] = []
    for event in events:
        if isinstance(event, SampleCompleted):
            lines = progress.add(event)
        elif isinstance(event, RequestAttemptStarted | RequestAttemptCompleted):
            lines = _lifecycle(event) if log_level >= DEBUG else []
        else:
            if isinstance(event, RunRequested) and event.config.log_level is not None:
                log_level = event.config.log_level
            if isinstance(event, RunStarted) and not progress.total:
                progress.total = event.total_evaluations
            lines = _lifecycle(event)
        for level, message, fields in lines:
            if log_level < shown_from(event, level):
                continue
            entry = {
                "timestamp": _time(event.occurred_at),
                "level": level,
                "message": message,
                "runId": event.run_id,
                "event": event.name,
                **fields,
            }
            out.append(json.dumps(entry, ensure_ascii=False, default=str))
    return out


def _requested(e: RunRequested) -> Line:
    c = e.config
    return ("info", "Benchmark run accepted", {
        "benchmark": c.benchmark, "model": c.model, "baseUrl": c.base_url, "epochs": c.epochs,
        "concurrency": c.concurrency, "runKind": e.run_kind,
        "triggeredByEmail": e.triggered_by_email,
    })  # fmt: skip


def _finished(e: RunFinished) -> Line:
    fields = {
        "status": e.status, "failureReason": e.failure_reason, "accuracy": e.accuracy,
        "total": e.counts.total, "completed": e.counts.completed, "skipped": e.counts.skipped,
        "correct": e.counts.correct,
    }  # fmt: skip
    if e.status == "failed":
        return ("error", f"Benchmark failed: {e.failure_reason or 'no reason recorded'}", fields)
    return ("info", f"Benchmark {e.status}", fields)


def _attempt_completed(e: RequestAttemptCompleted) -> Line | None:
    r = e.record
    if r.ok:
        return ("info", "Request attempt completed", {
            "requestId": r.request_id, "callId": r.call_id, "attempt": r.attempt,
            "sampleId": r.sample_id, "epoch": r.epoch, "status": r.status,
            "durationMs": r.duration_ms, "timeToFirstOutputMs": r.time_to_first_output_ms,
            "totalTokens": r.usage.total_tokens if r.usage else None,
        })  # fmt: skip
    return ("warning", "Request attempt failed", {
        "requestId": r.request_id, "callId": r.call_id, "attempt": r.attempt,
        "sampleId": r.sample_id, "epoch": r.epoch, "status": r.status,
        "errorClass": r.error_class, "error": _clip(r.error), "retryable": r.retryable,
        "failureStage": r.failure_stage, "durationMs": r.duration_ms,
        "xRequestId": r.x_request_id, "cfRay": r.cf_ray,
    })  # fmt: skip


def _attempt_started(e: RequestAttemptStarted) -> Line | None:
    r = e.record
    if r.attempt <= 1:
        return None
    return ("info", f"Retrying request (attempt {r.attempt})", {
        "requestId": r.request_id, "callId": r.call_id, "attempt": r.attempt,
        "previousRequestId": r.previous_request_id, "sampleId": r.sample_id, "epoch": r.epoch,
    })  # fmt: skip


def _fields(**fields: Any) -> dict[str, Any]:
    return fields


_RENDERERS: dict[type[Event], Callable[[Any], Line | None]] = {
    RunRequested: _requested,
    RunAdmitted: lambda e: (
        "info",
        "Benchmark run admitted",
        _fields(active=e.active, maxActive=e.max_active),
    ),
    RunRejected: lambda e: ("warning", f"Benchmark run rejected: {e.reason}", {}),
    RunStarted: lambda e: (
        "info",
        "Benchmark run started",
        _fields(expectedSamples=e.expected_samples, totalEvaluations=e.total_evaluations),
    ),
    RunCancelRequested: lambda e: (
        "warning",
        "Cancel requested",
        _fields(requestedBy=e.requested_by, reason=e.reason),
    ),
    RunAbortRequested: lambda e: (
        "error",
        f"Run abort requested: {e.reason}",
        _fields(runnerId=e.runner_id),
    ),
    RunFinished: _finished,
    RunDisabled: lambda e: ("info", "Run disabled" if e.disabled else "Run enabled", {}),
    RequestAttemptStarted: _attempt_started,
    RequestAttemptCompleted: _attempt_completed,
    ArtifactUploaded: lambda e: (
        "info",
        "Artifact uploaded",
        _fields(
            key=e.key,
            bytes=e.bytes,
            sha256=e.sha256,
            attempts=e.attempts,
            failedAttempts=e.failed_attempts,
        ),
    ),
    RunArchived: lambda e: (
        "info",
        "Run archived",
        _fields(manifestKey=e.manifest_key, files=e.files),
    ),
    ArchiveFailed: lambda e: ("error", f"Archive failed: {e.error}", _fields(details=e.details)),
    ArchiveRetryRequested: lambda e: (
        "info",
        "Archive retry requested",
        _fields(requestedBy=e.requested_by),
    ),
}
"""Events that make a log line (or may: first attempts are never shown, see `shown_from`)."""
