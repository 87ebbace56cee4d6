"""The archiver's ports on NATS JetStream (nats-py), and its two durable consumers.

`archiver` takes every `RunFinished` (deliver all: runs that finished while no archiver was up
are archived by the first one to start); `archiver-retry` takes `ArchiveRetryRequested`. Both
ack explicitly, redeliver without limit, and are shared by every archiver replica.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

import nats.errors
import structlog
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench_archiver.ports import E
from bench_common.bus import last_event, publish, run_history
from bench_common.claim_checks import BlobStore, JetStreamBlobs, with_full_records
from bench_common.envelope import STREAM_EVENTS, Event, any_run_subject
from bench_common.events import ArchiveRetryRequested, RunFinished

log = structlog.get_logger("bench_archiver")

FINISHED_CONSUMER = "archiver"
RETRY_CONSUMER = "archiver-retry"
CONSUMERS: dict[str, type[Event]] = {
    FINISHED_CONSUMER: RunFinished,
    RETRY_CONSUMER: ArchiveRetryRequested,
}


class JetStreamRunEvents:
    """`RunEvents` over BENCH_EVENTS."""

    def __init__(self, js: JetStreamContext, blobs: BlobStore | None = None) -> None:
        self._js = js
        self._blobs = blobs or JetStreamBlobs(js)

    async def history(self, run_id: str) -> list[Event]:
        """Every event of the run, oldest first (an ordered consumer over its subjects), each
        `SampleCompleted` with its whole record (claim checks fetched)."""
        events = [event async for _, event in run_history(self._js, run_id)]
        return await with_full_records(events, self._blobs)

    async def last(self, event_type: type[E], run_id: str) -> E | None:
        """The newest `event_type` of the run, or None."""
        return await last_event(self._js, event_type, run_id)


class JetStreamEventLog:
    """`EventLog` through `bench_common.bus.publish`, the one publish path."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def publish(self, event: Event) -> int:
        """Publish and wait for the stream's acknowledgement."""
        return await publish(self._js, event)


async def ensure_consumers(js: JetStreamContext, *, ack_wait_s: float) -> None:
    """Create (or update) the archiver's durable pull consumers. Idempotent."""
    for durable, event_type in CONSUMERS.items():
        await js.add_consumer(
            STREAM_EVENTS,
            ConsumerConfig(
                durable_name=durable,
                filter_subject=any_run_subject(event_type),
                deliver_policy=DeliverPolicy.ALL,
                ack_policy=AckPolicy.EXPLICIT,
                ack_wait=ack_wait_s,
                max_deliver=-1,
                max_ack_pending=-1,
            ),
        )


async def pull_messages(
    js: JetStreamContext,
    durable: str,
    handle: Callable[[Msg], Awaitable[None]],
    *,
    idle_timeout_s: float = 5.0,
) -> None:
    """Fetch one message at a time from a durable consumer and handle it, until cancelled.

    One message at a time per loop: an archive is long and the work is the upload, so several
    loops (workers) over the same consumer give the concurrency.
    """
    sub = await js.pull_subscribe_bind(durable=durable, stream=STREAM_EVENTS)
    try:
        while True:
            try:
                messages = await sub.fetch(1, timeout=idle_timeout_s)
            except TimeoutError:
                continue
            except nats.errors.Error as exc:  # reconnecting: try again shortly
                log.warning("fetch failed", consumer=durable, error=type(exc).__name__)
                await asyncio.sleep(1.0)
                continue
            for msg in messages:
                await handle(msg)
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()
