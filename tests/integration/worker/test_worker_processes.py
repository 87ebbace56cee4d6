"""Real `python -m bench_runner.worker` processes: one is killed with SIGKILL half way through
a run, the other finishes it with exactly one counted result per (sample, epoch)."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import nats
import pytest
from nats.js import JetStreamContext

from bench_common.bus import ensure_streams
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, STREAM_WORK
from bench_common.events import SampleCompleted, SampleStarted
from bench_common.ids import new_id
from bench_runner.fake_model import FakeModelServer, MultipleChoiceResponder
from tests.integration.worker.harness import CANARY_KEY, GPQA_FILE, GPQA_SAMPLES, gpqa_config
from tests.integration.worker.scheduler_role import (
    SchedulerRole,
    Tally,
    run_events,
    stored_messages,
)
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration
STARTUP_TIMEOUT_S = 20.0


class WorkerProcess:
    """`python -m bench_runner.worker` with its stderr (JSON log lines) collected."""

    def __init__(self, runner_id: str, nats_url: str, cache_dir: Path) -> None:
        self.runner_id = runner_id
        self.env = {
            **os.environ,
            "NATS_URL": nats_url,
            "BENCH_RUNNER_ID": runner_id,
            "BENCH_GPQA_DATASET_FILE": str(GPQA_FILE),
            "BENCH_DATASET_CACHE_DIR": str(cache_dir),
            "BENCH_RUNNER_ACK_WAIT_S": "2",
            "BENCH_RUNNER_PULL_EXPIRES_S": "1",
            "BENCH_RUNNER_SHUTDOWN_GRACE_S": "2",
        }
        self.lines: list[str] = []
        self._process: asyncio.subprocess.Process | None = None
        self._reader: asyncio.Task[None] | None = None
        self._started = asyncio.Event()

    async def start(self) -> None:
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench_runner.worker",
            env=self.env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        self._reader = asyncio.ensure_future(self._read())
        await asyncio.wait_for(self._started.wait(), STARTUP_TIMEOUT_S)

    async def _read(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        async for raw in self._process.stderr:
            line = raw.decode(errors="replace")
            self.lines.append(line)
            if '"runner started"' in line:
                self._started.set()

    def kill(self) -> None:
        """SIGKILL (a no-op once the process is gone)."""
        if self._process is not None and self._process.returncode is None:
            self._process.kill()

    async def stop(self) -> int:
        """SIGTERM and wait; the exit code."""
        assert self._process is not None
        if self._process.returncode is None:
            self._process.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(self._process.wait(), 20)
        if self._reader is not None:
            await self._reader
        return code


@pytest.fixture
async def js(restartable_nats: NatsServer) -> AsyncIterator[JetStreamContext]:
    nc = await nats.connect(restartable_nats.url)
    stream = nc.jetstream()
    await ensure_streams(stream)
    yield stream
    await nc.drain()


async def test_a_killed_runner_leaves_its_items_to_the_other_and_nothing_counts_twice(
    js: JetStreamContext, restartable_nats: NatsServer, tmp_path: Path
) -> None:
    epochs = 10
    total = GPQA_SAMPLES * epochs
    a = WorkerProcess("runner-a", restartable_nats.url, tmp_path)
    b = WorkerProcess("runner-b", restartable_nats.url, tmp_path)
    await asyncio.gather(a.start(), b.start())
    killed: list[int] = []

    async def kill_a_half_way(tally: Tally) -> None:
        if not killed and len(tally.results) >= total // 2:
            a.kill()
            killed.append(len(tally.results))

    responder = MultipleChoiceResponder(tokens=8, duration=0.15)
    async with FakeModelServer(responder=responder, api_key=CANARY_KEY, record=False) as server:
        config = gpqa_config(server.base_url, epochs=epochs, concurrency=12)
        role = SchedulerRole(js, run_id=new_id(), config=config, api_key=CANARY_KEY)
        await role.submit()
        try:
            tally = await role.run(timeout=40, on_result=kill_a_half_way)
        finally:
            a.kill()
            await a.stop()
            assert await b.stop() == 0  # graceful SIGTERM

    assert killed, "runner-a was never killed"
    assert tally.status == "succeeded"
    assert len(tally.results) == total
    events = await run_events(js, STREAM_EVENTS, role.run_id)
    completed = Counter(
        (e.record.sample_id, e.record.epoch) for e in events if isinstance(e, SampleCompleted)
    )
    assert len(completed) == total and set(completed.values()) == {1}
    completed_by = {
        (e.record.sample_id, e.record.epoch): e.runner_id
        for e in events
        if isinstance(e, SampleCompleted)
    }
    taken_over = {
        (e.sample_id, e.epoch)
        for e in events
        if isinstance(e, SampleStarted)
        and e.runner_id == "runner-a"
        and completed_by[(e.sample_id, e.epoch)] == "runner-b"
    }
    assert taken_over, "no item of the killed runner was redelivered to the other"
    for stream in (STREAM_EVENTS, STREAM_WORK, STREAM_LIVE):
        for _, body in await stored_messages(js, stream):
            assert CANARY_KEY.encode() not in body
    assert not any(CANARY_KEY in line for line in a.lines + b.lines), "the key was logged"
