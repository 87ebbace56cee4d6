"""BENCH_EVENTS as the REST API reads and writes it: one run's events, published facts.

Reads use a short-lived ephemeral pull consumer filtered to one subject (one event type of one
run, or the whole run), without acks. The consumer's pending count, returned when it is
created, says exactly how many events to read, so a read never waits on an idle timeout and an
empty answer costs two round trips. Several event types are read by one consumer each and
merged in stream order. Messages are pulled batch by batch (`event_pull`); a read of
`WIRE_FROM` messages or more goes over a connection of its own (`nats_wire`), which costs
half as much per message as nats-py, unless the server's URL needs more than it speaks. A
claim-checked `SampleCompleted` comes back with its whole record (`bench_common.claim_checks`).
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
from collections.abc import AsyncGenerator, Callable, Sequence

import nats.errors
import structlog
from nats.aio.client import Client as NatsClient
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench_api.adapters.event_pull import MAX_WAITING, NatsPyLink, PullLink, Raw, pulled_batches
from bench_api.adapters.nats_wire import WireAddress, WireError, WireLink
from bench_api.errors import UnavailableError
from bench_api.gc_pause import collector_paused
from bench_common.bus import last_event, publish
from bench_common.claim_checks import BlobStore, JetStreamBlobs, with_full_records
from bench_common.envelope import STREAM_EVENTS, Event, decode_event, run_filter, subject_for
from bench_common.events import RunRequested, SampleCompleted

log = structlog.get_logger("bench_api.run_events")

WIRE_FROM = 1000
"""Reads of this many messages or more get a connection of their own (a few milliseconds to
open; saves about 6 µs per message)."""
INACTIVE_THRESHOLD_S = 30.0
"""A consumer left behind by a dropped request is removed by the server after this."""
NATS_ERRORS = (nats.errors.Error, TimeoutError, OSError)


def _unavailable(exc: Exception) -> UnavailableError:
    return UnavailableError(f"the event stream (NATS) is unavailable: {type(exc).__name__}")


def _decoded(raw: Sequence[Raw]) -> list[tuple[int, Event]]:
    with collector_paused():  # see gc_pause: thousands of events allocate a lot
        return [(seq, decode_event(subject, data)) for seq, subject, data in raw]


def _claim_checked(found: Sequence[tuple[int, Event]]) -> bool:
    """Whether some of `found` are claim-checked records (`bench_common.claim_checks`)."""
    return any(isinstance(e, SampleCompleted) and e.blobs for _, e in found)


class NatsRunEvents:
    """`RunEvents` over JetStream."""

    def __init__(
        self, nc: NatsClient, blobs: BlobStore | None = None, *, wire_from: int = WIRE_FROM
    ) -> None:
        self._nc = nc
        self._js = nc.jetstream()
        self._blobs = blobs or JetStreamBlobs(self._js)
        self._wire_from = wire_from
        self._wire_refused = False

    async def publish(self, event: Event) -> None:
        """Record a fact (through the one publish path)."""
        try:
            await publish(self._js, event)
        except NATS_ERRORS as exc:
            raise _unavailable(exc) from exc

    async def requested(self, run_id: str) -> RunRequested | None:
        """The run's `RunRequested`, or None when the stream has none."""
        try:
            return await last_event(self._js, RunRequested, run_id)
        except NATS_ERRORS as exc:
            raise _unavailable(exc) from exc

    async def read(
        self,
        run_id: str,
        types: Sequence[type[Event]] | None = None,
        *,
        after_seq: int = 0,
        limit: int | None = None,
    ) -> list[tuple[int, Event]]:
        """The run's events of `types` (every event when None) after `after_seq`, oldest
        first, at most `limit`."""
        found = _decoded(await self.read_raw(run_id, types, after_seq=after_seq, limit=limit))
        return await self._whole(found)

    async def fold_batches(
        self,
        run_id: str,
        event_type: type[Event],
        fold: Callable[[list[tuple[int, Event]]], None],
        *,
        after_seq: int = 0,
    ) -> None:
        """Hand the run's events of `event_type` after `after_seq` to `fold`, a batch at a
        time as they arrive (see `RunEvents.fold_batches`).

        Each batch is decoded and folded in one pause of the collector and released before
        it ends: a batch still alive when the collector comes back would be traversed and
        promoted, and promotions add up to full collections (about 40 ms for a report of
        10,000 evaluations)."""
        subject = subject_for(event_type, run_id)
        try:
            async with contextlib.aclosing(self._subject(subject, after_seq, None)) as raw:
                async for batch in raw:
                    with collector_paused():
                        found = [(seq, decode_event(s, data)) for seq, s, data in batch]
                        del batch
                        whole = not _claim_checked(found)
                        if whole:
                            fold(found)
                            del found
                    if not whole:  # records to fetch back first (rare)
                        found = await self._whole(found)
                        with collector_paused():
                            fold(found)
                            del found
        except NATS_ERRORS as exc:
            raise _unavailable(exc) from exc

    async def _whole(self, found: list[tuple[int, Event]]) -> list[tuple[int, Event]]:
        """`found` with every claim-checked record fetched back (nothing to do for most)."""
        if not _claim_checked(found):
            return found
        try:
            events = await with_full_records([e for _, e in found], self._blobs)
        except NATS_ERRORS as exc:
            raise _unavailable(exc) from exc
        return [(seq, event) for (seq, _), event in zip(found, events, strict=True)]

    async def read_raw(
        self,
        run_id: str,
        types: Sequence[type[Event]] | None = None,
        *,
        after_seq: int = 0,
        limit: int | None = None,
    ) -> list[Raw]:
        """As `read`, undecoded (for callers that decode only part of each body)."""
        subjects = (
            [run_filter(run_id)] if types is None else [subject_for(t, run_id) for t in types]
        )
        try:
            parts = await asyncio.gather(*(self._read(s, after_seq, limit) for s in subjects))
        except NATS_ERRORS as exc:
            raise _unavailable(exc) from exc
        merged = list(heapq.merge(*parts, key=lambda item: item[0]))
        return merged if limit is None else merged[:limit]

    async def _read(self, subject: str, after_seq: int, limit: int | None) -> list[Raw]:
        found: list[Raw] = []
        async with contextlib.aclosing(self._subject(subject, after_seq, limit)) as raw:
            async for batch in raw:
                found += batch
        return found

    async def _subject(
        self, subject: str, after_seq: int, limit: int | None
    ) -> AsyncGenerator[list[Raw], None]:
        """One subject's messages after `after_seq` (at most `limit`), batch by batch."""
        config = ConsumerConfig(
            ack_policy=AckPolicy.NONE,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if after_seq else DeliverPolicy.ALL,
            opt_start_seq=after_seq + 1 if after_seq else None,
            filter_subject=subject,
            inactive_threshold=INACTIVE_THRESHOLD_S,
            max_waiting=MAX_WAITING,
        )
        info = await self._js.add_consumer(STREAM_EVENTS, config)
        try:
            wanted = int(info.num_pending or 0)
            if limit is not None:
                wanted = min(wanted, limit)
            if wanted:
                link = await self._link(wanted)
                pulled = pulled_batches(
                    link, stream=STREAM_EVENTS, consumer=info.name, wanted=wanted
                )
                async with contextlib.aclosing(pulled) as batches:
                    async for batch in batches:
                        yield batch
        finally:
            with contextlib.suppress(nats.errors.Error, TimeoutError):
                # Not left for the inactivity sweep: a busy api would pile them up.
                await self._js.delete_consumer(STREAM_EVENTS, info.name)

    async def _link(self, wanted: int) -> PullLink:
        """The link to pull `wanted` messages over: a connection of its own for a large read,
        else (or when that connection fails) the api's nats-py connection."""
        address = self._wire_address()
        if wanted < self._wire_from or address is None or self._wire_refused:
            return NatsPyLink(self._nc)
        try:
            return await WireLink.open(address)
        except WireError as exc:  # the server wants what the link does not speak: not again
            self._wire_refused = True
            log.warning("run_events.wire_refused", error=str(exc), fallback="nats-py")
        except (OSError, TimeoutError) as exc:
            log.warning("run_events.wire_failed", error=f"{type(exc).__name__}: {exc}")
        return NatsPyLink(self._nc)

    def _wire_address(self) -> WireAddress | None:
        """The server the api's connection is on, if a `WireLink` can speak to it."""
        return WireAddress.of(self._nc.connected_url)
