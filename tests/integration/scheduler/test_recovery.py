"""A scheduler killed mid-run (kill -9) and restarted rebuilds its state; the run goes on."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import nats
import pytest

from bench_common.bus import publish
from bench_common.events import (
    RunAdmitted,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from bench_common.ids import new_id
from bench_scheduler.dispatch import dispatch_event
from tests.integration.scheduler.fake_runner import FakeRunner
from tests.integration.scheduler.support import (
    admit,
    eventually,
    history,
    run_config,
    running_scheduler,
    wait_finished,
)
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


@asynccontextmanager
async def scheduler_process(url: str, log: Path) -> AsyncIterator[asyncio.subprocess.Process]:
    """`python -m bench_scheduler` as a child process (terminated at the end if still alive)."""
    with log.open("ab") as out:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench_scheduler",
            env={**os.environ, "NATS_URL": url}, stdout=out, stderr=out,
        )  # fmt: skip
    try:
        yield process
    finally:
        if process.returncode is None:
            process.terminate()
            await asyncio.wait_for(process.wait(), 10)


async def test_kill_9_and_restart_mid_run(restartable_nats: NatsServer, tmp_path: Path) -> None:
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    runner = FakeRunner(nc, samples=40, delay=0.05, workers=6)
    log = tmp_path / "scheduler.log"
    try:
        await runner.start()
        run_id = new_id()
        async with scheduler_process(restartable_nats.url, log) as first:
            assert (await admit(nc, run_id, concurrency=4)).admitted
            await eventually(lambda: runner.completed[run_id] >= 10)
            first.kill()  # SIGKILL: no chance to clean up
            await first.wait()
        done_while_down = runner.completed[run_id]
        await asyncio.sleep(0.2)  # in-flight items complete while no scheduler runs
        async with scheduler_process(restartable_nats.url, log):
            finished = await wait_finished(js, run_id, timeout=20)
        assert done_while_down < 40
        assert finished.status == "succeeded", log.read_text()[-2000:]
        assert finished.counts.completed + finished.counts.skipped == 40
        events = [e for _, e in await history(js, run_id)]
        completed = [(e.record.sample_id, e.record.epoch) for e in events
                     if isinstance(e, SampleCompleted)]  # fmt: skip
        assert len(completed) == len(set(completed)) == 40  # each counted exactly once
        assert runner.max_held[run_id] <= 4
    finally:
        await runner.stop()
        await nc.close()


async def test_items_recorded_but_never_queued_are_requeued(restartable_nats: NatsServer) -> None:
    """The crash between recording SampleDispatched and queueing its work item."""
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    run_id = new_id()
    config = run_config(concurrency=3, limit=5)
    ids = [f"{run_id[:8]}-q{i}" for i in range(5)]
    runner = FakeRunner(nc, delay=0.01)
    try:
        async with running_scheduler(restartable_nats.url):
            pass  # creates the streams
        for event in (
            RunRequested(run_id=run_id, config=config),
            RunAdmitted(run_id=run_id, active=1, max_active=8),
            RunStarted(run_id=run_id, expected_samples=5, total_evaluations=5, sample_ids=ids),
            dispatch_event(run_id, (ids[0], 0), 0),
            dispatch_event(run_id, (ids[1], 0), 1),
        ):
            await publish(js, event)  # recorded only: BENCH_WORK never got the two items
        await runner.start()
        runner.serve_work(run_id)
        async with running_scheduler(restartable_nats.url):
            finished = await wait_finished(js, run_id)
        assert finished.status == "succeeded"
        assert finished.counts.processed == 5
        dispatched = [e for _, e in await history(js, run_id) if isinstance(e, SampleDispatched)]
        assert len(dispatched) == 5  # the two recorded items were re-queued, not re-dispatched
    finally:
        await runner.stop()
        await nc.close()


async def test_the_run_survives_a_nats_server_restart(restartable_nats: NatsServer) -> None:
    """The feed recreates its ordered consumer, publishes are retried, the key bucket (memory
    storage, lost with the server) is recreated for the next admission."""
    nc = await nats.connect(restartable_nats.url, max_reconnect_attempts=-1)
    js = nc.jetstream()
    runner = FakeRunner(nc, samples=30, delay=0.03, workers=3)
    try:
        await runner.start()
        async with running_scheduler(restartable_nats.url):
            run_id = new_id()
            assert (await admit(nc, run_id, concurrency=3)).admitted
            await eventually(lambda: runner.completed[run_id] >= 8)
            restartable_nats.stop()
            restartable_nats.start()
            finished = await wait_finished(js, run_id, timeout=30)
            assert finished.status == "succeeded"
            assert finished.counts.processed == 30
            assert (await admit(nc, concurrency=1)).admitted  # the key bucket came back
    finally:
        await runner.stop()
        await nc.close()
