"""The runs this runner has open, keyed by run id: each opened once, shared by all its items.

Opening a run reads events, fetches its data key and loads the dataset, so it must not happen
per item. Concurrent items of a run that is still opening wait for the same opening. Runs that
are over leave a tombstone so their late items are dropped without another lookup.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable

from bench_runner.worker.opening import OpenRun, RunOver

Opener = Callable[[str], Awaitable[OpenRun | RunOver]]
MAX_TOMBSTONES = 10_000


class SessionCache:
    """Open runs by id, plus tombstones of runs that are over."""

    def __init__(
        self,
        *,
        opener: Opener,
        clock: Callable[[], float] = time.monotonic,
        max_tombstones: int = MAX_TOMBSTONES,
    ) -> None:
        self._opener = opener
        self._clock = clock
        self._max_tombstones = max_tombstones
        self._open: dict[str, OpenRun] = {}
        self._last_used: dict[str, float] = {}
        self._opening: dict[str, asyncio.Task[OpenRun | RunOver]] = {}
        self._over: OrderedDict[str, RunOver] = OrderedDict()

    def over(self, run_id: str) -> RunOver | None:
        """The tombstone of a run that is over, or None."""
        return self._over.get(run_id)

    def open_runs(self) -> list[OpenRun]:
        """The runs open right now."""
        return list(self._open.values())

    async def get(self, run_id: str) -> OpenRun | RunOver:
        """The open run, opening it on first use; `RunOver` for runs that are over.

        Raises:
            Exception: whatever the opener raised (transient: the next call tries again).
        """
        over = self._over.get(run_id)
        if over is not None:
            return over
        run = self._open.get(run_id)
        if run is not None:
            self._last_used[run_id] = self._clock()
            return run
        task = self._opening.get(run_id)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._open_once(run_id))
            self._opening[run_id] = task
        # Shielded: one waiting item being cancelled must not cancel the opening for the rest.
        return await asyncio.shield(task)

    async def _open_once(self, run_id: str) -> OpenRun | RunOver:
        try:
            result = await self._opener(run_id)
        finally:
            self._opening.pop(run_id, None)
        if isinstance(result, RunOver):
            self._bury(run_id, result)
            return result
        over = self._over.get(run_id)
        if over is not None:  # the run ended while it was opening
            await result.session.close()
            return over
        self._open[run_id] = result
        self._last_used[run_id] = self._clock()
        return result

    def end(self, run_id: str, over: RunOver) -> OpenRun | None:
        """Mark the run over (the first reason wins); return its open run for the caller to
        close once the run's in-flight items have stopped."""
        if run_id in self._over:
            return None
        self._bury(run_id, over)
        self._last_used.pop(run_id, None)
        return self._open.pop(run_id, None)

    def idle(self, idle_s: float, *, busy: Callable[[str], bool]) -> list[OpenRun]:
        """Remove and return open runs unused for `idle_s` with nothing in flight (a run whose
        items all went to other runners); they reopen on demand."""
        cutoff = self._clock() - idle_s
        stale = [
            run_id for run_id, used in self._last_used.items() if used < cutoff and not busy(run_id)
        ]
        for run_id in stale:
            self._last_used.pop(run_id, None)
        return [run for run_id in stale if (run := self._open.pop(run_id, None)) is not None]

    def drain(self) -> list[OpenRun]:
        """Remove and return every open run (shutdown)."""
        runs = list(self._open.values())
        self._open.clear()
        self._last_used.clear()
        return runs

    def _bury(self, run_id: str, over: RunOver) -> None:
        self._over[run_id] = over
        while len(self._over) > self._max_tombstones:
            self._over.popitem(last=False)
