"""Fakes of the scheduler's ports and builders of the events a run goes through."""

from __future__ import annotations

from typing import TypeVar

from bench_common.envelope import STREAM_EVENTS, Event
from bench_common.evaluation import EvaluationRecord, ScoreValue
from bench_common.events import (
    RunAdmitted,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from bench_common.run_config import RunConfig
from bench_scheduler.state import SchedulerState

E = TypeVar("E", bound=Event)


class FakeEventLog:
    """Records what was published, per stream, in order."""

    def __init__(self) -> None:
        self.published: list[tuple[str, Event]] = []

    async def publish(self, event: Event, *, stream: str | None = None) -> int:
        self.published.append((stream or event.stream, event))
        return len(self.published)

    def on(self, stream: str, kind: type[E]) -> list[E]:
        """Events of one kind published to `stream`."""
        return [e for s, e in self.published if s == stream and isinstance(e, kind)]

    def records(self) -> list[Event]:
        """What BENCH_EVENTS would hold."""
        return self.on(STREAM_EVENTS, Event)


class FakeKeyStore:
    """Keys in a dict."""

    def __init__(self) -> None:
        self.keys: dict[str, bytes] = {}
        self.shredded: list[str] = []

    async def put(self, key_id: str, key: bytes) -> None:
        self.keys[key_id] = key

    async def shred(self, key_id: str) -> None:
        self.shredded.append(key_id)
        self.keys.pop(key_id, None)

    async def key_ids(self) -> list[str]:
        return sorted(self.keys)


def config(**overrides: object) -> RunConfig:
    """A GPQA run config (2 epochs, concurrency 3) unless overridden."""
    values: dict[str, object] = {
        "benchmark": "gpqa_diamond",
        "model": "fake",
        "epochs": 2,
        "concurrency": 3,
    }
    values.update(overrides)
    return RunConfig.model_validate(values)


def admitted_run(
    state: SchedulerState, run_id: str, *, samples: int = 0, **overrides: object
) -> None:
    """Fold RunRequested + RunAdmitted (+ RunStarted with `samples` ids when > 0)."""
    cfg = config(**overrides)
    state.apply(RunRequested(run_id=run_id, config=cfg))
    state.apply(RunAdmitted(run_id=run_id, active=1, max_active=8))
    if samples:
        state.apply(started(run_id, samples, cfg.epochs))


def started(run_id: str, samples: int, epochs: int) -> RunStarted:
    """RunStarted for samples q0..q<samples-1>."""
    ids = [f"q{i}" for i in range(samples)]
    return RunStarted(
        run_id=run_id,
        expected_samples=samples,
        total_evaluations=samples * epochs,
        sample_ids=ids,
    )


def completed(item: SampleDispatched, score: ScoreValue = "C") -> SampleCompleted:
    """The SampleCompleted a runner would publish for a dispatched item."""
    record = EvaluationRecord(
        sample_id=item.sample_id,
        sample_index=item.sample_index,
        epoch=item.epoch,
        score=score,
        answer="A",
    )
    return SampleCompleted(run_id=item.run_id, record=record, runner_id="fake")
