"""In-memory doubles of the archiver's ports, for unit tests of its cores.

The S3 behaviour that matters here (sha256 metadata, missing objects, errors with statuses and
request ids) is modelled; the real protocol is exercised by the integration tests against
SeaweedFS and moto.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from bench_archiver.ports import E, StoreError
from bench_common.envelope import Event


@dataclass
class FakeObjectStore:
    """A bucket in a dict. `failures` are raised, in order, by the next puts."""

    objects: dict[str, tuple[bytes, str, str]] = field(default_factory=dict)
    """key -> (data, sha256, content type)"""
    failures: deque[StoreError] = field(default_factory=deque)
    down: bool = False
    puts: list[str] = field(default_factory=list)
    bucket: str = "bench-fake"

    def _check_up(self, operation: str, key: str) -> None:
        if self.down:
            raise StoreError(operation, key, None, "EndpointConnectionError", "connection refused")

    async def stored_sha256(self, key: str) -> str | None:
        self._check_up("head", key)
        found = self.objects.get(key)
        return None if found is None else found[1]

    async def put_file(self, key: str, path: Path, *, sha256: str, content_type: str) -> None:
        self._check_up("put", key)
        self.puts.append(key)
        if self.failures:
            raise self.failures.popleft()
        self.objects[key] = (path.read_bytes(), sha256, content_type)

    async def get_bytes(self, key: str) -> bytes | None:
        self._check_up("get", key)
        found = self.objects.get(key)
        return None if found is None else found[0]

    async def presign_get(self, key: str, *, expires_s: int) -> str:
        return f"https://fake.test/{self.bucket}/{key}?expires={expires_s}&sig=x"

    async def abort_incomplete_uploads(self, prefix: str) -> int:
        self._check_up("abort-uploads", prefix)
        return 0


def unavailable(key: str = "k", status: int | None = 503) -> StoreError:
    """A retryable error as S3 reports it."""
    return StoreError("put", key, status, "ServiceUnavailable", "slow down", "REQ1", "HOST1")


@dataclass
class FakeRunEvents:
    """BENCH_EVENTS as a list; `published` events are readable too, like the real stream."""

    events: list[Event] = field(default_factory=list)

    async def history(self, run_id: str) -> list[Event]:
        return [e for e in self.events if e.run_id == run_id]

    async def last(self, event_type: type[E], run_id: str) -> E | None:
        found = [e for e in self.events if isinstance(e, event_type) and e.run_id == run_id]
        return found[-1] if found else None


@dataclass
class FakeEventLog:
    """Appends to the fake stream, dropping re-publications of the same event id."""

    stream: FakeRunEvents

    async def publish(self, event: Event) -> int:
        if all(e.event_id != event.event_id for e in self.stream.events):
            self.stream.events.append(event)
        return len(self.stream.events)

    def of(self, event_type: type[E]) -> list[E]:
        return [e for e in self.stream.events if isinstance(e, event_type)]
