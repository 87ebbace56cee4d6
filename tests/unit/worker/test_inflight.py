"""The registry of in-flight items."""

from __future__ import annotations

import asyncio

from bench_runner.worker.inflight import InFlight


class Msg:
    def __init__(self) -> None:
        self.progress = 0

    async def in_progress(self) -> None:
        self.progress += 1


async def test_tracks_items_by_run_and_due_progress() -> None:
    registry = InFlight()
    loop = asyncio.get_running_loop()
    tasks = [loop.create_task(asyncio.sleep(0)) for _ in range(3)]
    msgs = [Msg() for _ in range(3)]
    registry.add(tasks[0], msgs[0], "r1", 0.0)
    registry.add(tasks[1], msgs[1], "r1", 5.0)
    registry.add(tasks[2], msgs[2], "r2", 0.0)
    assert len(registry) == 3
    assert set(registry.of_run("r1")) == {tasks[0], tasks[1]}
    assert registry.busy("r2")
    assert registry.due(10.0, 10.0) == [msgs[0], msgs[2]]
    assert registry.due(10.0, 10.0) == []  # touched
    assert registry.due(15.0, 10.0) == [msgs[1]]
    registry.remove(tasks[2])
    registry.remove(tasks[2])  # idempotent
    assert not registry.busy("r2")
    assert registry.of_run("r2") == []
    assert set(registry.tasks()) == {tasks[0], tasks[1]}
    await asyncio.gather(*tasks)
