"""Attempt records as events: `RequestAttemptStarted`/`Completed` in BENCH_EVENTS and the
streaming deltas `RequestAttemptProgressed` in BENCH_LIVE (the event class names its stream).

The records carry no credential: the inference client builds them from a sanitised body and
redacts the key from any error text a server echoes back.
"""

from __future__ import annotations

import structlog

from bench_common.attempts import AttemptCompleted, AttemptProgressed, AttemptRecord
from bench_common.envelope import Event, deterministic_event_id
from bench_common.events import (
    RequestAttemptCompleted,
    RequestAttemptProgressed,
    RequestAttemptStarted,
)
from bench_runner.worker.ports import EventPublisher

log = structlog.get_logger("bench_runner.worker.attempts")
WARN_EVERY = 100


def attempt_event(run_id: str, record: AttemptRecord) -> Event:
    """The event carrying `record`. Started and completed get ids derived from the attempt's
    request id, so a re-published record is dropped as a duplicate."""
    if isinstance(record, AttemptProgressed):
        return RequestAttemptProgressed(run_id=run_id, record=record)
    if isinstance(record, AttemptCompleted):
        return RequestAttemptCompleted(
            run_id=run_id,
            record=record,
            event_id=deterministic_event_id(run_id, record.request_id, "attempt_completed"),
        )
    return RequestAttemptStarted(
        run_id=run_id,
        record=record,
        event_id=deterministic_event_id(run_id, record.request_id, "attempt_started"),
    )


class EventAttemptSink:
    """An `AttemptSink` that publishes every record of one run.

    A failed publish (NATS briefly unreachable) is logged and skipped: like the CLI's request
    log, losing an attempt record must never fail an evaluation. The evaluation's own
    `SampleCompleted` still needs the bus, and its item is redelivered if that publish fails.
    """

    def __init__(self, publisher: EventPublisher, *, run_id: str) -> None:
        self._publisher = publisher
        self._run_id = run_id
        self.failures = 0

    async def record(self, record: AttemptRecord) -> None:
        """Publish the record's event (awaiting the stream's acknowledgement)."""
        event = attempt_event(self._run_id, record)
        try:
            await self._publisher.publish(event)
        except Exception as exc:
            self.failures += 1
            if self.failures % WARN_EVERY == 1:
                log.warning(
                    "attempt event not published",
                    run_id=self._run_id,
                    event_name=event.name,
                    failures=self.failures,
                    error=str(exc),
                )
