"""Evaluate many items at bounded concurrency with rolling scheduling.

A fixed pool of `concurrency` workers pulls the next item as soon as one finishes, so a slow
evaluation never holds back the others (no head-of-line blocking). With `ordered=True` records
are handed to `on_record` in item order (a reorder buffer); otherwise as they complete.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable

from bench_common.evaluation import EvaluationRecord
from bench_runner.benchmarks.base import Sample

Evaluate = Callable[[Sample, int], Awaitable[EvaluationRecord]]
OnRecord = Callable[[EvaluationRecord], None]


async def run_items(
    items: Iterable[tuple[Sample, int]],
    *,
    evaluate: Evaluate,
    concurrency: int,
    on_record: OnRecord,
    ordered: bool = True,
) -> list[EvaluationRecord]:
    """Evaluate every item; return the records in item order.

    The first exception raised by `evaluate` (e.g. `RunAborted`) cancels the remaining work and
    propagates.
    """
    queue = list(enumerate(items))
    results: list[EvaluationRecord | None] = [None] * len(queue)
    position = 0
    next_to_emit = 0

    def emit(index: int, record: EvaluationRecord) -> None:
        nonlocal next_to_emit
        results[index] = record
        if not ordered:
            on_record(record)
            return
        while next_to_emit < len(results) and results[next_to_emit] is not None:
            ready = results[next_to_emit]
            assert ready is not None
            on_record(ready)
            next_to_emit += 1

    async def worker() -> None:
        nonlocal position
        while position < len(queue):
            index, (sample, epoch) = queue[position]
            position += 1
            emit(index, await evaluate(sample, epoch))

    try:
        async with asyncio.TaskGroup() as group:
            for _ in range(min(concurrency, len(queue))):
                group.create_task(worker())
    except BaseExceptionGroup as failed:
        # Surface the first real failure (e.g. RunAborted), not the TaskGroup wrapper.
        raise failed.exceptions[0] from None
    return [r for r in results if r is not None]
