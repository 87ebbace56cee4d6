"""One work item: started, evaluated by the session, completed; or dropped, or aborted."""

from __future__ import annotations

import asyncio

import pytest

from bench_common.claim_checks import full_record
from bench_common.envelope import Event, deterministic_event_id
from bench_common.events import (
    RunAbortRequested,
    SampleCompleted,
    SampleDispatched,
    SampleStarted,
)
from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.sessions import SessionCache
from bench_runner.worker.work import WorkCore
from tests.support.blobs import MemoryBlobs
from tests.unit.worker.fakes import FakePublisher, FakeSession, config, samples


def item(sample: int = 1, epoch: int = 0, run_id: str = "r1") -> SampleDispatched:
    return SampleDispatched(run_id=run_id, sample_id=f"s{sample}", sample_index=sample, epoch=epoch)


class Harness:
    def __init__(
        self,
        session: FakeSession | None = None,
        over: RunOver | None = None,
        publisher: FakePublisher | None = None,
        claim_threshold: int = 512 * 1024,
    ) -> None:
        self.session = session or FakeSession(samples(3))
        self.ended: list[tuple[str, RunOver]] = []
        self.publisher = publisher or FakePublisher()

        async def opener(run_id: str) -> OpenRun | RunOver:
            if over is not None:
                return over
            return OpenRun(run_id, config(), self.session, {s.id: s for s in self.session.samples})

        self.blobs = MemoryBlobs()
        self.core = WorkCore(
            blobs=self.blobs,
            claim_threshold=claim_threshold,
            runs=SessionCache(opener=opener),
            publisher=self.publisher,
            runner_id="w1",
            end_run=lambda run_id, o: self.ended.append((run_id, o)),
        )


async def test_publishes_started_then_completed_with_the_deterministic_id() -> None:
    h = Harness()
    # sample_index is the position among the run's samples; the record keeps the dataset row
    await h.core.on_sample_dispatched(
        SampleDispatched(run_id="r1", sample_id="s1", sample_index=0, epoch=2)
    )
    started, completed = (e for e, _ in h.publisher.events)
    assert isinstance(started, SampleStarted)
    assert (started.sample_id, started.epoch, started.runner_id) == ("s1", 2, "w1")
    assert isinstance(completed, SampleCompleted)
    assert completed.record.score == "C"
    assert completed.record.key == (1, 2)
    assert completed.event_id == deterministic_event_id("r1", "s1", 2, "completed")
    assert h.session.evaluated == [("s1", 2)]


async def test_items_of_runs_that_are_over_are_dropped() -> None:
    h = Harness(over=RunOver("the run was cancelled"))
    await h.core.on_sample_dispatched(item())
    assert h.publisher.events == []
    assert h.session.evaluated == []


async def test_fatal_model_error_requests_an_abort_and_ends_the_run() -> None:
    h = Harness(FakeSession(samples(2), abort="the endpoint refused the API key (HTTP 401)"))
    await h.core.on_sample_dispatched(item())
    started, abort = (e for e, _ in h.publisher.events)
    assert isinstance(started, SampleStarted)
    assert isinstance(abort, RunAbortRequested)
    assert "HTTP 401" in abort.reason
    assert abort.event_id == deterministic_event_id("r1", "abort_requested")
    assert h.ended == [("r1", RunOver(abort.reason))]
    assert h.publisher.of(SampleCompleted) == []


async def test_unknown_sample_aborts_with_advice() -> None:
    h = Harness()
    await h.core.on_sample_dispatched(item(7))
    (abort,) = h.publisher.of(RunAbortRequested)
    assert "every runner must read the same dataset" in abort.reason
    assert h.ended[0][0] == "r1"
    assert h.session.evaluated == []


async def test_publish_failure_propagates_so_the_item_is_redelivered() -> None:
    h = Harness()
    h.publisher.fail = TimeoutError("no PubAck")
    with pytest.raises(TimeoutError):
        await h.core.on_sample_dispatched(item())


class HeldStartPublisher(FakePublisher):
    """Holds the acknowledgement of `SampleStarted` until released; fails it when told to."""

    def __init__(self) -> None:
        super().__init__()
        self.release = asyncio.Event()
        self.fail_start: Exception | None = None

    async def publish(self, event: Event, *, stream: str | None = None) -> None:
        if isinstance(event, SampleStarted):
            await self.release.wait()
            if self.fail_start is not None:
                raise self.fail_start
        await super().publish(event, stream=stream)


async def test_the_evaluation_runs_while_the_start_is_acknowledged_and_completes_after_it() -> None:
    publisher = HeldStartPublisher()
    h = Harness(publisher=publisher)
    handled = asyncio.ensure_future(h.core.on_sample_dispatched(item()))
    await asyncio.sleep(0.02)
    assert h.session.evaluated == [("s1", 0)]  # evaluated before the start was acknowledged
    assert not handled.done()  # ... but not completed before it
    publisher.release.set()
    await asyncio.wait_for(handled, timeout=1)
    assert [e.name for e, _ in publisher.events] == [SampleStarted.name, SampleCompleted.name]


async def test_a_failed_start_publish_fails_the_item_without_a_completion() -> None:
    publisher = HeldStartPublisher()
    publisher.fail_start = ConnectionError("nats down")
    publisher.release.set()
    h = Harness(publisher=publisher)
    with pytest.raises(ConnectionError):
        await h.core.on_sample_dispatched(item())
    assert publisher.of(SampleCompleted) == []  # the item is redelivered, not counted


async def test_a_record_too_large_for_one_message_goes_by_claim_check() -> None:
    h = Harness(claim_threshold=300)  # FakeSession's records are ~250 bytes without messages
    h.session.messages = [{"role": "assistant", "content": "long reasoning " * 100}]
    await h.core.on_sample_dispatched(item())
    (completed,) = h.publisher.of(SampleCompleted)
    assert completed.record.messages == []
    assert completed.record.score == "C"  # what counting and MySQL read stays in the event
    ref = completed.blobs["record"]
    assert ref.name in h.blobs.objects
    assert ref.size == len(h.blobs.objects[ref.name])
    whole = await full_record(completed, h.blobs)
    assert whole.messages == h.session.messages
