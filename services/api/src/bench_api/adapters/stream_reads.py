"""Reading one subject of a JetStream stream, batch by batch, for the api's views.

A read uses a short-lived ephemeral pull consumer filtered to the subject, without acks. The
consumer's pending count, returned when it is created, says exactly how many messages to read,
so a read never waits on an idle timeout and an empty answer costs two round trips; the
consumer is deleted afterwards. Messages are pulled batch by batch (`event_pull`); a read of
`wire_from` messages or more goes over a connection of its own (`nats_wire`), which costs half
as much per message as nats-py, unless the server's URL needs more than it speaks.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Callable

import nats.errors
import structlog
from nats.aio.client import Client as NatsClient
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench_api.adapters.event_pull import MAX_WAITING, NatsPyLink, PullLink, Raw, pulled_batches
from bench_api.adapters.nats_wire import WireAddress, WireError, WireLink

log = structlog.get_logger("bench_api.stream_reads")

WIRE_FROM = 1000
"""Reads of this many messages or more get a connection of their own (a few milliseconds to
open; saves about 6 µs per message)."""
INACTIVE_THRESHOLD_S = 30.0
"""A consumer left behind by a dropped request is removed by the server after this."""
NATS_ERRORS = (nats.errors.Error, TimeoutError, OSError)
"""What a failed read or publish raises."""


class StreamReader:
    """Reads subjects of the streams the api's nats-py connection reaches."""

    def __init__(
        self,
        nc: NatsClient,
        *,
        wire_from: int = WIRE_FROM,
        address: Callable[[], WireAddress | None] | None = None,
    ) -> None:
        """`address`: where a read's own connection goes (default: the server `nc` is
        connected to, when a `WireLink` can speak to it)."""
        self._nc = nc
        self._js = nc.jetstream()
        self._wire_from = wire_from
        self._address = address or (lambda: WireAddress.of(nc.connected_url))
        self.wire_refused = False
        """The server refused a `WireLink` (it wants TLS, ...): reads use nats-py from then on."""

    async def batches(
        self, stream: str, subject: str, *, after_seq: int = 0, limit: int | None = None
    ) -> AsyncGenerator[list[Raw], None]:
        """`subject`'s messages after `after_seq` (at most `limit`), batch by batch.

        Raises:
            nats.errors.Error, TimeoutError, OSError: the read failed.
        """
        config = ConsumerConfig(
            ack_policy=AckPolicy.NONE,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if after_seq else DeliverPolicy.ALL,
            opt_start_seq=after_seq + 1 if after_seq else None,
            filter_subject=subject,
            inactive_threshold=INACTIVE_THRESHOLD_S,
            max_waiting=MAX_WAITING,
        )
        info = await self._js.add_consumer(stream, config)
        try:
            wanted = int(info.num_pending or 0)
            if limit is not None:
                wanted = min(wanted, limit)
            if wanted:
                link = await self._link(wanted)
                pulled = pulled_batches(link, stream=stream, consumer=info.name, wanted=wanted)
                async with contextlib.aclosing(pulled) as batches:
                    async for batch in batches:
                        yield batch
        finally:
            with contextlib.suppress(nats.errors.Error, TimeoutError):
                # Not left for the inactivity sweep: a busy api would pile them up.
                await self._js.delete_consumer(stream, info.name)

    async def _link(self, wanted: int) -> PullLink:
        """The link to pull `wanted` messages over: a connection of its own for a large read,
        else (or when that connection fails) the api's nats-py connection."""
        address = self._address()
        if wanted < self._wire_from or address is None or self.wire_refused:
            return NatsPyLink(self._nc)
        try:
            return await WireLink.open(address)
        except WireError as exc:  # the server wants what the link does not speak: not again
            self.wire_refused = True
            log.warning("stream_reads.wire_refused", error=str(exc), fallback="nats-py")
        except (OSError, TimeoutError) as exc:
            log.warning("stream_reads.wire_failed", error=f"{type(exc).__name__}: {exc}")
        return NatsPyLink(self._nc)
