"""Where attempt records go: a JSONL file in the CLI, events in managed mode."""

from __future__ import annotations

from typing import Protocol

from bench_common.attempts import AttemptRecord


class AttemptSink(Protocol):
    """Receives every started / progressed / completed record of every attempt, in order."""

    async def record(self, record: AttemptRecord) -> None: ...


class NullSink:
    """Discards records (`REQUEST_LOG=0`)."""

    async def record(self, record: AttemptRecord) -> None:
        return None
