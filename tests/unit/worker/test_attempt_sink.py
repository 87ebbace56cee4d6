"""Attempt records become events on the right streams, published in order without holding up
the model call; failures never fail the evaluation."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from bench_common.attempts import AttemptCompleted, AttemptProgressed, AttemptStarted
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, Event, deterministic_event_id
from bench_common.events import (
    RequestAttemptCompleted,
    RequestAttemptProgressed,
    RequestAttemptStarted,
)
from bench_runner.worker.adapters.attempt_sink import EventAttemptSink, attempt_event
from bench_runner.worker.adapters.engine import DrainingSession
from tests.unit.worker.fakes import FakePublisher, FakeSession, samples

NOW = datetime(2026, 1, 1, tzinfo=UTC)
IDENTITY = {
    "request_id": "req-1",
    "call_id": "call-1",
    "session_id": "r1",
    "attempt": 1,
    "model": "m",
    "url": "http://127.0.0.1/v1/chat/completions",
    "sample_id": "s1",
    "epoch": 0,
    "started_at": NOW,
}


async def test_records_map_to_events_and_streams() -> None:
    publisher = FakePublisher()
    sink = EventAttemptSink(publisher, run_id="r1")
    await sink.record(AttemptStarted(**IDENTITY))
    await sink.record(AttemptProgressed(**IDENTITY, observed_at=NOW, elapsed_ms=5))
    await sink.record(
        AttemptCompleted(**IDENTITY, finished_at=NOW, duration_ms=9, ok=True, status=200)
    )
    await sink.drain()
    assert sink.pending == 0
    started, progressed, completed = (e for e, _ in publisher.events)
    assert isinstance(started, RequestAttemptStarted)
    assert isinstance(progressed, RequestAttemptProgressed)
    assert isinstance(completed, RequestAttemptCompleted)
    assert (started.stream, progressed.stream, completed.stream) == (
        STREAM_EVENTS,
        STREAM_LIVE,
        STREAM_EVENTS,
    )
    assert started.event_id == deterministic_event_id("r1", "req-1", "attempt_started")
    assert completed.event_id == deterministic_event_id("r1", "req-1", "attempt_completed")


def test_progress_events_get_fresh_ids() -> None:
    record = AttemptProgressed(**IDENTITY, observed_at=NOW, elapsed_ms=5)
    assert attempt_event("r1", record).event_id != attempt_event("r1", record).event_id


async def test_publish_failures_are_counted_not_raised() -> None:
    publisher = FakePublisher()
    publisher.fail = ConnectionError("nats down")
    sink = EventAttemptSink(publisher, run_id="r1")
    await sink.record(AttemptStarted(**IDENTITY))
    await sink.record(AttemptStarted(**IDENTITY))
    await sink.drain()
    assert sink.failures == 2


class SlowPublisher(FakePublisher):
    """Acknowledges each publish only when the test releases it, recording the order in which
    publishes were sent (before the acknowledgement, like a message written to the socket)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.release = asyncio.Event()

    async def publish(self, event: Event, *, stream: str | None = None) -> None:
        self.sent.append(event.event_id)
        await self.release.wait()
        await super().publish(event, stream=stream)


async def test_record_returns_before_the_acknowledgement_and_keeps_the_order() -> None:
    publisher = SlowPublisher()
    sink = EventAttemptSink(publisher, run_id="r1")
    started = AttemptStarted(**IDENTITY)
    completed = AttemptCompleted(**IDENTITY, finished_at=NOW, duration_ms=9, ok=True)
    await asyncio.wait_for(sink.record(started), timeout=1)
    await asyncio.wait_for(sink.record(completed), timeout=1)
    await asyncio.sleep(0)  # let the publishes be sent
    assert sink.pending == 2
    assert publisher.events == []  # nothing acknowledged yet, and nobody waited for it
    assert publisher.sent == [
        attempt_event("r1", started).event_id,
        attempt_event("r1", completed).event_id,
    ]
    publisher.release.set()
    await sink.drain()
    assert [type(e) for e, _ in publisher.events] == [
        RequestAttemptStarted,
        RequestAttemptCompleted,
    ]


async def test_too_many_unacknowledged_publishes_make_record_wait() -> None:
    publisher = SlowPublisher()
    sink = EventAttemptSink(publisher, run_id="r1", max_pending=2)
    await sink.record(AttemptStarted(**IDENTITY))
    await sink.record(AttemptStarted(**IDENTITY))
    third = asyncio.ensure_future(sink.record(AttemptStarted(**IDENTITY)))
    await asyncio.sleep(0.05)
    assert not third.done()  # backpressure: two are waiting for their acknowledgement
    publisher.release.set()
    await asyncio.wait_for(third, timeout=1)
    await sink.drain()
    assert len(publisher.events) == 3


async def test_drain_gives_up_after_its_timeout() -> None:
    publisher = SlowPublisher()
    sink = EventAttemptSink(publisher, run_id="r1")
    await sink.record(AttemptStarted(**IDENTITY))
    await asyncio.wait_for(sink.drain(timeout=0.05), timeout=1)
    assert sink.pending == 1
    publisher.release.set()
    await sink.drain()
    assert sink.pending == 0


async def test_closing_a_session_waits_for_its_attempt_records() -> None:
    publisher = SlowPublisher()
    sink = EventAttemptSink(publisher, run_id="r1")
    engine_session = FakeSession(samples(1))
    session = DrainingSession(engine_session, sink)
    await sink.record(AttemptStarted(**IDENTITY))
    closing = asyncio.ensure_future(session.close())
    await asyncio.sleep(0.05)
    assert not closing.done() and not engine_session.closed  # the record is not on the stream
    publisher.release.set()
    await asyncio.wait_for(closing, timeout=1)
    assert engine_session.closed and len(publisher.events) == 1
