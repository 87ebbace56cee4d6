"""The fake server in a child process, for benchmarks and end-to-end tests.

A separate process keeps the server's CPU out of the measured process (and off its event
loop), which matters when hundreds of streams are timed.
"""

from __future__ import annotations

import asyncio
import sys
from types import TracebackType

STARTUP_TIMEOUT_S = 15.0


class FakeModelProcess:
    """`python -m bench_runner.fake_model ...` as an async context manager.

    Args:
        tokens: content chunks per response.
        delay: seconds per response.
        extra_args: more command-line arguments (`--api-key`, `--model`...).
    """

    def __init__(self, *, tokens: int = 16, delay: float = 0.0, extra_args: tuple[str, ...] = ()):
        self._args = ("--port", "0", "--tokens", str(tokens), "--delay", str(delay), *extra_args)
        self._process: asyncio.subprocess.Process | None = None
        self.base_url = ""

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs."""
        return self._process.pid if self._process is not None else None

    async def start(self) -> None:
        """Start the child and wait for its `listening <url>` line.

        Raises:
            RuntimeError: the child exited or printed nothing within the start-up timeout.
        """
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench_runner.fake_model",
            *self._args,
            stdout=asyncio.subprocess.PIPE,
        )
        self._process = process
        assert process.stdout is not None
        try:
            line = await asyncio.wait_for(process.stdout.readline(), STARTUP_TIMEOUT_S)
        except TimeoutError:
            line = b""
        text = line.decode().strip()
        if not text.startswith("listening "):
            await self.close()
            raise RuntimeError(f"fake model server did not start (said {text!r})")
        self.base_url = text.removeprefix("listening ")

    async def close(self) -> None:
        """Stop the child (SIGTERM, then SIGKILL after 5 s)."""
        process, self._process = self._process, None
        if process is None or process.returncode is not None:
            return
        process.terminate()
        try:
            await asyncio.wait_for(process.wait(), 5)
        except TimeoutError:
            process.kill()
            await process.wait()

    async def __aenter__(self) -> FakeModelProcess:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
