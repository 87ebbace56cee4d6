"""The worker runtime on a real nats-server with fake handlers: message-at-a-time delivery,
sharing between runners, in-progress acks, run ends and graceful shutdown."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import nats
import pytest
from nats.aio.client import Client as NatsClient

from bench_common.bus import ensure_streams, publish
from bench_common.envelope import STREAM_WORK
from bench_common.events import (
    RunAdmitted,
    RunCancelRequested,
    RunFinished,
    SampleDispatched,
)
from bench_runner.worker.adapters.jetstream import WORK_CONSUMER, ensure_consumers
from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.runtime import Worker
from bench_runner.worker.sessions import SessionCache
from bench_runner.worker.settling import Route
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


def item(i: int, run_id: str = "r1") -> SampleDispatched:
    return SampleDispatched(run_id=run_id, sample_id=f"s{i}", sample_index=i, epoch=0)


async def never_opens(run_id: str) -> OpenRun | RunOver:
    raise AssertionError("the runtime tests never open runs")


class Recorder:
    """A work handler that records arrival times and optionally waits on `gate`."""

    def __init__(self, name: str, *, hold: float = 0.0) -> None:
        self.name = name
        self.hold = hold
        self.arrivals: list[tuple[str, float]] = []
        self.cancelled: list[str] = []
        self.gate: asyncio.Event | None = None

    def has(self, count: int) -> Callable[[], bool]:
        """A predicate: `count` items arrived."""
        return lambda: len(self.arrivals) == count

    async def __call__(self, event: SampleDispatched) -> None:
        self.arrivals.append((event.sample_id, time.monotonic()))
        try:
            if self.gate is not None:
                await self.gate.wait()
            await asyncio.sleep(self.hold)
        except asyncio.CancelledError:
            self.cancelled.append(event.sample_id)
            raise


async def ignore_admitted(event: RunAdmitted) -> None:
    return None


@asynccontextmanager
async def running(
    url: str,
    handler: Recorder,
    *,
    max_in_flight: int = 64,
    progress_s: float = 20.0,
    grace_s: float = 5.0,
) -> AsyncIterator[Worker]:
    workers: list[Worker] = []

    async def reconnected() -> None:
        for w in workers:
            w.on_reconnected()

    nc = await nats.connect(url, reconnect_time_wait=0.2, reconnected_cb=reconnected)
    runs = SessionCache(opener=never_opens)
    worker = Worker(
        nc=nc,
        runs=runs,
        max_in_flight=max_in_flight,
        in_progress_interval_s=progress_s,
        shutdown_grace_s=grace_s,
        pull_expires_s=0.5,
    )
    workers.append(worker)
    await worker.start(
        work=Route(SampleDispatched, handler),
        planning=Route(RunAdmitted, ignore_admitted),
        cancelled=lambda e: worker.end_run(e.run_id, RunOver("the run was cancelled")),
        finished=lambda e: worker.end_run(e.run_id, RunOver("finished")),
    )
    try:
        yield worker
    finally:
        await worker.stop()
        await nc.drain()


@asynccontextmanager
async def bus(server: NatsServer, *, ack_wait_s: float = 60.0) -> AsyncIterator[NatsClient]:
    nc = await nats.connect(server.url)
    js = nc.jetstream()
    await ensure_streams(js)
    await ensure_consumers(js, ack_wait_s=ack_wait_s)
    try:
        yield nc
    finally:
        await nc.drain()


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.01)


async def pending_acks(nc: NatsClient, expected: int = 0) -> int:
    """Messages delivered and unacked plus undelivered, once it settles on `expected` (acks
    from the workers' connections may reach the server after this request)."""
    deadline = time.monotonic() + 2.0
    while True:
        info = await nc.jetstream().consumer_info(STREAM_WORK, WORK_CONSUMER)
        count = int(info.num_ack_pending) + int(info.num_pending)
        if count == expected or time.monotonic() > deadline:
            return count
        await asyncio.sleep(0.02)


async def test_items_trickling_in_are_handled_at_once(restartable_nats: NatsServer) -> None:
    async with bus(restartable_nats) as nc:
        js = nc.jetstream()
        recorder = Recorder("a")
        async with running(restartable_nats.url, recorder):
            await asyncio.sleep(0.1)
            lags = []
            for i in range(10):
                sent = time.monotonic()
                await publish(js, item(i), stream=STREAM_WORK)
                await wait_for(recorder.has(i + 1))
                lags.append(recorder.arrivals[-1][1] - sent)
                await asyncio.sleep(0.02)
            assert max(lags) < 0.1, lags  # a batched fetch would hold items until its timeout
        assert await pending_acks(nc) == 0


async def test_two_runners_share_a_backlog(restartable_nats: NatsServer) -> None:
    async with bus(restartable_nats) as nc:
        js = nc.jetstream()
        a, b = Recorder("a", hold=0.05), Recorder("b", hold=0.05)
        async with running(restartable_nats.url, a), running(restartable_nats.url, b):
            await asyncio.sleep(0.1)
            await asyncio.gather(*(publish(js, item(i), stream=STREAM_WORK) for i in range(200)))
            await wait_for(lambda: len(a.arrivals) + len(b.arrivals) == 200)
        assert min(len(a.arrivals), len(b.arrivals)) >= 50, (len(a.arrivals), len(b.arrivals))
        assert {s for s, _ in a.arrivals}.isdisjoint(s for s, _ in b.arrivals)
        assert await pending_acks(nc) == 0


async def test_in_flight_is_bounded(restartable_nats: NatsServer) -> None:
    async with bus(restartable_nats) as nc:
        js = nc.jetstream()
        recorder = Recorder("a")
        recorder.gate = asyncio.Event()
        async with running(restartable_nats.url, recorder, max_in_flight=5) as worker:
            for i in range(12):
                await publish(js, item(i), stream=STREAM_WORK)
            await wait_for(lambda: len(recorder.arrivals) == 5)
            await asyncio.sleep(0.2)
            assert worker.in_flight == 5
            recorder.gate.set()
            await wait_for(lambda: len(recorder.arrivals) == 12)


async def test_long_items_send_in_progress_acks(restartable_nats: NatsServer) -> None:
    async with bus(restartable_nats, ack_wait_s=1.0) as nc:
        js = nc.jetstream()
        recorder = Recorder("a", hold=2.2)
        async with running(restartable_nats.url, recorder, progress_s=0.3):
            await publish(js, item(0), stream=STREAM_WORK)
            await wait_for(lambda: len(recorder.arrivals) == 1)
            await asyncio.sleep(2.4)
        assert [s for s, _ in recorder.arrivals] == ["s0"]  # never redelivered
        assert await pending_acks(nc) == 0


async def test_run_end_cancels_its_items_and_acks_them(restartable_nats: NatsServer) -> None:
    async with bus(restartable_nats) as nc:
        js = nc.jetstream()
        recorder = Recorder("a", hold=30.0)
        async with running(restartable_nats.url, recorder):
            for i in range(3):
                await publish(js, item(i), stream=STREAM_WORK)
            await publish(js, item(9, run_id="other"), stream=STREAM_WORK)
            await wait_for(lambda: len(recorder.arrivals) == 4)
            started = time.monotonic()
            await publish(js, RunCancelRequested(run_id="r1"))
            await wait_for(lambda: len(recorder.cancelled) == 3)
            assert time.monotonic() - started < 0.5
            assert await pending_acks(nc, 1) == 1  # only the other run's item is held
            await publish(js, item(5), stream=STREAM_WORK)  # late item of the cancelled run
            await asyncio.sleep(0.2)
            assert "s5" not in [s for s, _ in recorder.arrivals]  # dropped, not handled
            await publish(
                js,
                RunFinished.model_validate(
                    {"run_id": "other", "status": "succeeded", "counts": {}}
                ),
            )
            await wait_for(lambda: "s9" in recorder.cancelled)


async def test_shutdown_hands_unfinished_items_to_another_runner(
    restartable_nats: NatsServer,
) -> None:
    async with bus(restartable_nats) as nc:
        js = nc.jetstream()
        slow, fast = Recorder("slow", hold=30.0), Recorder("fast")
        async with running(restartable_nats.url, slow, grace_s=0.2):
            for i in range(4):
                await publish(js, item(i), stream=STREAM_WORK)
            await wait_for(lambda: len(slow.arrivals) == 4)
        assert sorted(slow.cancelled) == ["s0", "s1", "s2", "s3"]
        started = time.monotonic()
        async with running(restartable_nats.url, fast):
            await wait_for(lambda: len(fast.arrivals) == 4, timeout=3.0)
            assert time.monotonic() - started < 2.0  # nak'd: no wait for the 60 s ack wait
        assert sorted(s for s, _ in fast.arrivals) == ["s0", "s1", "s2", "s3"]
        assert await pending_acks(nc) == 0


async def test_pulling_resumes_after_nats_restarts(restartable_nats: NatsServer) -> None:
    recorder = Recorder("a")
    async with running(restartable_nats.url, recorder):
        async with bus(restartable_nats) as nc:
            await publish(nc.jetstream(), item(0), stream=STREAM_WORK)
            await wait_for(lambda: len(recorder.arrivals) == 1)
        restartable_nats.stop()
        restartable_nats.start()
        async with bus(restartable_nats) as nc:
            await publish(nc.jetstream(), item(1), stream=STREAM_WORK)
            await wait_for(lambda: len(recorder.arrivals) == 2, timeout=10.0)
            assert await pending_acks(nc) == 0
