"""The SSE wire format. A frame's body (event name and JSON data) is encoded once and shared by
every client; only the `id:` line, the client's own cursor, is written per client."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from bench_api.live.cursor import Cursor

RETRY_MS = 2000
PREAMBLE = f"retry: {RETRY_MS}\n\n".encode()
"""Sent first: how long a client waits before reconnecting (our fetch client honours it)."""
KEEPALIVE = b": keepalive\n\n"
"""A comment line sent when nothing happened for a while, so proxies keep the stream open."""
CONTROL = ""
"""`Frame.stream` of frames that belong to no stream position (e.g. `ready`)."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One event for the clients of a topic.

    Attributes:
        stream: the stream whose message `seq` produced it, or CONTROL.
        seq: that message's stream sequence (0 for control frames).
        body: `event: <name>` and `data: <json>` lines, encoded once.
        before: the topic's position just before this frame (set when published).
        after: the topic's position with this frame.
        wire: the frame with `after` as its id: what every client that was at `before`
            receives, encoded once for all of them.
    """

    stream: str
    seq: int
    body: bytes
    before: Cursor | None = None
    after: Cursor | None = None
    wire: bytes | None = None

    @property
    def size(self) -> int:
        """Bytes this frame holds in memory (roughly)."""
        return len(self.body) + (len(self.wire) if self.wire is not None else 0) + 96


def dumps(data: Any) -> str:
    """Compact JSON on one line (JSON escapes every newline inside strings)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, default=str)


def event_body(event: str, data: Any) -> bytes:
    """The shared part of a frame."""
    return f"event: {event}\ndata: {dumps(data)}\n\n".encode()


def frame(stream: str, seq: int, event: str, data: Any) -> Frame:
    """A frame for the message `seq` of `stream`."""
    return Frame(stream, seq, event_body(event, data))


def control(event: str, data: Any) -> Frame:
    """A frame that carries no stream position (its id is the client's current cursor)."""
    return Frame(CONTROL, 0, event_body(event, data))


def with_id(body: bytes, cursor: Cursor) -> bytes:
    """The frame as one client receives it: its cursor as the id, then the shared body."""
    return b"id: " + cursor.encode().encode() + b"\n" + body
