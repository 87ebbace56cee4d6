"""Where attempt records go: a JSONL file in the CLI, events in managed mode."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, TextIO

from bench_common.attempts import AttemptRecord


class AttemptSink(Protocol):
    """Receives every started / progressed / completed record of every attempt, in order."""

    async def record(self, record: AttemptRecord) -> None: ...


class NullSink:
    """Discards records (`REQUEST_LOG=0`)."""

    async def record(self, record: AttemptRecord) -> None:
        return None


class JsonlAttemptSink:
    """Appends one JSON object per record to a file (the CLI's `REQUEST_LOG_FILE`).

    The file is opened on the first record (parent directories created) and kept open; each
    line is flushed so an interrupted run keeps what it wrote. On the first write error the
    sink warns once and disables itself for the rest of the process: losing the request log
    must never fail a run.
    """

    def __init__(self, path: str | Path, *, warn: Callable[[str], None] | None = None) -> None:
        self.path = Path(path)
        self._warn = warn or _log_warning
        self._file: TextIO | None = None
        self.disabled = False

    async def record(self, record: AttemptRecord) -> None:
        """Write one record as a JSON line (a no-op once disabled)."""
        if self.disabled:
            return
        try:
            if self._file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._file = self.path.open("a", encoding="utf-8")
            # model_dump_json gives the same JSON as model_dump(mode="json") in one pass.
            self._file.write(record.model_dump_json() + "\n")
            self._file.flush()
        except (OSError, ValueError) as exc:
            self.disabled = True
            self._close_quietly()
            self._warn(f"request log {self.path} disabled after a write error: {exc}")

    def close(self) -> None:
        """Close the file; later records reopen it."""
        if self._file is not None:
            self._file.close()
            self._file = None

    def _close_quietly(self) -> None:
        file, self._file = self._file, None
        if file is not None:
            with contextlib.suppress(OSError):
                file.close()


def _log_warning(message: str) -> None:
    logging.getLogger("bench_runner.request_log").warning(message)
