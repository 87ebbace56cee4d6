"""One open stream's queue of frames, and when its writer is woken to send them.

Writes are paced: a subscriber's writer is woken at most once per `write_interval_s` slot,
and the slots are one grid for the whole process (`loop.time() // interval`). Every
subscriber that already wrote in the current slot is woken by a timer at the start of the
next one, so all the clients of a burst are written in the same turn of the event loop: one
wake-up of the process per slot, rather than one per client at its own instant (on a busy
machine each wake-up can wait for a CPU). A frame waits at most one interval, less than a
per-client "one write per interval since the last" rule would make it wait.
"""

from __future__ import annotations

import asyncio
from collections import deque

from bench_api.live.frames import Frame

MAX_QUEUE_BYTES = 32 * 1024 * 1024


class Subscriber:
    """One open stream's queue of frames not yet written.

    Args:
        max_bytes: past this many queued bytes the subscriber is closed (its client reads
            too slowly; it resumes later with its `Last-Event-ID`).
        write_interval_s: at most one wake-up of the writer per slot this long; 0 wakes it
            at once on every frame (and needs no event loop to queue frames).
    """

    def __init__(self, *, max_bytes: int = MAX_QUEUE_BYTES, write_interval_s: float = 0.0) -> None:
        self._frames: deque[Frame] = deque()
        self._bytes = 0
        self._max_bytes = max_bytes
        self._interval = write_interval_s
        self._wake = asyncio.Event()
        self._timer: asyncio.TimerHandle | None = None
        self._written_slot = -1.0
        self.closed: str | None = None
        """Why the topic stopped feeding this subscriber (None while it is fed)."""

    def push(self, item: Frame) -> None:
        """Queue a frame; past the byte limit, close instead (the client resumes later)."""
        self.extend([item], item.size)

    def extend(self, items: list[Frame], size: int) -> None:
        """Queue frames (`size` bytes in all) with at most one wake-up."""
        if self.closed is not None:
            return
        self._frames.extend(items)
        self._bytes += size
        if self._bytes > self._max_bytes:
            self.close("this client read too slowly; reconnect with Last-Event-ID")
            return
        self._signal()

    def _signal(self) -> None:
        if self._wake.is_set() or self._timer is not None:
            return  # the writer is awake already, or will be at the next slot
        if self._interval <= 0:
            self._wake.set()
            return
        loop = asyncio.get_running_loop()
        slot = loop.time() // self._interval
        if slot > self._written_slot:
            self._wake.set()
        else:
            self._timer = loop.call_at((slot + 1) * self._interval, self._on_slot)

    def _on_slot(self) -> None:
        self._timer = None
        self._wake.set()

    def close(self, reason: str) -> None:
        """Stop feeding; the reader sees `closed` once its queue is drained."""
        if self.closed is None:
            self.closed = reason
            self._frames.clear()
            self._bytes = 0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._wake.set()

    def take(self) -> list[Frame]:
        """Every queued frame (possibly none), oldest first; the writer sends them now."""
        frames = list(self._frames)
        self._frames.clear()
        self._bytes = 0
        self._wake.clear()
        if frames and self._interval > 0:
            self._written_slot = asyncio.get_running_loop().time() // self._interval
        return frames

    async def wait(self, timeout: float) -> list[Frame]:
        """The queued frames once the writer may send them, waiting up to `timeout` seconds
        for that; [] after the timeout."""
        if not self._wake.is_set():
            # `asyncio.timeout`, not `wait_for`: on Python 3.11 `wait_for` starts a task per
            # call, and this runs once per write of every client.
            try:
                async with asyncio.timeout(timeout):
                    await self._wake.wait()
            except TimeoutError:
                return []
        return self.take()
