"""Attempt records become events on the right streams; failures never fail the evaluation."""

from __future__ import annotations

from datetime import UTC, datetime

from bench_common.attempts import AttemptCompleted, AttemptProgressed, AttemptStarted
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, deterministic_event_id
from bench_common.events import (
    RequestAttemptCompleted,
    RequestAttemptProgressed,
    RequestAttemptStarted,
)
from bench_runner.worker.adapters.attempt_sink import EventAttemptSink, attempt_event
from tests.unit.worker.fakes import FakePublisher

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
    assert sink.failures == 2
