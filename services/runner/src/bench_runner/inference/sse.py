"""Incremental Server-Sent Events framing: bytes in, `data:` payloads out.

This is the client's hot path (one call per network read of every streamed response), so it
works on bytes, splits on blank lines with `bytes.split`, and takes a fast path for the common
single-line `data: {...}` event. Payloads stay bytes because `json.loads` accepts them.
"""

from __future__ import annotations

DONE = b"[DONE]"

_EVENT_END = b"\n\n"


class SseDecoder:
    """Turns a stream of byte chunks into the `data` payloads of complete SSE events.

    Comment lines (`: OPENROUTER PROCESSING`), `event:`/`id:`/`retry:` fields and events
    without data are dropped; several `data:` lines of one event are joined with a newline
    (as the SSE specification says). CRLF and lone CR line endings are normalised to LF.
    """

    __slots__ = ("_buffer",)

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        """Add a chunk; return the payloads of the events it completed, in order."""
        buffer = self._buffer + chunk if self._buffer else chunk
        if b"\r" in buffer:
            # Hold back a trailing CR: its LF may arrive in the next chunk, and normalising
            # the pair separately would invent a blank line (an event boundary).
            held = b"\r" if buffer.endswith(b"\r") else b""
            if held:
                buffer = buffer[:-1]
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n") + held
        if _EVENT_END not in buffer:
            self._buffer = buffer
            return []
        events = buffer.split(_EVENT_END)
        self._buffer = events.pop()
        payloads: list[bytes] = []
        for event in events:
            if event.startswith(b"data:") and b"\n" not in event:
                data = event[5:]
                payloads.append(data[1:] if data.startswith(b" ") else data)
            elif event:
                joined = _event_data(event)
                if joined is not None:
                    payloads.append(joined)
        return payloads

    def finish(self) -> list[bytes]:
        """The payload of a final event that had no trailing blank line, if any."""
        rest, self._buffer = self._buffer.replace(b"\r", b""), b""
        rest = rest.strip(b"\n")
        if not rest:
            return []
        joined = _event_data(rest)
        return [] if joined is None else [joined]


def _event_data(event: bytes) -> bytes | None:
    """Join the `data:` lines of one event; None when it has none (comments, other fields)."""
    lines: list[bytes] = []
    for line in event.split(b"\n"):
        if line.startswith(b"data:"):
            value = line[5:]
            lines.append(value[1:] if value.startswith(b" ") else value)
    if not lines:
        return None
    return b"\n".join(lines)


def looks_like_sse(head: bytes) -> bool:
    """Whether the first bytes of a body are SSE rather than a plain JSON document.

    A body whose first non-blank byte opens a JSON object or array is JSON whatever its
    content type says; anything else is read as an event stream.
    """
    stripped = head.lstrip()
    return not stripped.startswith((b"{", b"["))
