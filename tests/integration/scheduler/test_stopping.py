"""Cancellation ends a run `cancelled` promptly; a runner's abort ends it `failed`."""

from __future__ import annotations

import asyncio
import time

import nats
import nats.js.errors
import pytest

from bench_common.bus import KEYS_BUCKET, last_event, publish
from bench_common.events import (
    RunAbortRequested,
    RunCancelRequested,
    RunFinished,
    RunRequested,
    SampleDispatched,
)
from bench_common.ids import new_id
from tests.integration.scheduler.fake_runner import FakeRunner
from tests.integration.scheduler.support import (
    admit,
    eventually,
    history,
    running_scheduler,
    wait_finished,
)
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def test_cancel_finishes_the_run_promptly_and_stops_dispatch(
    restartable_nats: NatsServer,
) -> None:
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    runner = FakeRunner(nc, samples=30, delay=0.3, workers=3)
    try:
        await runner.start()
        async with running_scheduler(restartable_nats.url):
            run_id = new_id()
            assert (await admit(nc, run_id, concurrency=3)).admitted
            await eventually(lambda: runner.held[run_id] == 3)  # evaluations in flight
            asked = time.monotonic()
            await publish(js, RunCancelRequested(run_id=run_id, reason="test"))
            finished = await wait_finished(js, run_id, timeout=5)
            took = time.monotonic() - asked
            await asyncio.sleep(0.5)  # let the in-flight evaluations complete
        assert finished.status == "cancelled"
        assert took < 0.5
        events = [e for _, e in await history(js, run_id)]
        finished_at = next(i for i, e in enumerate(events) if isinstance(e, RunFinished))
        assert not any(isinstance(e, SampleDispatched) for e in events[finished_at:])
        assert sum(isinstance(e, RunFinished) for e in events) == 1
    finally:
        await runner.stop()
        await nc.close()


async def test_abort_fails_the_run_with_the_reason_and_shreds_the_key(
    restartable_nats: NatsServer,
) -> None:
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    reason = "the endpoint refused the API key (HTTP 401); check OPENROUTER_API_KEY"
    try:
        async with running_scheduler(restartable_nats.url):
            run_id = new_id()
            assert (await admit(nc, run_id)).admitted
            requested = await last_event(js, RunRequested, run_id)
            assert requested is not None
            key_id = requested.credentials["api_key"].key_id
            kv = await js.key_value(KEYS_BUCKET)
            assert (await kv.get(key_id)).value is not None
            await publish(js, RunAbortRequested(run_id=run_id, reason=reason, runner_id="r-1"))
            finished = await wait_finished(js, run_id, timeout=5)
        assert (finished.status, finished.failure_reason) == ("failed", reason)
        with pytest.raises(nats.js.errors.KeyNotFoundError):
            await kv.get(key_id)  # crypto-shredded: the sealed key is unrecoverable now
    finally:
        await nc.close()
