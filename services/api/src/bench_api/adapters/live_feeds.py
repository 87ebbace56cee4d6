"""The live topics' feeds, read from JetStream with ordered consumers (NATS 2.9 features only).

- all runs: one consumer on `bench.runs.>` from the end of BENCH_EVENTS when the topic
  opens; each message is folded into the run's tally (`live.tally`) and becomes a `run` frame.
- one run: `bench.runs.<run>.>` on BENCH_EVENTS and `bench.live.<run>.>` on BENCH_LIVE, both
  from the start, so the topic's log holds the run's whole history for every later client.

Every replica reads the streams itself: any api replica can serve any run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable

from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import ConsumerConfig, DeliverPolicy
from nats.js.errors import NotFoundError

from bench_api.live.cursor import Cursor
from bench_api.live.fanout import MAX_LOG_BYTES, Topic
from bench_api.live.frames import Frame, control
from bench_api.live.hub import ALL_RUNS, Feed
from bench_api.live.tally import HistoryLoader, TallyBook
from bench_api.live.wire import run_frame
from bench_common.envelope import (
    STREAM_EVENTS,
    STREAM_LIVE,
    check_token,
    run_filter,
    stream_subjects,
    subject_for,
)
from bench_common.events import RunRequested

READ_TIMEOUT_S = 5.0
BATCH = 1000
"""At most this many messages are turned into frames before the clients are woken."""


class OrderedReader:
    """An ordered push consumer read through a callback into a queue of our own.

    Why not `next_msg`: nats-py answers the server's flow-control requests of a subscription
    without a callback from a task that polls every 250 ms, so a burst of messages (64
    evaluations finishing at once) stalls the consumer for up to a quarter of a second. With
    a callback it answers at once. The queue is unbounded: a topic's feed drains it as fast
    as messages come, and a bounded read holds one run's history at most.
    """

    def __init__(self) -> None:
        self._queue: asyncio.Queue[Msg] = asyncio.Queue()
        self._sub: JetStreamContext.PushSubscription | None = None

    async def open(self, js: JetStreamContext, stream: str, subject: str, start: int) -> None:
        """Deliver `subject` of `stream` from sequence `start` (1 = everything)."""
        config = ConsumerConfig(deliver_policy=DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=start)
        if start <= 1:
            config = ConsumerConfig(deliver_policy=DeliverPolicy.ALL)
        self._sub = await js.subscribe(
            subject, stream=stream, ordered_consumer=True, config=config, cb=self._on_message
        )

    async def _on_message(self, msg: Msg) -> None:
        self._queue.put_nowait(msg)

    async def next(self, timeout: float) -> Msg:
        """The next message (raises TimeoutError after `timeout` seconds without one)."""
        if not self._queue.empty():
            return self._queue.get_nowait()  # a burst: no timer, no task per message
        return await asyncio.wait_for(self._queue.get(), timeout)

    async def batch(self, timeout: float, limit: int = BATCH) -> list[Msg]:
        """The next message and whatever else has arrived (up to `limit`); [] on timeout."""
        try:
            found = [await self.next(timeout)]
        except TimeoutError:
            return []
        while len(found) < limit and not self._queue.empty():
            found.append(self._queue.get_nowait())
        return found

    async def empty(self) -> bool:
        """True when the consumer matched no message at all so far (`num_pending` alone is
        not enough: the server may already have sent every match)."""
        assert self._sub is not None
        info = await self._sub.consumer_info()
        delivered = info.delivered.consumer_seq if info.delivered is not None else 0
        return not (info.num_pending or 0) and not (delivered or 0) and self._queue.empty()

    async def close(self) -> None:
        """Delete the consumer."""
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()
            self._sub = None


async def read_range(
    js: JetStreamContext, stream: str, subject: str, after: int, upto: int | None
) -> AsyncIterator[Msg]:
    """Messages of `subject` in `stream` with `after < seq <= upto` (None: up to the end now)."""
    reader = OrderedReader()
    await reader.open(js, stream, subject, after + 1)
    try:
        if await reader.empty():
            return
        while True:
            msg = await reader.next(READ_TIMEOUT_S)
            if upto is not None and msg.metadata.sequence.stream > upto:
                return
            yield msg
            if msg.metadata.num_pending == 0:
                return
    finally:
        await reader.close()


def history_loader(js: JetStreamContext) -> HistoryLoader:
    """`HistoryLoader` over BENCH_EVENTS: one run's messages before a sequence."""

    async def load(run_id: str, before: int) -> AsyncIterator[tuple[int, str, bytes]]:
        async for msg in read_range(js, STREAM_EVENTS, run_filter(run_id), 0, before - 1):
            yield msg.metadata.sequence.stream, msg.subject, msg.data

    return load


class AllRunsFeed:
    """Every run's list-visible changes, as `run` frames with the run's whole live state."""

    def __init__(self, js: JetStreamContext, *, start: int) -> None:
        self._js = js
        self._start = start
        self.book = TallyBook(loader=history_loader(js))

    async def run(self, topic: Topic) -> None:
        """Fold BENCH_EVENTS from `start` into the topic until cancelled."""
        reader = OrderedReader()
        await reader.open(self._js, STREAM_EVENTS, stream_subjects(STREAM_EVENTS)[0], self._start)
        topic.mark_caught_up()
        try:
            while True:
                frames: list[Frame] = []
                msgs = await reader.batch(60)
                for msg in msgs:
                    item = await self.book.fold(msg.metadata.sequence.stream, msg.subject, msg.data)
                    if item is not None:
                        frames.append(item)
                topic.publish_many(frames)
                if msgs:  # messages that changed nothing still move the position
                    topic.advance(STREAM_EVENTS, msgs[-1].metadata.sequence.stream)
        finally:
            await reader.close()

    async def replay(self, stream: str, after: int, upto: int) -> AsyncIterator[Frame]:
        """The frames of `after < seq <= upto`, folded by a tally book of their own."""
        book = TallyBook(loader=history_loader(self._js))
        async for msg in read_range(
            self._js, STREAM_EVENTS, stream_subjects(stream)[0], after, upto
        ):
            item = await book.fold(msg.metadata.sequence.stream, msg.subject, msg.data)
            if item is not None:
                yield item


class RunFeed:
    """One run's events (BENCH_EVENTS) and streaming deltas (BENCH_LIVE), merged."""

    def __init__(self, js: JetStreamContext, run_id: str) -> None:
        self._js = js
        self._run_id = run_id
        self._subjects = {
            STREAM_EVENTS: run_filter(run_id, STREAM_EVENTS),
            STREAM_LIVE: run_filter(run_id, STREAM_LIVE),
        }

    async def _follow(self, topic: Topic, stream: str, caught_up: asyncio.Event) -> None:
        reader = OrderedReader()
        await reader.open(self._js, stream, self._subjects[stream], 1)
        try:
            if await reader.empty():
                caught_up.set()
            while True:
                msgs = await reader.batch(60)
                topic.publish_many(
                    [run_frame(stream, m.metadata.sequence.stream, m.subject, m.data) for m in msgs]
                )
                if any(m.metadata.num_pending == 0 for m in msgs):
                    caught_up.set()
        finally:
            await reader.close()

    async def run(self, topic: Topic) -> None:
        """Follow both streams from their start until cancelled; `ready` once both caught up."""
        flags = {stream: asyncio.Event() for stream in self._subjects}
        tasks = [
            asyncio.create_task(self._follow(topic, stream, flag)) for stream, flag in flags.items()
        ]

        async def announce() -> None:
            for flag in flags.values():
                await flag.wait()
            topic.mark_caught_up()

        tasks.append(asyncio.create_task(announce()))
        try:
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in done:
                task.result()  # re-raise a follower's failure
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def replay(self, stream: str, after: int, upto: int) -> AsyncIterator[Frame]:
        """The frames of `after < seq <= upto` of one of the two streams."""
        async for msg in read_range(self._js, stream, self._subjects[stream], after, upto):
            yield run_frame(stream, msg.metadata.sequence.stream, msg.subject, msg.data)


class NatsFeeds:
    """Opens topics for the hub (`FeedOpener`) and answers whether a run exists.

    Args:
        max_log_bytes: how much of each topic's recent frames stays in memory; clients whose
            cursor is older are served from the streams again.
    """

    def __init__(self, js: JetStreamContext, *, max_log_bytes: int = MAX_LOG_BYTES) -> None:
        self._js = js
        self._max_log_bytes = max_log_bytes

    async def __call__(self, key: Hashable) -> tuple[Topic, Feed]:
        """A topic with its floor and the feed that fills it."""
        if key == ALL_RUNS:
            info = await self._js.stream_info(STREAM_EVENTS)
            last = int(info.state.last_seq)
            ready = control("ready", {"topic": "runs"})
            topic = Topic(floor=Cursor(last), ready_frame=ready, max_log_bytes=self._max_log_bytes)
            return topic, AllRunsFeed(self._js, start=last + 1)
        assert isinstance(key, tuple) and len(key) == 2 and key[0] == "run"
        run_id = str(key[1])
        ready = control("ready", {"topic": "run", "runId": run_id})
        topic = Topic(floor=Cursor(0, 0), ready_frame=ready, max_log_bytes=self._max_log_bytes)
        return topic, RunFeed(self._js, run_id)

    async def run_exists(self, run_id: str) -> bool:
        """True when BENCH_EVENTS holds the run's `RunRequested`."""
        try:
            check_token(run_id, "run id")
        except ValueError:
            return False
        try:
            await self._js.get_last_msg(STREAM_EVENTS, subject_for(RunRequested, run_id))
        except NotFoundError:
            return False
        return True
