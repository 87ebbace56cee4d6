"""The hub (one topic per feed, closed when idle or failed) and a client's byte stream
(replay, backlog, ready, live frames, keepalives), over a fake feed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable

import pytest

from bench_api.live.cursor import Cursor
from bench_api.live.fanout import Topic
from bench_api.live.frames import KEEPALIVE, PREAMBLE, Frame, control, frame
from bench_api.live.hub import Feed, LiveHub, close_when
from bench_api.live.session import stream_topic
from bench_common.envelope import STREAM_EVENTS as E


class FakeFeed:
    """Publishes what the test puts in `incoming`; replays from `history`."""

    def __init__(self, history: list[Frame]) -> None:
        self.incoming: asyncio.Queue[Frame | Exception] = asyncio.Queue()
        self.history = history
        self.stopped = asyncio.Event()

    async def run(self, topic: Topic) -> None:
        topic.mark_caught_up()
        try:
            while True:
                item = await self.incoming.get()
                if isinstance(item, Exception):
                    raise item
                topic.publish(item)
        finally:
            self.stopped.set()

    async def replay(self, stream: str, after: int, upto: int) -> AsyncIterator[Frame]:
        for item in self.history:
            if item.stream == stream and after < item.seq <= upto:
                yield item


def f(seq: int) -> Frame:
    return frame(E, seq, "x", {"seq": seq})


class Feeds:
    def __init__(self, floor: int = 0, history: list[Frame] | None = None) -> None:
        self.opened: list[FakeFeed] = []
        self.floor = floor
        self.history = history or []

    async def __call__(self, key: Hashable) -> tuple[Topic, Feed]:
        feed = FakeFeed(self.history)
        self.opened.append(feed)
        return Topic(floor=Cursor(self.floor), ready_frame=control("ready", {})), feed


async def test_clients_share_one_topic_which_closes_when_idle() -> None:
    feeds = Feeds()
    hub = LiveHub(open_feed=feeds, idle_close_s=0.05)
    first = await hub.acquire("k")
    second = await hub.acquire("k")
    assert first.topic is second.topic and len(feeds.opened) == 1
    hub.release(first)
    hub.release(second)
    await asyncio.sleep(0.15)
    assert hub.stats() == {"topics": 0, "clients": 0}
    assert feeds.opened[0].stopped.is_set()
    third = await hub.acquire("k")  # a new client opens it again
    assert third.topic is not first.topic and len(feeds.opened) == 2
    await hub.close()


async def test_a_failing_feed_closes_its_topic_and_the_next_client_reopens_it() -> None:
    feeds = Feeds()
    hub = LiveHub(open_feed=feeds)
    handle = await hub.acquire("k")
    join = handle.topic.join(Cursor(0))
    await feeds.opened[0].incoming.put(RuntimeError("nats went away"))
    await asyncio.sleep(0.05)
    assert join.subscriber.closed is not None and "RuntimeError" in join.subscriber.closed
    again = await hub.acquire("k")
    assert again.topic is not handle.topic
    await hub.close()
    with pytest.raises(RuntimeError):
        await hub.acquire("k")


async def test_a_stream_replays_the_gap_then_the_log_then_ready_then_live() -> None:
    history = [f(1), f(2), f(3)]
    feeds = Feeds(floor=3, history=history)
    hub = LiveHub(open_feed=feeds)
    chunks: list[bytes] = []

    async def read() -> None:
        async for chunk in stream_topic(hub, "k", Cursor(1), keepalive_s=0.05):
            chunks.append(chunk)

    reader = asyncio.create_task(read())
    await asyncio.sleep(0.05)
    await feeds.opened[0].incoming.put(f(4))
    await asyncio.sleep(0.2)
    await hub.close()
    await asyncio.wait_for(reader, 1)
    text = b"".join(chunks)
    assert text.startswith(PREAMBLE)
    ids = [line for line in text.split(b"\n") if line.startswith(b"id: ")]
    assert ids == [b"id: 2", b"id: 3", b"id: 3", b"id: 4"]  # 2, 3 replayed; ready at 3; 4 live
    assert b"event: ready" in text and KEEPALIVE in text


async def test_close_when_closes_the_hub_once_the_server_stops() -> None:
    hub = LiveHub(open_feed=Feeds())
    stopping = False
    waiter = asyncio.create_task(close_when(hub, lambda: stopping, poll_s=0.01))
    await asyncio.sleep(0.03)
    assert not waiter.done()
    stopping = True
    await asyncio.wait_for(waiter, 1)
    with pytest.raises(RuntimeError):
        await hub.acquire("k")
