"""Rolling concurrency: bounded, no head-of-line blocking, ordered emission, abort."""

from __future__ import annotations

import asyncio

import pytest

from bench_common.evaluation import EvaluationRecord
from bench_runner.benchmarks.base import Sample
from bench_runner.engine.loop import run_items
from bench_runner.engine.selection import expand_items
from bench_runner.inference.errors import RunAborted

SAMPLES = [Sample(id=f"s-{i}", index=i, input="q") for i in range(6)]


def record(sample: Sample, epoch: int) -> EvaluationRecord:
    return EvaluationRecord(sample_id=sample.id, sample_index=sample.index, epoch=epoch, score="C")


async def test_concurrency_is_bounded_and_rolling() -> None:
    in_flight = 0
    peak = 0
    started: list[str] = []

    async def evaluate(sample: Sample, epoch: int) -> EvaluationRecord:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        started.append(f"{sample.id}/{epoch}")
        # the very first item is slow: the others must not wait for it
        await asyncio.sleep(0.2 if (sample.index, epoch) == (0, 0) else 0.01)
        in_flight -= 1
        return record(sample, epoch)

    emitted: list[tuple[int, int]] = []
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    out = await run_items(
        expand_items(SAMPLES, 2),
        evaluate=evaluate,
        concurrency=3,
        on_record=lambda r: emitted.append(r.key),
    )
    elapsed = loop.time() - t0
    assert peak == 3
    assert len(out) == 12
    assert elapsed < 0.3  # 11 fast items flowed past the slow one
    assert emitted == sorted(emitted)  # ordered emission despite out-of-order completion


async def test_unordered_emits_as_completed() -> None:
    async def evaluate(sample: Sample, epoch: int) -> EvaluationRecord:
        await asyncio.sleep(0.05 if sample.index == 0 else 0)
        return record(sample, epoch)

    emitted: list[tuple[int, int]] = []
    await run_items(
        expand_items(SAMPLES[:3], 1),
        evaluate=evaluate,
        concurrency=3,
        on_record=lambda r: emitted.append(r.key),
        ordered=False,
    )
    assert emitted[-1] == (0, 0)


async def test_abort_cancels_the_rest_and_propagates() -> None:
    cancelled = 0

    async def evaluate(sample: Sample, epoch: int) -> EvaluationRecord:
        nonlocal cancelled
        if sample.index == 1:
            raise RunAborted("bad key")
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled += 1
            raise
        return record(sample, epoch)

    with pytest.raises(RunAborted, match="bad key"):
        await run_items(expand_items(SAMPLES, 1), evaluate=evaluate, concurrency=4, on_record=print)
    assert cancelled == 3
