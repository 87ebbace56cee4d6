"""Final status: cancelled at once, failed with the runner's reason, or decided by the rule."""

from __future__ import annotations

from bench_common.envelope import deterministic_event_id
from bench_common.evaluation import ScoreValue
from bench_common.events import RunAbortRequested, RunCancelRequested, RunStarted
from bench_scheduler.dispatch import dispatch_event
from bench_scheduler.finishing import decide_finish
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import admitted_run, completed


def _scored(scores: list[ScoreValue], *, epochs: int = 1) -> SchedulerState:
    state = SchedulerState()
    admitted_run(state, "r1", samples=len(scores) // epochs, epochs=epochs)
    for position, score in enumerate(scores):
        item = dispatch_event("r1", state.runs["r1"].item_at(position), position // epochs)
        state.apply(item)
        state.apply(completed(item, score))
    return state


def test_runs_in_progress_are_not_finished() -> None:
    state = _scored(["C", "I"])
    state.apply(RunStarted(run_id="r2", expected_samples=1, total_evaluations=1))
    admitted_run(state, "r3", samples=3)
    assert decide_finish(state.runs["r3"]) is None


def test_all_scored_succeeds_with_counts_and_accuracy() -> None:
    state = _scored(["C", "I", "C", "S"], epochs=2)  # q0: C,I  q1: C,S
    finished = decide_finish(state.runs["r1"])
    assert finished is not None
    assert finished.status == "succeeded"
    assert finished.failure_reason is None
    assert finished.counts.model_dump() == {"total": 4, "completed": 3, "skipped": 1, "correct": 2}
    assert finished.accuracy == 0.75  # mean of q0 (0.5) and q1 (1.0)
    assert finished.event_id == deterministic_event_id("r1", "finished")


def test_more_skipped_than_completed_fails_with_a_reason() -> None:
    finished = decide_finish(_scored(["S", "S", "C"]).runs["r1"])
    assert finished is not None
    assert finished.status == "failed"
    assert finished.failure_reason is not None
    assert "skipped" in finished.failure_reason


def test_cancel_finishes_at_once() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=5)
    state.apply(RunCancelRequested(run_id="r1"))
    finished = decide_finish(state.runs["r1"])
    assert finished is not None
    assert finished.status == "cancelled"


def test_abort_fails_with_the_runners_reason() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")  # even before the plan: the dataset could not be loaded
    state.apply(RunAbortRequested(run_id="r1", reason="dataset gpqa_diamond unavailable"))
    finished = decide_finish(state.runs["r1"])
    assert finished is not None
    assert finished.status == "failed"
    assert finished.failure_reason == "dataset gpqa_diamond unavailable"


def test_a_plan_without_samples_fails_with_a_reason() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    state.apply(RunStarted(run_id="r1", expected_samples=0, total_evaluations=0))
    finished = decide_finish(state.runs["r1"])
    assert finished is not None
    assert finished.status == "failed"
    assert "without sample ids" in (finished.failure_reason or "")


def test_finished_or_unadmitted_runs_get_nothing() -> None:
    state = _scored(["C"])
    finished = decide_finish(state.runs["r1"])
    assert finished is not None
    state.apply(finished)
    assert decide_finish(state.runs["r1"]) is None
    state.apply(RunCancelRequested(run_id="never-admitted"))
    assert decide_finish(state.run("never-admitted")) is None
