"""Planning: RunAdmitted -> RunStarted, once."""

from __future__ import annotations

from bench_common.envelope import deterministic_event_id
from bench_common.events import RunAdmitted, RunStarted
from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.planning import Planner
from bench_runner.worker.sessions import SessionCache
from tests.unit.worker.fakes import FakeEvents, FakePublisher, FakeSession, config, samples

ADMITTED = RunAdmitted(run_id="r1", active=1, max_active=8)


def planner(events: FakeEvents, over: RunOver | None = None) -> tuple[Planner, FakePublisher]:
    async def opener(run_id: str) -> OpenRun | RunOver:
        if over is not None:
            return over
        session = FakeSession(samples(4))
        return OpenRun(run_id, config(epochs=3), session, {s.id: s for s in session.samples})

    publisher = FakePublisher()
    return Planner(runs=SessionCache(opener=opener), events=events, publisher=publisher), publisher


async def test_publishes_run_started_with_samples_in_order() -> None:
    p, publisher = planner(FakeEvents())
    await p.on_run_admitted(ADMITTED)
    (started,) = publisher.of(RunStarted)
    assert started.sample_ids == ["s0", "s1", "s2", "s3"]
    assert (started.expected_samples, started.total_evaluations) == (4, 12)
    assert started.event_id == deterministic_event_id("r1", "started")


async def test_redelivered_admission_of_a_started_run_changes_nothing() -> None:
    previous = RunStarted(run_id="r1", expected_samples=1, total_evaluations=1)
    p, publisher = planner(FakeEvents(previous))
    await p.on_run_admitted(ADMITTED)
    assert publisher.events == []


async def test_runs_that_are_over_are_not_started() -> None:
    p, publisher = planner(FakeEvents(), over=RunOver("the run was cancelled"))
    await p.on_run_admitted(ADMITTED)
    assert publisher.events == []
