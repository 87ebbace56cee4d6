"""Progress of a CLI run: a bar on a terminal, periodic lines otherwise, and a progress file.

`BENCH_PROGRESS_FILE` is rewritten atomically (temp file + rename) so a watcher never reads a
torn document; fields are the original's: processed, completed, skipped, total, percentage,
updatedAt.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from bench_common.evaluation import EvaluationRecord

_FILE_INTERVAL_S = 0.5
_BAR_INTERVAL_S = 0.1


def write_json_atomic(path: Path, data: object) -> None:
    """Write JSON to `path` via a temp file in the same directory and an atomic rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class ProgressReporter:
    """Counts processed evaluations and reports them to stderr and the progress file."""

    def __init__(
        self, total: int, *, stream: TextIO, progress_file: Path | None, interactive: bool
    ) -> None:
        self.total = total
        self.completed = 0
        self.skipped = 0
        self._stream = stream
        self._file = progress_file
        self._interactive = interactive
        self._started = time.monotonic()
        self._last_file = 0.0
        self._last_bar = 0.0
        self._next_decile = 1
        self._write_file(force=True)

    @property
    def processed(self) -> int:
        """Evaluations scored so far (C, I or S)."""
        return self.completed + self.skipped

    def update(self, record: EvaluationRecord) -> None:
        """Count one scored evaluation."""
        if record.score == "S":
            self.skipped += 1
        else:
            self.completed += 1
        now = time.monotonic()
        if self._interactive and (now - self._last_bar >= _BAR_INTERVAL_S or self._done()):
            self._last_bar = now
            self._draw_bar(record.sample_id)
        elif not self._interactive:
            self._maybe_line()
        self._write_file(force=self._done())

    def finish(self) -> None:
        """Close the bar line and write the final progress document."""
        if self._interactive:
            self._stream.write("\n")
            self._stream.flush()
        self._write_file(force=True)

    def _done(self) -> bool:
        return self.processed >= self.total

    def _percentage(self) -> float:
        return 100.0 * self.processed / self.total if self.total else 100.0

    def _draw_bar(self, sample_id: str) -> None:
        width = 30
        filled = int(width * self.processed / self.total) if self.total else width
        elapsed = int(time.monotonic() - self._started)
        bar = "#" * filled + "-" * (width - filled)
        self._stream.write(
            f"\r{self._percentage():5.1f}% |{bar}| {self.processed}/{self.total} evals"
            f" | #{sample_id} | {elapsed // 60:02d}:{elapsed % 60:02d}"
        )
        self._stream.flush()

    def _maybe_line(self) -> None:
        while self.total and self.processed * 10 >= self._next_decile * self.total:
            self._next_decile += 1
            self._stream.write(
                f"[runtime] {self.processed}/{self.total} evaluations processed"
                f" ({self._percentage():.0f}%); {self.skipped} skipped\n"
            )
            if self._done():
                self._stream.write(
                    "[runtime] final aggregation and Parquet persistence are starting\n"
                )
            self._stream.flush()

    def _write_file(self, *, force: bool) -> None:
        if self._file is None:
            return
        now = time.monotonic()
        if not force and now - self._last_file < _FILE_INTERVAL_S:
            return
        self._last_file = now
        write_json_atomic(
            self._file,
            {
                "processed": self.processed,
                "completed": self.completed,
                "skipped": self.skipped,
                "total": self.total,
                "percentage": round(self._percentage(), 2),
                "updatedAt": datetime.now(UTC).isoformat(),
            },
        )
