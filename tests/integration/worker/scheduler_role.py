"""The scheduler's part in worker tests (managed-protocol.md, "Admission" and "Dispatch").

Seals the API key under a data key it puts in `BENCH_RUN_KEYS`, publishes `RunRequested` and
`RunAdmitted`, dispatches (sample, epoch) items with `concurrency` credits once `RunStarted`
arrives, keeps the first `SampleCompleted` per item, and finishes the run.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from nats.js import JetStreamContext
from nats.js.errors import NotFoundError

from bench_common.bus import KEYS_BUCKET, publish
from bench_common.envelope import (
    STREAM_EVENTS,
    STREAM_WORK,
    Event,
    decode_event,
    deterministic_event_id,
    run_filter,
)
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RunAbortRequested,
    RunAdmitted,
    RunCancelRequested,
    RunCounts,
    RunFinished,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from bench_common.outcome import FinalStatus
from bench_common.run_config import RunConfig
from bench_common.secrets_box import new_data_key, new_key_id, seal

Key = tuple[str, int]
_FOLLOWED = frozenset(e.name for e in (RunStarted, SampleCompleted, RunAbortRequested, RunFinished))


@dataclass
class Tally:
    """What the scheduler saw of one run."""

    started: RunStarted | None = None
    results: dict[Key, EvaluationRecord] = field(default_factory=dict)
    completions_seen: int = 0
    dispatched: int = 0
    aborts: list[str] = field(default_factory=list)
    status: str | None = None


class SchedulerRole:
    """Admits, dispatches and finishes one run."""

    def __init__(self, js: JetStreamContext, *, run_id: str, config: RunConfig, api_key: str):
        self.js = js
        self.run_id = run_id
        self.config = config
        self._api_key = api_key
        self.key_id = new_key_id()
        self.tally = Tally()
        self._queue: list[tuple[str, int, int]] = []
        self._outstanding: set[Key] = set()

    async def submit(self) -> None:
        """Store the data key, then publish RunRequested (sealed key) and RunAdmitted."""
        key = new_data_key()
        await (await self.js.key_value(KEYS_BUCKET)).put(self.key_id, key)
        sealed = seal(self._api_key, key=key, key_id=self.key_id, run_id=self.run_id)
        await publish(
            self.js,
            RunRequested(run_id=self.run_id, config=self.config, credentials={"api_key": sealed}),
        )
        await publish(self.js, RunAdmitted(run_id=self.run_id, active=1, max_active=8))

    async def run(
        self,
        *,
        timeout: float = 30.0,
        on_result: Callable[[Tally], Awaitable[None]] | None = None,
    ) -> Tally:
        """Follow the run's events, dispatching with credits, until it finishes."""
        sub = await self.js.subscribe(
            run_filter(self.run_id), ordered_consumer=True, stream=STREAM_EVENTS
        )
        deadline = time.monotonic() + timeout
        try:
            while self.tally.status is None:
                msg = await sub.next_msg(timeout=max(0.01, deadline - time.monotonic()))
                if msg.subject.rsplit(".", 1)[-1] not in _FOLLOWED:
                    continue  # attempt events and our own dispatches: not the scheduler's
                event = decode_event(msg.subject, msg.data)
                if isinstance(event, RunStarted) and self.tally.started is None:
                    self.tally.started = event
                    self._queue = [
                        (sample_id, position, epoch)
                        for position, sample_id in enumerate(event.sample_ids)
                        for epoch in range(self.config.epochs)
                    ]
                    self._queue.reverse()
                    await self._dispatch()
                elif isinstance(event, SampleCompleted):
                    await self._completed(event)
                    if on_result is not None:
                        await on_result(self.tally)
                elif isinstance(event, RunAbortRequested):
                    self.tally.aborts.append(event.reason)
                    await self.finish("failed", event.reason)
                elif isinstance(event, RunFinished):
                    self.tally.status = event.status
        finally:
            await sub.unsubscribe()
        return self.tally

    async def cancel(self) -> None:
        """What the scheduler does on RunCancelRequested."""
        await publish(self.js, RunCancelRequested(run_id=self.run_id, reason="test"))
        await self.finish("cancelled", None)

    async def finish(self, status: FinalStatus, reason: str | None) -> None:
        """Publish RunFinished and shred the data key."""
        results = self.tally.results.values()
        counts = RunCounts(
            total=len(self._queue) + self.tally.dispatched,
            completed=sum(r.score != "S" for r in results),
            skipped=sum(r.score == "S" for r in results),
            correct=sum(r.score == "C" for r in results),
        )
        await publish(
            self.js,
            RunFinished(
                run_id=self.run_id,
                status=status,
                failure_reason=reason,
                counts=counts,
                event_id=deterministic_event_id(self.run_id, "finished"),
            ),
        )
        await (await self.js.key_value(KEYS_BUCKET)).purge(self.key_id)

    async def _completed(self, event: SampleCompleted) -> None:
        self.tally.completions_seen += 1
        key = (event.record.sample_id, event.record.epoch)
        if key in self.tally.results:
            return  # a redelivered item's copy: first wins
        self.tally.results[key] = event.record
        self._outstanding.discard(key)
        if not self._queue and not self._outstanding:
            await self.finish("succeeded", None)
        else:
            await self._dispatch()

    async def _dispatch(self) -> None:
        while self._queue and len(self._outstanding) < self.config.concurrency:
            sample_id, position, epoch = self._queue.pop()
            item = SampleDispatched(
                run_id=self.run_id,
                sample_id=sample_id,
                sample_index=position,
                epoch=epoch,
                event_id=deterministic_event_id(self.run_id, sample_id, epoch, "dispatched"),
            )
            self._outstanding.add((sample_id, epoch))
            self.tally.dispatched += 1
            await publish(self.js, item)
            await publish(self.js, item, stream=STREAM_WORK)


async def stored_messages(js: JetStreamContext, stream: str) -> list[tuple[str, bytes]]:
    """(subject, body) of every message stored in `stream` right now."""
    info = await js.stream_info(stream)
    found: list[tuple[str, bytes]] = []
    for seq in range(max(info.state.first_seq, 1), info.state.last_seq + 1):
        try:
            msg = await js.get_msg(stream, seq)
        except NotFoundError:  # deleted (acked work items) or aged out
            continue
        found.append((msg.subject or "", msg.data or b""))
    return found


async def run_events(js: JetStreamContext, stream: str, run_id: str) -> list[Event]:
    """The events of one run stored in `stream`, oldest first."""
    return [
        decode_event(subject, body)
        for subject, body in await stored_messages(js, stream)
        if subject.split(".")[2] == run_id
    ]
