"""How many messages a runner asks its pull consumer for (pure bookkeeping, no I/O).

The worker keeps at most `max_open` pull requests of `chunk` messages open, and never asks
for more than `capacity` minus what it holds. Small chunks and few open requests make several
runners' requests alternate in the server's FIFO of waiting requests (a runner asking for
everything up front would take every item while the others idle); a new request goes out
only when a whole chunk is free, so settling one item does not cost one request.

Each request lives `expires_s`; the server ends it with a 408 status, which `expired`
records, and a request whose status was lost is forgotten shortly after its expiry.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

EXPIRY_MARGIN_S = 2.0
"""How long after its expiry a request still counts as open when no 408 came for it."""


@dataclass
class _Request:
    deadline: float
    remaining: int


class PullCredits:
    """Open pull requests and in-flight messages of one consumer subscription."""

    def __init__(self, *, capacity: int, chunk: int, max_open: int, expires_s: float) -> None:
        if capacity < 1 or chunk < 1 or max_open < 1:
            raise ValueError("capacity, chunk and max_open must be at least 1")
        self.capacity = capacity
        self.chunk = min(chunk, capacity)
        self.max_open = max_open
        self.expires_s = expires_s
        self.in_flight = 0
        self._open: deque[_Request] = deque()

    @property
    def requested(self) -> int:
        """Messages asked for and not delivered yet."""
        return sum(r.remaining for r in self._open)

    @property
    def open_requests(self) -> int:
        """Pull requests still waiting on the server (as far as we know)."""
        return len(self._open)

    def delivered(self) -> None:
        """A message arrived: it fills the oldest open request (the server's order)."""
        self.in_flight += 1
        if self._open:
            self._open[0].remaining -= 1
            if self._open[0].remaining <= 0:
                self._open.popleft()

    def settled(self) -> None:
        """A message was acked, nak'd or terminated."""
        self.in_flight = max(0, self.in_flight - 1)

    def expired(self) -> None:
        """The server ended the oldest open request (408 Request Timeout)."""
        if self._open:
            self._open.popleft()

    def reset(self) -> None:
        """Forget every open request (reconnect, consumer reset)."""
        self._open.clear()

    def prune(self, now: float) -> int:
        """Forget requests past their expiry (and margin); return how many are still open."""
        while self._open and self._open[0].deadline < now:
            self._open.popleft()
        return len(self._open)

    def plan(self, now: float) -> list[int]:
        """Batch sizes of the pull requests to send now (each recorded as open)."""
        self.prune(now)
        free = self.capacity - self.in_flight - self.requested
        batches: list[int] = []
        while free >= self.chunk and len(self._open) + len(batches) < self.max_open:
            batches.append(self.chunk)
            free -= self.chunk
        if free > 0 and not batches and not self._open:
            batches.append(free)  # nothing pending: ask for the remainder rather than stall
        deadline = now + self.expires_s + EXPIRY_MARGIN_S
        self._open.extend(_Request(deadline, n) for n in batches)
        return batches
