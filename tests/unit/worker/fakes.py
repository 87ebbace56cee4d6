"""Fakes of the worker's ports (STYLE.md habit 5: pass fakes in, never patch)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TypeVar

from pydantic import JsonValue

from bench_common.envelope import Event
from bench_common.evaluation import EvaluationRecord
from bench_common.events import RunRequested
from bench_common.run_config import RunConfig
from bench_runner.benchmarks.base import Sample
from bench_runner.inference.errors import RunAborted

E = TypeVar("E", bound=Event)


def samples(n: int) -> list[Sample]:
    """`n` samples `s0`..`s{n-1}` at rows 0..n-1."""
    return [Sample(id=f"s{i}", index=i, input=f"question {i}", target="A") for i in range(n)]


def config(epochs: int = 2) -> RunConfig:
    """A small GPQA config."""
    return RunConfig(benchmark="gpqa_diamond", model="m", epochs=epochs, concurrency=4)


class FakePublisher:
    """Keeps published events; raises `fail` when set."""

    def __init__(self) -> None:
        self.events: list[tuple[Event, str | None]] = []
        self.fail: Exception | None = None

    async def publish(self, event: Event, *, stream: str | None = None) -> None:
        if self.fail is not None:
            raise self.fail
        self.events.append((event, stream))

    def of(self, event_type: type[E]) -> list[E]:
        """Published events of one type, in order."""
        return [e for e, _ in self.events if isinstance(e, event_type)]


class FakeEvents:
    """An in-memory system of record: the last event per (type, run)."""

    def __init__(self, *events: Event) -> None:
        self._last: dict[tuple[type[Event], str], Event] = {}
        self.reads = 0
        for event in events:
            self.add(event)

    def add(self, event: Event) -> None:
        self._last[(type(event), event.run_id)] = event

    async def last(self, event_type: type[E], run_id: str) -> E | None:
        self.reads += 1
        found = self._last.get((event_type, run_id))
        assert found is None or isinstance(found, event_type)
        return found


class FakeDataKeys:
    """Data keys by id."""

    def __init__(self, keys: Mapping[str, bytes] | None = None) -> None:
        self.keys = dict(keys or {})

    async def get(self, key_id: str) -> bytes | None:
        return self.keys.get(key_id)


class FakeSession:
    """An engine session: answers C, or raises `RunAborted` when `abort` is set; `gate`
    holds every evaluation until set."""

    def __init__(self, items: list[Sample], *, abort: str | None = None) -> None:
        self.samples = items
        self.abort = abort
        self.gate: asyncio.Event | None = None
        self.evaluated: list[tuple[str, int]] = []
        self.messages: list[dict[str, JsonValue]] = []
        self.closed = False

    async def evaluate(self, sample: Sample, epoch: int) -> EvaluationRecord:
        if self.gate is not None:
            await self.gate.wait()
        if self.abort is not None:
            raise RunAborted(self.abort)
        self.evaluated.append((sample.id, epoch))
        return EvaluationRecord(
            sample_id=sample.id,
            sample_index=sample.index,
            epoch=epoch,
            score="C",
            answer="A",
            messages=self.messages,
        )

    async def close(self) -> None:
        self.closed = True


class FakeEngine:
    """Opens `FakeSession`s and remembers the credentials it was given."""

    def __init__(self, items: list[Sample], *, error: Exception | None = None) -> None:
        self.items = items
        self.error = error
        self.opened: list[tuple[str, str, dict[str, str]]] = []
        self.sessions: list[FakeSession] = []

    async def __call__(
        self, run: RunRequested, *, api_key: str, credentials: Mapping[str, str]
    ) -> FakeSession:
        if self.error is not None:
            raise self.error
        self.opened.append((run.run_id, api_key, dict(credentials)))
        session = FakeSession(self.items)
        self.sessions.append(session)
        return session
