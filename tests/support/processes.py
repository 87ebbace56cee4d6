"""Service processes of end-to-end tests and benchmarks: start one, wait until it says it is
ready, kill -9 it, restart it with the same argv and environment, read its log and its CPU time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

START_TIMEOUT_S = 60.0


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process, from /proc (no psutil)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class ServiceProcess:
    """One service process: started, killed and restarted with the same argv and environment.

    Output goes to `log_path` (appended across restarts); `ready_marker` is a substring of
    the line it writes once ready.
    """

    name: str
    argv: list[str]
    env: dict[str, str]
    log_path: Path
    ready_marker: str
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    @property
    def pid(self) -> int:
        """Pid of the running process."""
        assert self.process is not None, f"{self.name} is not running"
        return self.process.pid

    @property
    def running(self) -> bool:
        """True while the process has not exited."""
        return self.process is not None and self.process.returncode is None

    async def start(self, timeout: float = START_TIMEOUT_S) -> None:
        """Start and wait for the ready line (written after this start)."""
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                *self.argv, env=self.env, stdout=log, stderr=asyncio.subprocess.STDOUT,
                stdin=asyncio.subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        self.starts += 1
        deadline = time.monotonic() + timeout
        while self.ready_marker not in self.log_text(offset):
            if self.process.returncode is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n"
                                   f"{self.log_text(offset)[-3000:]}")  # fmt: skip
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{self.name} not ready in {timeout}s:\n{self.log_text()[-3000:]}"
                )
            await asyncio.sleep(0.05)

    async def kill(self) -> None:
        """kill -9 and reap."""
        if self.running:
            assert self.process is not None
            self.process.kill()
            await self.process.wait()

    async def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM, then SIGKILL after `timeout`; the exit code (None if never started)."""
        if self.process is None:
            return None
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        return self.process.returncode

    def log_text(self, offset: int = 0) -> str:
        """The output written so far (from byte `offset`)."""
        if not self.log_path.exists():
            return ""
        with self.log_path.open("rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def log_events(self, event: str) -> list[dict[str, Any]]:
        """The JSON log lines whose `event` is `event` (structlog's message key)."""
        found = []
        for line in self.log_text().splitlines():
            if line.startswith("{") and f'"{event}"' in line:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if record.get("event") == event:
                        found.append(record)
        return found
