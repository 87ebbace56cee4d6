"""A small server-sent-events reader over httpx for tests and benchmarks (real sockets)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event."""

    event: str
    data: str
    id: str | None

    def json(self) -> Any:
        """The data parsed as JSON."""
        return json.loads(self.data)


async def read_events(response: httpx.Response) -> AsyncIterator[SseEvent]:
    """Parse a `text/event-stream` body as it arrives (comments and retry lines skipped)."""
    event, last_id = "", None
    data: list[str] = []
    async for line in response.aiter_lines():
        if line == "":
            if data:
                yield SseEvent(event or "message", "\n".join(data), last_id)
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            event = value
        elif field == "data":
            data.append(value)
        elif field == "id":
            last_id = value


def stream_headers(token: str, last_event_id: str | None = None) -> dict[str, str]:
    """Bearer token and, when resuming, `Last-Event-ID`."""
    headers = {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    return headers
