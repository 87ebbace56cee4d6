"""The scheduler's handlers over fake ports: a whole run, cancellation, abort, restart."""

from __future__ import annotations

import pytest
from faststream.nats import NatsBroker, TestNatsBroker
from pydantic import SecretStr

from bench_common.commands import AdmissionReply, AdmissionRequest
from bench_common.envelope import STREAM_EVENTS, STREAM_WORK, SUBJECT_ADMIT, Event
from bench_common.events import (
    RunAbortRequested,
    RunCancelRequested,
    RunFinished,
    RunRequested,
    SampleDispatched,
)
from bench_common.secrets_box import unseal
from bench_scheduler.handlers import Scheduler, admission_router
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import FakeEventLog, FakeKeyStore, completed, config, started


def _scheduler(max_active: int = 8) -> tuple[Scheduler, FakeEventLog, FakeKeyStore]:
    events, keys = FakeEventLog(), FakeKeyStore()
    scheduler = Scheduler(state=SchedulerState(), events=events, keys=keys, max_active=max_active)
    return scheduler, events, keys


def _request(run_id: str, **overrides: object) -> bytes:
    creds = {"api_key": SecretStr("sk-secret")}
    return AdmissionRequest(
        run_id=run_id, config=config(**overrides), credentials=creds
    ).wire_json()


async def _deliver(scheduler: Scheduler, events: FakeEventLog, event: Event) -> None:
    """A runner's event: recorded in the log, then seen by the scheduler."""
    events.published.append((STREAM_EVENTS, event))
    await scheduler.on_run_event(event)
    await scheduler.settle()


async def _admit_and_start(
    scheduler: Scheduler, events: FakeEventLog, run_id: str, samples: int, **cfg: object
) -> None:
    reply = await scheduler.on_admission_request(_request(run_id, **cfg))
    assert reply.admitted, reply.reason
    await _deliver(scheduler, events, started(run_id, samples, config(**cfg).epochs))


async def test_admission_over_the_in_memory_broker() -> None:
    scheduler, events, keys = _scheduler(max_active=1)
    broker = NatsBroker(logger=None)
    broker.include_router(admission_router(scheduler))
    async with TestNatsBroker(broker) as br:
        first = AdmissionReply.model_validate_json(
            (await br.request(_request("r1"), SUBJECT_ADMIT)).body
        )
        second = AdmissionReply.model_validate_json(
            (await br.request(_request("r2"), SUBJECT_ADMIT)).body
        )
        bad = AdmissionReply.model_validate_json(
            (
                await br.request(
                    b'{"run_id": "r3", "credentials": {"api_key": "sk-x"}}', SUBJECT_ADMIT
                )
            ).body
        )
    assert first.admitted
    assert (first.active, first.max_active) == (1, 1)
    assert not second.admitted
    assert "1 of 1" in (second.reason or "")
    assert not bad.admitted
    assert bad.run_id == "r3"
    assert "config" in (bad.reason or "")
    assert "sk-x" not in (bad.reason or "")
    assert [e.name for e in events.records()] == ["run_requested", "run_admitted", "run_rejected"]
    requested = events.records()[0]
    assert isinstance(requested, RunRequested)
    (key_id,) = keys.keys
    assert (
        unseal(requested.credentials["api_key"], key=keys.keys[key_id], run_id="r1") == "sk-secret"
    )
    assert "sk-secret" not in "".join(e.model_dump_json() for _, e in events.published)


async def test_a_run_is_dispatched_within_credits_and_finished() -> None:
    scheduler, events, keys = _scheduler()
    await _admit_and_start(scheduler, events, "r1", samples=3, epochs=2, concurrency=2)
    work = events.on(STREAM_WORK, SampleDispatched)
    assert [(i.sample_id, i.epoch) for i in work] == [("q0", 0), ("q0", 1)]
    assert events.on(STREAM_EVENTS, SampleDispatched) == work  # recorded, then queued
    done: set[tuple[str, int]] = set()
    max_outstanding = 0
    for _ in range(6):
        queued = events.on(STREAM_WORK, SampleDispatched)
        pending = [i for i in queued if (i.sample_id, i.epoch) not in done]
        max_outstanding = max(max_outstanding, len(pending))
        done.add((pending[-1].sample_id, pending[-1].epoch))  # complete out of order
        await scheduler.on_run_event(completed(pending[-1]))
        await scheduler.settle()
    assert max_outstanding == 2
    assert len(events.on(STREAM_WORK, Event)) == 6
    (finished,) = events.on(STREAM_EVENTS, RunFinished)
    assert isinstance(finished, RunFinished)
    assert finished.status == "succeeded"
    assert finished.counts.completed == 6
    assert keys.keys == {}
    assert len(keys.shredded) == 1


async def test_cancellation_stops_dispatch_and_finishes_at_once() -> None:
    scheduler, events, keys = _scheduler()
    await _admit_and_start(scheduler, events, "r1", samples=10, concurrency=3)
    await scheduler.on_run_event(RunCancelRequested(run_id="r1"))
    await scheduler.settle()
    (finished,) = events.on(STREAM_EVENTS, RunFinished)
    assert isinstance(finished, RunFinished)
    assert finished.status == "cancelled"
    assert keys.keys == {}
    first = events.on(STREAM_WORK, SampleDispatched)[0]
    assert isinstance(first, SampleDispatched)
    await scheduler.on_run_event(completed(first))  # in-flight work arriving late
    await scheduler.settle()
    assert len(events.on(STREAM_WORK, Event)) == 3


async def test_abort_fails_the_run_with_the_reason() -> None:
    scheduler, events, _ = _scheduler()
    await scheduler.on_admission_request(_request("r1"))
    await scheduler.on_run_event(RunAbortRequested(run_id="r1", reason="HTTP 401: bad key"))
    await scheduler.settle()
    (finished,) = events.on(STREAM_EVENTS, RunFinished)
    assert isinstance(finished, RunFinished)
    assert (finished.status, finished.failure_reason) == ("failed", "HTTP 401: bad key")


async def test_a_restarted_scheduler_rebuilds_its_state_and_requeues_lost_items() -> None:
    before, events, keys = _scheduler()
    await _admit_and_start(before, events, "r1", samples=5, epochs=1, concurrency=3)
    first = events.on(STREAM_WORK, SampleDispatched)
    assert len(first) == 3
    await _deliver(before, events, completed(first[0]))  # dispatches q3
    # the new scheduler replays BENCH_EVENTS; say q3's work item never reached BENCH_WORK
    after = Scheduler(state=SchedulerState(), events=events, keys=keys, max_active=8)
    for event in events.records():
        after.replay(event)
    queued = {i.event_id for i in first[1:]}
    published = len(events.published)
    await after.resume(queued_event_ids=queued, stored_key_ids=await keys.key_ids())
    await after.settle()
    requeued = [e for _, e in events.published[published:]]
    assert [(e.sample_id, e.epoch) for e in requeued if isinstance(e, SampleDispatched)] == [
        ("q3", 0)
    ]
    assert requeued[0].event_id == events.on(STREAM_EVENTS, SampleDispatched)[-1].event_id
    assert keys.shredded == []  # the run is still active: its key stays


class _RefusingWork(FakeEventLog):
    async def publish(self, event: Event, *, stream: str | None = None) -> int:
        if stream == STREAM_WORK:
            raise ConnectionError("NATS gone for good")
        return await super().publish(event, stream=stream)


async def test_a_publish_that_fails_for_good_stops_the_scheduler() -> None:
    events, keys = _RefusingWork(), FakeKeyStore()
    scheduler = Scheduler(state=SchedulerState(), events=events, keys=keys, max_active=8)
    await scheduler.on_admission_request(_request("r1"))
    await scheduler.on_run_event(started("r1", 2, 2))
    with pytest.raises(ConnectionError):
        await scheduler.settle()
    assert scheduler.failed.is_set()
