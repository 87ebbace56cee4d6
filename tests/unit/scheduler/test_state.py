"""The fold of BENCH_EVENTS into per-run state."""

from __future__ import annotations

from bench_common.events import (
    RunAbortRequested,
    RunCancelRequested,
    RunCounts,
    RunDisabled,
    RunFinished,
    RunRejected,
    RunStarted,
    SampleDispatched,
)
from bench_scheduler.dispatch import dispatch_event
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import admitted_run, completed


def test_admitted_runs_are_active_until_finished() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2)
    assert [r.run_id for r in state.active_runs()] == ["r1"]
    state.apply(RunFinished(run_id="r1", status="succeeded", counts=RunCounts()))
    assert state.active_runs() == []
    assert state.is_finished("r1")


def test_plan_is_samples_times_epochs_in_sample_epoch_order() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2, epochs=3)
    run = state.runs["r1"]
    assert run.total == 6
    assert [run.item_at(p) for p in range(6)] == [
        ("q0", 0), ("q0", 1), ("q0", 2), ("q1", 0), ("q1", 1), ("q1", 2),
    ]  # fmt: skip


def test_applying_an_event_twice_changes_nothing() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2)
    item = dispatch_event("r1", ("q0", 0), 0)
    for _ in range(2):
        state.apply(item)
    run = state.runs["r1"]
    assert list(run.outstanding) == [("q0", 0)]
    assert run.cursor == 1
    for _ in range(2):
        state.apply(completed(item, "I"))
    assert run.outstanding == {}
    assert run.scores == {("q0", 0): "I"}


def test_first_score_wins() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=1)
    item = dispatch_event("r1", ("q0", 0), 0)
    state.apply(item)
    state.apply(completed(item, "C"))
    state.apply(completed(item, "S"))
    assert state.runs["r1"].scores[("q0", 0)] == "C"


def test_facts_outside_the_plan_are_ignored() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=1, epochs=1)
    stray = SampleDispatched(run_id="r1", sample_id="elsewhere", sample_index=9, epoch=0)
    state.apply(stray)
    state.apply(completed(stray))
    late_epoch = dispatch_event("r1", ("q0", 5), 0)
    state.apply(completed(late_epoch))
    run = state.runs["r1"]
    assert run.outstanding == {}
    assert run.scores == {}


def test_the_first_plan_wins() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2)
    state.apply(RunStarted(run_id="r1", expected_samples=1, total_evaluations=2, sample_ids=["x"]))
    assert state.runs["r1"].sample_ids == ("q0", "q1")


def test_finished_runs_drop_their_items_and_ignore_later_events() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2)
    item = dispatch_event("r1", ("q0", 0), 0)
    state.apply(item)
    state.apply(RunFinished(run_id="r1", status="cancelled", counts=RunCounts()))
    assert state.apply(completed(item)) is None
    assert state.apply(RunCancelRequested(run_id="r1")) is None
    run = state.runs["r1"]
    assert run.outstanding == {}
    assert run.scores == {}


def test_cancel_abort_and_reject_are_recorded() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    state.apply(RunCancelRequested(run_id="r1"))
    state.apply(RunAbortRequested(run_id="r1", reason="bad key"))
    state.apply(RunAbortRequested(run_id="r1", reason="later reason"))
    state.apply(RunRejected(run_id="r2", reason="cap"))
    assert state.runs["r1"].cancel_requested
    assert state.runs["r1"].abort_reason == "bad key"
    assert state.runs["r2"].rejected
    assert not state.runs["r2"].active


def test_events_the_scheduler_does_not_fold_are_ignored() -> None:
    state = SchedulerState()
    assert state.apply(RunDisabled(run_id="r8")) is None
    assert "r8" not in state.runs


def test_a_sample_listed_twice_is_planned_once() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", epochs=1)
    state.apply(
        RunStarted(run_id="r1", expected_samples=2, total_evaluations=2, sample_ids=["a", "a"])
    )
    assert state.runs["r1"].total == 1
