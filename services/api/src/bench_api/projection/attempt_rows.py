"""`RequestAttemptStarted` / `RequestAttemptCompleted` -> one `request_attempts` row."""

from __future__ import annotations

from bench_api.projection.changes import AttemptRow, SqlValue
from bench_api.projection.run_columns import TEXT_LIMIT, UINT32_MAX, clip, key_problem
from bench_common.events import RequestAttemptCompleted, RequestAttemptStarted


def attempt_row(
    seq: int, event: RequestAttemptStarted | RequestAttemptCompleted
) -> AttemptRow | str:
    """The attempt's row, or why it cannot be stored.

    A started attempt fills the identity columns; a completed one also fills the outcome
    (status, duration, time to first output, provider, error, usage).
    """
    record = event.record
    problem = key_problem(
        request_id=record.request_id,
        call_id=record.call_id,
        sample_id=record.sample_id,
    )
    if problem is not None:
        return problem
    previous = record.previous_request_id
    values: dict[str, SqlValue] = {
        "request_id": record.request_id,
        "run_id": event.run_id,
        "call_id": record.call_id,
        "attempt": min(record.attempt, 65_535),
        "previous_request_id": previous if key_problem(request_id=previous) is None else None,
        "sample_id": record.sample_id,
        "epoch": record.epoch if record.epoch is None or 0 <= record.epoch <= UINT32_MAX else None,
        "model": clip(record.model, 256),
        "phase": "started",
        "started_at": record.started_at,
        "event_seq": seq,
    }
    if isinstance(event, RequestAttemptStarted):
        return AttemptRow(request_id=record.request_id, completed=False, values=values)
    done = event.record
    usage = done.usage
    values.update(
        {
            "phase": "completed",
            "status": done.status if done.status is None or 0 <= done.status <= 65_535 else None,
            "ok": int(done.ok),
            "duration_ms": done.duration_ms,
            "time_to_first_output_ms": done.time_to_first_output_ms,
            "received_bytes": max(done.received_bytes, 0),
            "provider": clip(done.provider_name, 128),
            "generation_id": clip(done.generation_id, 256),
            "error_class": clip(done.error_class, 128),
            "error_message": clip(done.error, TEXT_LIMIT),
            "failure_stage": done.failure_stage,
            "retryable": None if done.retryable is None else int(done.retryable),
            "input_tokens": None if usage is None else max(usage.input_tokens, 0),
            "output_tokens": None if usage is None else max(usage.output_tokens, 0),
            "total_tokens": None if usage is None else max(usage.total_tokens, 0),
            "reasoning_tokens": None if usage is None else max(usage.reasoning_tokens, 0),
            "cache_read_tokens": None if usage is None else max(usage.cache_read_tokens, 0),
            "cost": None if usage is None else usage.cost,
            "finished_at": done.finished_at,
        }
    )
    return AttemptRow(request_id=record.request_id, completed=True, values=values)
