"""A fake runner speaking the real protocol: plans admitted runs, evaluates their work items.

It does what docs/managed-protocol.md asks of runners, minus the engine: on `RunAdmitted` it
reads `RunRequested`, unseals the API key with the data key from BENCH_RUN_KEYS, publishes
`RunStarted` with made-up sample ids; its workers pull `SampleDispatched` items from
BENCH_WORK, hold each for `delay` seconds, publish `SampleCompleted` and ack. It measures how
many items of a run it held at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from dataclasses import dataclass, field

import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from bench_common.bus import KEYS_BUCKET, last_event, publish
from bench_common.envelope import STREAM_WORK, decode_event, deterministic_event_id, subject_for
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RunAdmitted,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from bench_common.secrets_box import unseal

ADMITTED_ANY_RUN = "bench.runs.*.run_admitted"


@dataclass
class FakeRunner:
    """Serves every run admitted while it is started (`samples` per run, unless the config
    says `limit`)."""

    nc: Client
    samples: int = 4
    delay: float = 0.02
    workers: int = 4
    held: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    max_held: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    completed: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    api_keys: dict[str, str] = field(default_factory=dict)
    credential_names: dict[str, list[str]] = field(default_factory=dict)
    _stopping: bool = False
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    _durables: list[tuple[str, str]] = field(default_factory=list)

    @property
    def js(self) -> JetStreamContext:
        return self.nc.jetstream()

    async def start(self) -> None:
        """Watch for admissions (call before anything is admitted)."""
        self._sub = await self.nc.subscribe(ADMITTED_ANY_RUN, cb=self._on_admitted)

    async def stop(self) -> None:
        """Stop workers and delete their consumers."""
        self._stopping = True
        await self._sub.unsubscribe()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for stream, durable in self._durables:
            with contextlib.suppress(Exception):
                await self.js.delete_consumer(stream, durable)

    async def _on_admitted(self, msg: Msg) -> None:
        admitted = decode_event(msg.subject, msg.data)
        assert isinstance(admitted, RunAdmitted)
        self._tasks.append(asyncio.create_task(self._serve(admitted.run_id)))

    async def _serve(self, run_id: str) -> None:
        requested = await last_event(self.js, RunRequested, run_id)
        assert requested is not None
        self.credential_names[run_id] = sorted(requested.credentials)
        sealed = requested.credentials.get("api_key")
        if sealed is not None:
            entry = await (await self.js.key_value(KEYS_BUCKET)).get(sealed.key_id)
            assert entry.value is not None
            self.api_keys[run_id] = unseal(sealed, key=entry.value, run_id=run_id)
        count = requested.config.limit or self.samples
        ids = [f"{run_id[:8]}-q{i}" for i in range(count)]
        await publish(
            self.js,
            RunStarted(
                event_id=deterministic_event_id(run_id, "started"),
                run_id=run_id,
                expected_samples=count,
                total_evaluations=count * requested.config.epochs,
                sample_ids=ids,
            ),
        )
        await self._work_on(run_id)

    def serve_work(self, run_id: str) -> None:
        """Evaluate the run's work items without planning it (it was planned already)."""
        self._tasks.append(asyncio.create_task(self._work_on(run_id)))

    async def _work_on(self, run_id: str) -> None:
        durable = f"fake-{run_id}"
        self._durables.append((STREAM_WORK, durable))
        sub = await self.js.pull_subscribe(
            subject_for(SampleDispatched, run_id, STREAM_WORK), durable=durable, stream=STREAM_WORK
        )
        await asyncio.gather(*(self._work(sub, run_id) for _ in range(self.workers)))

    async def _work(self, sub: JetStreamContext.PullSubscription, run_id: str) -> None:
        # A flag, not only cancellation: nats-py's fetch may turn a cancel into a timeout.
        while not self._stopping:
            try:
                (msg,) = await sub.fetch(1, timeout=0.5)
            except (nats.errors.Error, TimeoutError):
                await asyncio.sleep(0.05)  # nothing to do, or NATS is restarting
                continue
            item = SampleDispatched.model_validate_json(msg.data)
            self.held[run_id] += 1
            self.max_held[run_id] = max(self.max_held[run_id], self.held[run_id])
            try:
                await asyncio.sleep(self.delay)
                await _until_published(self.js, _completed(item))
                self.completed[run_id] += 1
            finally:
                self.held[run_id] -= 1
            with contextlib.suppress(nats.errors.Error):
                await msg.ack()  # a lost ack only means a redelivery, which is deduplicated


async def _until_published(js: JetStreamContext, event: SampleCompleted) -> None:
    for _ in range(300):
        try:
            await publish(js, event)
            return
        except (nats.errors.Error, TimeoutError):
            await asyncio.sleep(0.1)
    raise AssertionError(f"could not publish {event.name} for 30 s")


def _completed(item: SampleDispatched) -> SampleCompleted:
    score = "C" if (item.sample_index + item.epoch) % 3 else "I"
    record = EvaluationRecord(
        sample_id=item.sample_id,
        sample_index=item.sample_index,
        epoch=item.epoch,
        score=score,
        answer="A" if score == "C" else "B",
        target="A",
        explanation="fake",
    )
    return SampleCompleted(
        event_id=deterministic_event_id(item.run_id, item.sample_id, item.epoch, "completed"),
        run_id=item.run_id,
        record=record,
        runner_id="fake",
    )
