"""The work this runner holds right now: message, run and task of every item in flight.

Lets the worker cancel one run's evaluations at once when the run ends, send in-progress
acks for long evaluations from one timer instead of one per item, and wait for everything on
shutdown.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol


class Ackable(Protocol):
    """The part of a JetStream message the registry needs."""

    async def in_progress(self) -> None: ...


@dataclass
class InFlightItem:
    """One message being handled."""

    msg: Ackable
    run_id: str
    touched: float


class InFlight:
    """In-flight items by task, with an index by run."""

    def __init__(self) -> None:
        self._items: dict[asyncio.Task[None], InFlightItem] = {}
        self._by_run: dict[str, set[asyncio.Task[None]]] = {}

    def __len__(self) -> int:
        return len(self._items)

    def add(self, task: asyncio.Task[None], msg: Ackable, run_id: str, now: float) -> None:
        """Track `task`, which handles `msg` of `run_id`."""
        self._items[task] = InFlightItem(msg, run_id, now)
        self._by_run.setdefault(run_id, set()).add(task)

    def remove(self, task: asyncio.Task[None]) -> None:
        """Stop tracking `task` (idempotent)."""
        item = self._items.pop(task, None)
        if item is None:
            return
        tasks = self._by_run.get(item.run_id)
        if tasks is not None:
            tasks.discard(task)
            if not tasks:
                del self._by_run[item.run_id]

    def busy(self, run_id: str) -> bool:
        """Whether any item of `run_id` is in flight."""
        return run_id in self._by_run

    def of_run(self, run_id: str) -> list[asyncio.Task[None]]:
        """The tasks handling items of `run_id`."""
        return list(self._by_run.get(run_id, ()))

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every task in flight."""
        return list(self._items)

    def due(self, now: float, interval_s: float) -> list[Ackable]:
        """Messages held for `interval_s` since the last in-progress ack (marked as touched)."""
        due: list[Ackable] = []
        for item in self._items.values():
            if now - item.touched >= interval_s:
                item.touched = now
                due.append(item.msg)
        return due
