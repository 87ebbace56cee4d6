"""One topic per feed on this api replica: opened by the first client, shared by the rest,
closed a while after the last one left (a reload within that time is served from memory).

The hub knows nothing of NATS: `FeedOpener` (an adapter) builds a topic and the feed that
fills it, and can read a stream range again for clients older than the topic's log.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass, field
from typing import Protocol

import structlog

from bench_api.live.fanout import Topic
from bench_api.live.frames import Frame

log = structlog.get_logger("bench_api.live")

IDLE_CLOSE_S = 30.0
ALL_RUNS: Hashable = ("runs",)
"""Key of the all-runs topic."""


def run_key(run_id: str) -> Hashable:
    """Key of one run's topic."""
    return ("run", run_id)


class Feed(Protocol):
    """Fills one topic from the streams."""

    async def run(self, topic: Topic) -> None:
        """Publish frames into `topic` until cancelled (or fail, which closes the topic)."""
        ...

    def replay(self, stream: str, after: int, upto: int) -> AsyncIterator[Frame]:
        """The frames of messages `after < seq <= upto` of `stream`, in order."""
        ...


class FeedOpener(Protocol):
    """Builds the topic and feed of a key (the all-runs feed, or one run's)."""

    async def __call__(self, key: Hashable) -> tuple[Topic, Feed]:
        """A fresh topic (floor set) and its feed, not running yet."""
        ...


@dataclass
class _Entry:
    topic: Topic
    feed: Feed
    task: asyncio.Task[None]
    users: int = 0
    idle: asyncio.TimerHandle | None = field(default=None, repr=False)


@dataclass(frozen=True)
class Handle:
    """A client's hold on a topic; give it back with `LiveHub.release`."""

    key: Hashable
    topic: Topic
    feed: Feed


class LiveHub:
    """The topics of this replica."""

    def __init__(self, *, open_feed: FeedOpener, idle_close_s: float = IDLE_CLOSE_S) -> None:
        self._open_feed = open_feed
        self._idle_close_s = idle_close_s
        self._entries: dict[Hashable, _Entry] = {}
        self._locks: dict[Hashable, asyncio.Lock] = {}
        self._closed = False

    def stats(self) -> dict[str, int]:
        """Open topics and clients (for logs and benchmarks)."""
        return {
            "topics": len(self._entries),
            "clients": sum(e.topic.subscribers for e in self._entries.values()),
        }

    async def acquire(self, key: Hashable) -> Handle:
        """The topic of `key`, opened if needed.

        Raises:
            RuntimeError: the hub is closed (the server is stopping).
        """
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            if self._closed:
                raise RuntimeError("the live hub is closed")
            entry = self._entries.get(key)
            if entry is None or entry.topic.closed is not None:
                topic, feed = await self._open_feed(key)
                task = asyncio.create_task(self._run(key, topic, feed), name=f"live-feed-{key}")
                entry = self._entries[key] = _Entry(topic, feed, task)
            entry.users += 1
            if entry.idle is not None:
                entry.idle.cancel()
                entry.idle = None
            return Handle(key, entry.topic, entry.feed)

    def release(self, handle: Handle) -> None:
        """A client left; close the topic once nobody used it for `idle_close_s`."""
        entry = self._entries.get(handle.key)
        if entry is None or entry.topic is not handle.topic:
            return
        entry.users -= 1
        if entry.users <= 0 and entry.idle is None:
            loop = asyncio.get_running_loop()
            entry.idle = loop.call_later(self._idle_close_s, self._close_idle, handle.key)

    def _close_idle(self, key: Hashable) -> None:
        entry = self._entries.get(key)
        if entry is not None and entry.users <= 0:
            del self._entries[key]
            entry.task.cancel()
            entry.topic.close("idle")

    async def _run(self, key: Hashable, topic: Topic, feed: Feed) -> None:
        try:
            await feed.run(topic)
            topic.close("the feed ended")
        except asyncio.CancelledError:
            topic.close("the server is stopping")
            raise
        except Exception as exc:
            log.warning("live.feed_failed", key=str(key), error=f"{type(exc).__name__}: {exc}")
            topic.close(f"the live feed failed ({type(exc).__name__}); reconnect to resume")
        finally:
            if self._entries.get(key) is not None and self._entries[key].topic is topic:
                del self._entries[key]

    async def close(self) -> None:
        """End every stream and feed (server shutdown)."""
        self._closed = True
        entries = list(self._entries.values())
        self._entries.clear()
        for entry in entries:
            if entry.idle is not None:
                entry.idle.cancel()
            entry.topic.close("the server is stopping")
            entry.task.cancel()
        for entry in entries:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await entry.task


async def close_when(hub: LiveHub, stopping: Callable[[], bool], *, poll_s: float = 0.2) -> None:
    """Close `hub` once `stopping()` turns true (the server began to shut down).

    An SSE stream never ends by itself, and uvicorn waits for open connections before it
    stops: ending the streams first lets it stop at once (clients reconnect elsewhere).
    """
    while not stopping():  # noqa: ASYNC110 (uvicorn exposes a flag, not an event)
        await asyncio.sleep(poll_s)
    await hub.close()
