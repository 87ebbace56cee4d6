"""Workers, the fake model and the dataset for end-to-end worker tests."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from bench_common.run_config import RunConfig
from bench_runner.worker.main import run_worker
from bench_runner.worker.settings import WorkerSettings

GPQA_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "gpqa" / "gpqa_synthetic.csv"
GPQA_SAMPLES = 6
CANARY_KEY = "sk-canary-7d1f0c9e5b2a4e18a3c6"
"""The run's API key: it must never appear in a stream, a log line or an artifact."""


def gpqa_config(base_url: str, *, epochs: int, concurrency: int) -> RunConfig:
    """A GPQA run over the six synthetic rows against the fake model, retrying quickly."""
    return RunConfig.model_validate(
        {
            "benchmark": "gpqa_diamond",
            "model": "fake/model",
            "base_url": base_url,
            "epochs": epochs,
            "concurrency": concurrency,
            "inference": {"maxRetries": 0},
        }
    )


def worker_settings(
    nats_url: str, runner_id: str, cache_dir: Path, **extra: object
) -> WorkerSettings:
    """Settings of an in-process worker with test-sized timings."""
    values: dict[str, object] = {
        "nats_url": nats_url,
        "runner_id": runner_id,
        "gpqa_dataset_file": GPQA_FILE,
        "dataset_cache_dir": cache_dir,
        "max_in_flight": 64,
        "ack_wait_s": 3.0,
        "pull_expires_s": 0.5,
        "shutdown_grace_s": 1.0,
    }
    values.update(extra)
    return WorkerSettings.model_validate(values)


@asynccontextmanager
async def workers(*settings: WorkerSettings) -> AsyncIterator[None]:
    """Run in-process workers for the duration of the block, then stop them gracefully."""
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(run_worker(s, stop=stop)) for s in settings]
    await asyncio.sleep(0.3)  # connected, consumers declared, pulling
    for task in tasks:
        if task.done():
            task.result()  # a worker that failed to start raises here
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*tasks), timeout=15)
