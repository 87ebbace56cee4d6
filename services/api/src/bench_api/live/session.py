"""One client's stream: replay what the topic's log no longer holds, the log past the
client's cursor, `ready`, then new frames as they come, with keepalives while idle."""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable, Iterable

from bench_api.live.cursor import Cursor
from bench_api.live.fanout import wire_bytes
from bench_api.live.frames import KEEPALIVE, PREAMBLE, Frame
from bench_api.live.hub import LiveHub

KEEPALIVE_S = 15.0
WRITE_INTERVAL_S = 0.05
"""Each client is written at most once per this many seconds (a frame waits at most this)."""
CHUNK_BYTES = 256 * 1024
REPLAY_BATCH = 500


def encode(frames: Iterable[Frame], cursor: Cursor) -> tuple[list[bytes], Cursor]:
    """The frames a client at `cursor` still needs, as byte chunks of about `CHUNK_BYTES`."""
    pieces, cursor = wire_bytes(frames, cursor)
    chunks: list[bytes] = []
    parts: list[bytes] = []
    size = 0
    for part in pieces:
        parts.append(part)
        size += len(part)
        if size >= CHUNK_BYTES:
            chunks.append(b"".join(parts))
            parts, size = [], 0
    if parts:
        chunks.append(b"".join(parts))
    return chunks, cursor


async def stream_topic(
    hub: LiveHub, key: Hashable, cursor: Cursor | None, *, keepalive_s: float = KEEPALIVE_S
) -> AsyncIterator[bytes]:
    """The bytes of one client's SSE stream, from `cursor` on, until the topic closes.

    `cursor` None starts at the topic's current position (what happens from now on).

    The topic's `ready` frame follows everything that existed when the client joined (for a
    topic still loading its history: once the topic has caught up).
    """
    handle = await hub.acquire(key)
    if cursor is None:
        cursor = handle.topic.position
    join = handle.topic.join(cursor, write_interval_s=WRITE_INTERVAL_S)
    try:
        yield PREAMBLE
        for stream, after, upto in join.replay:
            batch: list[Frame] = []
            async for item in handle.feed.replay(stream, after, upto):
                batch.append(item)
                if len(batch) >= REPLAY_BATCH:
                    chunks, cursor = encode(batch, cursor)
                    for chunk in chunks:
                        yield chunk
                    batch = []
            chunks, cursor = encode(batch, cursor)
            for chunk in chunks:
                yield chunk
        chunks, cursor = encode(join.backlog, cursor)
        for chunk in chunks:
            yield chunk
        if join.ready:
            chunks, cursor = encode([handle.topic.ready_frame], cursor)
            for chunk in chunks:
                yield chunk
        while True:
            # Woken at most once per WRITE_INTERVAL_S (see `Subscriber`): a burst goes out in
            # one chunk, and a client costs the server per write far more than per frame.
            frames = await join.subscriber.wait(keepalive_s)
            if frames:
                chunks, cursor = encode(frames, cursor)
                for chunk in chunks:
                    yield chunk
            elif join.subscriber.closed is not None:
                return
            else:
                yield KEEPALIVE
    finally:
        handle.topic.leave(join.subscriber)
        hub.release(handle)
