"""The session cache: one opening per run, tombstones, idle eviction."""

from __future__ import annotations

import asyncio

import pytest

from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.sessions import SessionCache
from tests.unit.worker.fakes import FakeSession, config, samples


class Opener:
    """Opens runs after `gate` is set; fails once when `fail` is set."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.gate = asyncio.Event()
        self.gate.set()
        self.fail: Exception | None = None
        self.over: RunOver | None = None
        self.sessions: list[FakeSession] = []

    async def __call__(self, run_id: str) -> OpenRun | RunOver:
        self.calls.append(run_id)
        await self.gate.wait()
        if self.fail is not None:
            error, self.fail = self.fail, None
            raise error
        if self.over is not None:
            return self.over
        session = FakeSession(samples(2))
        self.sessions.append(session)
        return OpenRun(run_id, config(), session, {s.id: s for s in session.samples})


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def test_concurrent_gets_share_one_opening() -> None:
    opener = Opener()
    opener.gate.clear()
    cache = SessionCache(opener=opener)
    gets = [asyncio.ensure_future(cache.get("r1")) for _ in range(5)]
    await asyncio.sleep(0)
    opener.gate.set()
    runs = await asyncio.gather(*gets)
    assert opener.calls == ["r1"]
    assert all(r is runs[0] for r in runs)
    assert await cache.get("r1") is runs[0]
    assert cache.open_runs() == [runs[0]]


async def test_failed_opening_is_retried_by_the_next_get() -> None:
    opener = Opener()
    opener.fail = TimeoutError("nats")
    cache = SessionCache(opener=opener)
    with pytest.raises(TimeoutError):
        await cache.get("r1")
    assert isinstance(await cache.get("r1"), OpenRun)
    assert opener.calls == ["r1", "r1"]


async def test_over_runs_are_remembered() -> None:
    opener = Opener()
    opener.over = RunOver("the run finished (succeeded)")
    cache = SessionCache(opener=opener)
    assert await cache.get("r1") == opener.over
    assert await cache.get("r1") == opener.over
    assert opener.calls == ["r1"]
    assert cache.over("r1") == opener.over


async def test_end_returns_the_open_run_once_and_first_reason_wins() -> None:
    cache = SessionCache(opener=Opener())
    run = await cache.get("r1")
    assert cache.end("r1", RunOver("cancelled")) is run
    assert cache.end("r1", RunOver("finished")) is None
    assert cache.over("r1") == RunOver("cancelled")
    assert await cache.get("r1") == RunOver("cancelled")


async def test_run_ending_while_opening_closes_the_new_session() -> None:
    opener = Opener()
    opener.gate.clear()
    cache = SessionCache(opener=opener)
    pending = asyncio.ensure_future(cache.get("r1"))
    await asyncio.sleep(0)
    assert cache.end("r1", RunOver("cancelled")) is None
    opener.gate.set()
    assert await pending == RunOver("cancelled")
    assert opener.sessions[0].closed
    assert cache.open_runs() == []


async def test_a_cancelled_waiter_does_not_cancel_the_opening() -> None:
    opener = Opener()
    opener.gate.clear()
    cache = SessionCache(opener=opener)
    first = asyncio.ensure_future(cache.get("r1"))
    second = asyncio.ensure_future(cache.get("r1"))
    await asyncio.sleep(0)
    first.cancel()
    opener.gate.set()
    assert isinstance(await second, OpenRun)


async def test_idle_runs_without_items_are_evicted_and_reopen() -> None:
    clock = Clock()
    opener = Opener()
    cache = SessionCache(opener=opener, clock=clock)
    await cache.get("busy")
    await cache.get("idle")
    clock.now = 1000.0
    evicted = cache.idle(900.0, busy=lambda run_id: run_id == "busy")
    assert [r.run_id for r in evicted] == ["idle"]
    assert [r.run_id for r in cache.open_runs()] == ["busy"]
    await cache.get("idle")
    assert opener.calls.count("idle") == 2
    assert {r.run_id for r in cache.drain()} == {"busy", "idle"}
    assert cache.open_runs() == []


async def test_tombstones_are_bounded() -> None:
    cache = SessionCache(opener=Opener(), max_tombstones=2)
    for run_id in ("a", "b", "c"):
        cache.end(run_id, RunOver("x"))
    assert cache.over("a") is None
    assert cache.over("c") == RunOver("x")
