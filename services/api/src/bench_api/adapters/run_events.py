"""BENCH_EVENTS as the REST API reads and writes it: one run's events, published facts.

Reads use a short-lived ephemeral pull consumer filtered to one subject (one event type of one
run, or the whole run), without acks. The consumer's pending count, taken before the first
fetch, says exactly how many events to read, so a read never waits on an idle timeout and an
empty answer costs two round trips. Several event types are read by one consumer each and
merged in stream order.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
from collections.abc import Sequence

import nats.errors
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench_api.errors import UnavailableError
from bench_common.bus import last_event, publish
from bench_common.envelope import STREAM_EVENTS, Event, decode_event, run_filter, subject_for
from bench_common.events import RunRequested

FETCH_BATCH = 1000
FETCH_TIMEOUT_S = 5.0
INACTIVE_THRESHOLD_S = 30.0
"""A consumer left behind by a dropped request is removed by the server after this."""

Raw = tuple[int, str, bytes]
"""(stream sequence, subject, body) of one stored event."""


def _unavailable(exc: Exception) -> UnavailableError:
    return UnavailableError(f"the event stream (NATS) is unavailable: {type(exc).__name__}")


class NatsRunEvents:
    """`RunEvents` over JetStream."""

    def __init__(self, js: JetStreamContext) -> None:
        self._js = js

    async def publish(self, event: Event) -> None:
        """Record a fact (through the one publish path)."""
        try:
            await publish(self._js, event)
        except (nats.errors.Error, TimeoutError, OSError) as exc:
            raise _unavailable(exc) from exc

    async def requested(self, run_id: str) -> RunRequested | None:
        """The run's `RunRequested`, or None when the stream has none."""
        try:
            return await last_event(self._js, RunRequested, run_id)
        except (nats.errors.Error, TimeoutError, OSError) as exc:
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
        raw = await self.read_raw(run_id, types, after_seq=after_seq, limit=limit)
        return [(seq, decode_event(subject, data)) for seq, subject, data in raw]

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
            parts = await asyncio.gather(
                *(self._read_subject(s, after_seq=after_seq, limit=limit) for s in subjects)
            )
        except (nats.errors.Error, TimeoutError, OSError) as exc:
            raise _unavailable(exc) from exc
        merged = list(heapq.merge(*parts, key=lambda item: item[0]))
        return merged if limit is None else merged[:limit]

    async def _read_subject(self, subject: str, *, after_seq: int, limit: int | None) -> list[Raw]:
        config = ConsumerConfig(
            ack_policy=AckPolicy.NONE,
            deliver_policy=DeliverPolicy.BY_START_SEQUENCE if after_seq else DeliverPolicy.ALL,
            opt_start_seq=after_seq + 1 if after_seq else None,
            inactive_threshold=INACTIVE_THRESHOLD_S,
            max_waiting=1,
        )
        sub = await self._js.pull_subscribe(subject, stream=STREAM_EVENTS, config=config)
        info = await sub.consumer_info()
        try:
            wanted = int(info.num_pending or 0)
            if limit is not None:
                wanted = min(wanted, limit)
            found: list[Raw] = []
            while len(found) < wanted:
                batch = min(FETCH_BATCH, wanted - len(found))
                msgs = await sub.fetch(batch, timeout=FETCH_TIMEOUT_S)
                found += [(int(m.metadata.sequence.stream), m.subject, m.data) for m in msgs]
            return found
        finally:
            await sub.unsubscribe()
            with contextlib.suppress(nats.errors.Error, TimeoutError):
                # Not left for the inactivity sweep: a busy api would pile them up.
                await self._js.delete_consumer(STREAM_EVENTS, info.name)
