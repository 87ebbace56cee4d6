"""The scheduler's ports: what its handlers need from the outside world, and nothing more."""

from __future__ import annotations

from typing import Protocol

from bench_common.envelope import Event


class EventLog(Protocol):
    """Where facts are recorded (BENCH_EVENTS) and work items queued (BENCH_WORK)."""

    async def publish(self, event: Event, *, stream: str | None = None) -> int:
        """Publish `event` to its home stream, or to `stream`; return the stream sequence."""
        ...


class KeyStore(Protocol):
    """Memory-backed storage of per-run data keys (crypto-shredding)."""

    async def put(self, key_id: str, key: bytes) -> None:
        """Store the raw data key under `key_id`."""
        ...

    async def shred(self, key_id: str) -> None:
        """Delete every revision of `key_id`; a missing key is not an error."""
        ...

    async def key_ids(self) -> list[str]:
        """Ids of the keys stored now."""
        ...
