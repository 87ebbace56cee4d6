"""Dispatch by credits against a real server, with more runner workers than credits."""

from __future__ import annotations

from collections.abc import Sequence

import nats
import pytest

from bench_common.events import SampleCompleted, SampleDispatched
from bench_common.ids import new_id
from tests.integration.scheduler.fake_runner import FakeRunner
from tests.integration.scheduler.support import (
    API_KEY,
    admit,
    history,
    running_scheduler,
    wait_finished,
)
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


def max_outstanding(events: Sequence[object]) -> int:
    """The most evaluations dispatched and not yet completed at any point of the log."""
    outstanding: set[tuple[str, int]] = set()
    peak = 0
    for event in events:
        if isinstance(event, SampleDispatched):
            outstanding.add((event.sample_id, event.epoch))
        elif isinstance(event, SampleCompleted):
            outstanding.discard((event.record.sample_id, event.record.epoch))
        peak = max(peak, len(outstanding))
    return peak


async def test_outstanding_never_exceeds_concurrency_however_many_workers(
    restartable_nats: NatsServer,
) -> None:
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    runner = FakeRunner(nc, samples=12, delay=0.02, workers=8)
    try:
        await runner.start()
        async with running_scheduler(restartable_nats.url):
            run_id = new_id()
            reply = await admit(nc, run_id, epochs=2, concurrency=3)
            assert reply.admitted, reply.reason
            finished = await wait_finished(js, run_id)
        assert finished.status == "succeeded", finished.failure_reason
        assert finished.counts.total == 24
        assert finished.counts.processed == 24
        assert runner.max_held[run_id] == 3  # the credits were used, and never exceeded
        assert runner.api_keys[run_id] == API_KEY  # unsealed with the run's data key
        events = [e for _, e in await history(js, run_id)]
        assert max_outstanding(events) <= 3
        dispatched = [(e.sample_id, e.epoch) for e in events if isinstance(e, SampleDispatched)]
        assert len(dispatched) == len(set(dispatched)) == 24
        assert API_KEY not in "".join(e.model_dump_json() for e in events)
    finally:
        await runner.stop()
        await nc.close()


async def test_sandbox_runs_are_capped_at_six(restartable_nats: NatsServer) -> None:
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    runner = FakeRunner(nc, samples=14, delay=0.03, workers=10)
    try:
        await runner.start()
        async with running_scheduler(restartable_nats.url):
            run_id = new_id()
            reply = await admit(nc, run_id, benchmark="terminal_bench", concurrency=10)
            assert reply.admitted, reply.reason
            finished = await wait_finished(js, run_id)
        assert finished.status == "succeeded"
        assert runner.max_held[run_id] == 6
    finally:
        await runner.stop()
        await nc.close()
