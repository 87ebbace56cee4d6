"""Attempt records as events: `RequestAttemptStarted`/`Completed` in BENCH_EVENTS and the
streaming deltas `RequestAttemptProgressed` in BENCH_LIVE (the event class names its stream).

The records carry no credential: the inference client builds them from a sanitised body and
redacts the key from any error text a server echoes back.
"""

from __future__ import annotations

import asyncio

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
MAX_PENDING = 512
"""Publishes awaiting their acknowledgement before `record` waits for the oldest ones."""


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
    """An `AttemptSink` that publishes every record of one run without waiting for it.

    The model call goes on while the stream acknowledges its records: awaiting each
    acknowledgement put two NATS round trips in series with every attempt (about a tenth of
    the managed overhead). Publishes leave in the order they are recorded (tasks start in
    FIFO order and each writes its message before its first await), so an attempt's records,
    and the evaluation's `SampleCompleted` published after them, are stored in that order.
    At most `max_pending` publishes wait at once; beyond that `record` waits (backpressure).

    A failed publish (NATS briefly unreachable) is logged and skipped: like the CLI's request
    log, losing an attempt record must never fail an evaluation. The evaluation's own
    `SampleCompleted` still needs the bus, and its item is redelivered if that publish fails.
    """

    def __init__(
        self, publisher: EventPublisher, *, run_id: str, max_pending: int = MAX_PENDING
    ) -> None:
        self._publisher = publisher
        self._run_id = run_id
        self._max_pending = max_pending
        self._pending: set[asyncio.Task[None]] = set()
        self.failures = 0

    @property
    def pending(self) -> int:
        """Publishes not acknowledged yet."""
        return len(self._pending)

    async def record(self, record: AttemptRecord) -> None:
        """Start publishing the record's event; returns before its acknowledgement."""
        while len(self._pending) >= self._max_pending:
            await asyncio.wait(self._pending, return_when=asyncio.FIRST_COMPLETED)
        task = asyncio.get_running_loop().create_task(
            self._publish(attempt_event(self._run_id, record))
        )
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def drain(self, timeout: float | None = None) -> None:
        """Wait until every publish started so far is acknowledged (or failed)."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=timeout)

    async def _publish(self, event: Event) -> None:
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
