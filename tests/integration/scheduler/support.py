"""Helpers of the scheduler integration tests: an in-process scheduler, admissions, waiting."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

import nats.errors
from nats.aio.client import Client
from nats.js import JetStreamContext
from pydantic import SecretStr

from bench_cli.submit import request_admission
from bench_common.bus import last_event, run_history
from bench_common.commands import AdmissionReply, AdmissionRequest
from bench_common.envelope import Event
from bench_common.events import RunFinished
from bench_common.ids import new_id
from bench_common.run_config import RunConfig
from bench_scheduler.main import serve
from bench_scheduler.settings import SchedulerSettings

API_KEY = "sk-test-never-in-an-event"


@contextlib.asynccontextmanager
async def running_scheduler(url: str, *, max_runs: int = 8) -> AsyncIterator[None]:
    """`bench scheduler` in this event loop, stopped (gracefully) at the end of the block."""
    stop = asyncio.Event()
    settings = SchedulerSettings(nats_url=url, bench_api_max_runs=max_runs)
    task = asyncio.create_task(serve(settings, stop=stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 10)


def run_config(**overrides: object) -> RunConfig:
    """A small GPQA config (overridable)."""
    values: dict[str, object] = {"benchmark": "gpqa_diamond", "model": "fake", "epochs": 1}
    values.update({"concurrency": 2, **overrides})
    return RunConfig.model_validate(values)


async def admit(nc: Client, run_id: str | None = None, **overrides: object) -> AdmissionReply:
    """Send an admission request as `bench submit` does."""
    request = AdmissionRequest(
        run_id=run_id or new_id(),
        config=run_config(**overrides),
        credentials={"api_key": SecretStr(API_KEY)},
    )
    return await request_admission(nc, request, timeout=15)


async def eventually(predicate: Callable[[], bool], timeout: float = 10) -> None:
    """Wait until `predicate()` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"condition not met within {timeout}s")


async def wait_finished(js: JetStreamContext, run_id: str, timeout: float = 15) -> RunFinished:
    """Poll until the run's RunFinished is recorded."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(nats.errors.Error, TimeoutError):  # NATS may be restarting
            finished = await last_event(js, RunFinished, run_id)
            if finished is not None:
                return finished
        await asyncio.sleep(0.02)
    raise AssertionError(f"run {run_id} did not finish within {timeout}s")


async def history(js: JetStreamContext, run_id: str) -> list[tuple[int, Event]]:
    """The run's events in stream order."""
    return [item async for item in run_history(js, run_id, idle_timeout=0.5)]
