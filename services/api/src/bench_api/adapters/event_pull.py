"""The messages of one JetStream pull consumer, batch by batch.

Pull requests are published here (two in flight: the next batch is on its way while one is
being processed) and the deliveries handed to a callback that gathers them into batches. Each
batch is yielded as soon as it is complete, so a caller can fold it while the next one
arrives. nats-py's `fetch()` is not used: it waits for each message with its own timer task,
three times the cost of a callback.

The requests and deliveries go over a `PullLink`: the api's nats-py connection
(`NatsPyLink`), or for large reads a connection of their own that speaks just what a pull
needs (`nats_wire.WireLink`), at half nats-py's cost per message.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable
from typing import Protocol

import nats.errors
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

BATCH = 500
IN_FLIGHT = 2
"""Pull requests asked for ahead of the batch being processed."""
MAX_WAITING = 2 * IN_FLIGHT
"""The consumer's limit on outstanding pull requests: above `IN_FLIGHT`, because the server
may still count a request whose last message was delivered when the next one arrives (it
then refuses it with 409)."""
TIMEOUT_S = 5.0
"""A pull that receives nothing for this long fails."""
JS_API_PREFIX = "$JS.API"
"""JetStream's API subjects (no domain): pull requests go to `<prefix>.CONSUMER.MSG.NEXT`."""
NO_MORE_STATUSES = frozenset({"404", "408"})
"""Pull statuses that mean "nothing more to deliver" (messages removed since counting)."""

Raw = tuple[int, str, bytes]
"""(stream sequence, subject, body) of one stored message."""
Ready = asyncio.Queue[list[Raw] | Exception | None]
"""Complete batches, then None (all read) or the exception that ended the pull."""
OnDelivery = Callable[[str, str, str | None, bytes], None]
"""Called with each delivery to the inbox: subject, reply subject, status and body. The
status is None for a message, a pull status for the server's answers ("404 No Messages",
"409 Consumer Deleted"), or what went wrong with the link ("the connection ... was closed")."""


class PullLink(Protocol):
    """A connection to send pull requests on and receive their deliveries."""

    async def listen(self, on_delivery: OnDelivery) -> str:
        """Subscribe `on_delivery` to a new inbox; the inbox."""
        ...

    async def send(self, subject: str, payload: bytes, reply: str) -> None:
        """Publish `payload` to `subject` with `reply` as its reply subject."""
        ...

    async def close(self) -> None:
        """Stop listening (and close a connection of the link's own)."""
        ...


class NatsPyLink:
    """A `PullLink` over the api's nats-py connection."""

    def __init__(self, nc: NatsClient) -> None:
        self._nc = nc
        self._sub: Subscription | None = None

    async def listen(self, on_delivery: OnDelivery) -> str:
        async def on_message(msg: Msg) -> None:
            status = None
            if not msg.data and msg.headers and "Status" in msg.headers:
                status = f"{msg.headers['Status']} {msg.headers.get('Description', '')}".strip()
            on_delivery(msg.subject, msg.reply, status, msg.data)

        inbox = self._nc.new_inbox()
        # No pending limits: `wanted` bounds what is buffered, and a dropped message would
        # leave the pull waiting for it.
        self._sub = await self._nc.subscribe(
            inbox, cb=on_message, pending_msgs_limit=0, pending_bytes_limit=0
        )
        return inbox

    async def send(self, subject: str, payload: bytes, reply: str) -> None:
        await self._nc.publish(subject, payload, reply=reply)

    async def close(self) -> None:
        if self._sub is not None:
            await self._sub.unsubscribe()


def stream_sequence(reply: str) -> int:
    """The stream sequence in a JetStream delivery's reply subject, v1
    (`$JS.ACK.<stream>.<consumer>.<delivered>.<sseq>...`, 9 tokens) or v2 (with domain and
    account hash before the stream). Parsed here rather than through `Msg.metadata`, which
    builds a timestamp and two objects per message."""
    tokens = reply.split(".")
    return int(tokens[5] if len(tokens) == 9 else tokens[7])


async def pulled_batches(
    link: PullLink, *, stream: str, consumer: str, wanted: int
) -> AsyncGenerator[list[Raw], None]:
    """The first `wanted` messages of `consumer` (created without acks, with at most
    `MAX_WAITING` pull requests), in stream order, in batches of up to `BATCH`.

    Raises:
        nats.errors.Error: the server refused a pull (the consumer is gone, ...).
        TimeoutError: nothing arrived for `TIMEOUT_S`.
    """
    ready: Ready = asyncio.Queue()
    current: list[Raw] = []
    received = asked = 0
    finished = False
    next_subject = f"{JS_API_PREFIX}.CONSUMER.MSG.NEXT.{stream}.{consumer}"

    def finish(outcome: Exception | None) -> None:
        nonlocal finished
        finished = True
        ready.put_nowait(current)
        ready.put_nowait(outcome)

    def on_delivery(subject: str, reply: str, status: str | None, data: bytes) -> None:
        nonlocal current, received
        if finished:
            return
        if status is not None:
            code = status.split(" ", 1)[0]
            refused = nats.errors.Error(f"pull failed: {status}")
            finish(None if code in NO_MORE_STATUSES else refused)
            return
        current.append((stream_sequence(reply), subject, data))
        received += 1
        if received >= wanted:
            finish(None)
        elif received % BATCH == 0:  # a batch is in: hand it over
            ready.put_nowait(current)
            current = []

    async def ask() -> None:
        nonlocal asked
        batch = min(BATCH, wanted - asked)
        if batch > 0 and not finished:
            asked += batch
            request = json.dumps({"batch": batch, "no_wait": True}).encode()
            await link.send(next_subject, request, inbox)

    inbox = await link.listen(on_delivery)
    try:
        for _ in range(IN_FLIGHT):
            await ask()
        while True:
            item = await _next(ready, lambda: received)
            if item is None:
                return
            if isinstance(item, Exception):
                raise item
            if item:
                await ask()  # the batch after next is on its way while this one is used
                yield item
    finally:
        await link.close()


async def _next(ready: Ready, progress: Callable[[], int]) -> list[Raw] | Exception | None:
    """The next item, waiting while messages keep coming (`progress()` counts them)."""
    while True:
        before = progress()
        try:
            return await asyncio.wait_for(ready.get(), TIMEOUT_S)
        except TimeoutError:
            if progress() == before:
                raise
