"""Stream positions carried in SSE event ids, so a reconnect resumes without gaps or repeats.

The all-runs stream reads one stream (BENCH_EVENTS): its id is the sequence of the last
message the client has been sent, e.g. `4812`. A run's stream merges BENCH_EVENTS with
BENCH_LIVE: its id carries both positions, `<events>-<live>`, e.g. `4812-977`. Positions only
grow; a frame at or below the client's position in its stream is one the client already has.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE

MAX_SEQUENCE = 2**63 - 1
_ONE = re.compile(r"^\d{1,19}$")
_TWO = re.compile(r"^(\d{1,19})-(\d{1,19})$")


class CursorError(ValueError):
    """A `Last-Event-ID` that no stream of this api produced."""


@dataclass(frozen=True, slots=True)
class Cursor:
    """The last sequence delivered from each stream (0 = nothing yet).

    Attributes:
        events: last BENCH_EVENTS sequence delivered.
        live: last BENCH_LIVE sequence delivered; None for streams that do not read it.
    """

    events: int = 0
    live: int | None = None

    def encode(self) -> str:
        """The SSE id: `events` or `events-live`."""
        return str(self.events) if self.live is None else f"{self.events}-{self.live}"

    def get(self, stream: str) -> int:
        """The position in `stream` (BENCH_EVENTS or BENCH_LIVE)."""
        if stream == STREAM_EVENTS:
            return self.events
        if stream == STREAM_LIVE and self.live is not None:
            return self.live
        raise KeyError(f"this cursor does not track {stream}")

    def covers(self, stream: str, seq: int) -> bool:
        """True when the message `seq` of `stream` was already delivered."""
        return seq <= self.get(stream)

    def advance(self, stream: str, seq: int) -> Cursor:
        """The cursor after delivering `seq` of `stream` (positions never move back)."""
        if stream == STREAM_EVENTS:
            return Cursor(max(self.events, seq), self.live)
        if stream == STREAM_LIVE and self.live is not None:
            return Cursor(self.events, max(self.live, seq))
        raise KeyError(f"this cursor does not track {stream}")

    def streams(self) -> tuple[str, ...]:
        """The streams this cursor tracks."""
        return (STREAM_EVENTS,) if self.live is None else (STREAM_EVENTS, STREAM_LIVE)


def decode_cursor(text: str, *, with_live: bool) -> Cursor:
    """Parse a `Last-Event-ID`.

    Args:
        text: the header value.
        with_live: True for a run's stream (`events-live`), False for the all-runs stream.

    Raises:
        CursorError: the value is not an id of that kind of stream.
    """
    value = text.strip()
    if with_live:
        match = _TWO.match(value)
        if match is None:
            raise CursorError("Last-Event-ID of a run's stream looks like 123-45")
        events, live = int(match.group(1)), int(match.group(2))
    else:
        if not _ONE.match(value):
            raise CursorError("Last-Event-ID of the runs stream is a whole number")
        events, live = int(value), None
    if events > MAX_SEQUENCE or (live is not None and live > MAX_SEQUENCE):
        raise CursorError("Last-Event-ID is out of range")
    return Cursor(events, live)
