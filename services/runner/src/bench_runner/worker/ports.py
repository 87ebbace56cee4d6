"""The small ports the worker's cores depend on; `adapters/` implements them over NATS and
the engine, and unit tests implement them with fakes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol, TypeVar

from bench_common.envelope import Event
from bench_common.evaluation import EvaluationRecord
from bench_common.events import RunRequested
from bench_runner.benchmarks.base import Sample

E = TypeVar("E", bound=Event)


class EventPublisher(Protocol):
    """Publishes one event and returns once the stream has acknowledged it."""

    async def publish(self, event: Event, *, stream: str | None = None) -> None: ...


class EventReader(Protocol):
    """Reads the newest event of a type for a run from the system of record."""

    async def last(self, event_type: type[E], run_id: str) -> E | None: ...


class DataKeys(Protocol):
    """The per-run data keys (crypto-shredding); None when the key is gone."""

    async def get(self, key_id: str) -> bytes | None: ...


class EvaluationSession(Protocol):
    """What the worker needs of the engine's `RunSession`."""

    samples: list[Sample]

    async def evaluate(self, sample: Sample, epoch: int) -> EvaluationRecord: ...

    async def close(self) -> None: ...


class EngineOpener(Protocol):
    """Opens the engine session of a run with plaintext credentials (kept in memory only)."""

    async def __call__(
        self, run: RunRequested, *, api_key: str, credentials: Mapping[str, str]
    ) -> EvaluationSession: ...
