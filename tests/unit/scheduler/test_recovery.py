"""After a replay: re-queue lost work items, reject interrupted admissions, shred stray keys."""

from __future__ import annotations

from bench_common.events import RunCounts, RunFinished, RunRequested, SealedSecret
from bench_scheduler.dispatch import dispatch_event, take_dispatches
from bench_scheduler.recovery import INTERRUPTED_ADMISSION, plan_recovery
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import admitted_run, completed, config


def _sealed(key_id: str) -> dict[str, SealedSecret]:
    return {"api_key": SealedSecret(key_id=key_id, nonce="bm9uY2U=", ciphertext="eA==")}


def test_outstanding_items_missing_from_the_work_queue_are_requeued_unchanged() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=4, epochs=1, concurrency=3)
    items = take_dispatches(state.runs["r1"])
    for item in items:
        state.apply(item)
    state.apply(completed(items[0]))
    plan = plan_recovery(state, queued_event_ids={items[1].event_id}, stored_key_ids=[])
    assert plan.requeue == [items[2]]  # same event, so the same Nats-Msg-Id


def test_stopping_runs_are_not_requeued() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=2)
    state.apply(dispatch_event("r1", ("q0", 0), 0))
    state.runs["r1"].cancel_requested = True
    assert plan_recovery(state, queued_event_ids=set(), stored_key_ids=[]).requeue == []


def test_admissions_interrupted_before_the_reply_are_rejected() -> None:
    state = SchedulerState()
    state.apply(RunRequested(run_id="half", config=config()))
    admitted_run(state, "whole")
    plan = plan_recovery(state, queued_event_ids=set(), stored_key_ids=[])
    assert [(r.run_id, r.reason) for r in plan.reject] == [("half", INTERRUPTED_ADMISSION)]


def test_keys_of_runs_that_are_not_active_are_shredded() -> None:
    state = SchedulerState()
    state.apply(RunRequested(run_id="live", config=config(), credentials=_sealed("k-live")))
    admitted_run(state, "live")
    state.apply(RunRequested(run_id="done", config=config(), credentials=_sealed("k-done")))
    admitted_run(state, "done")
    state.apply(RunFinished(run_id="done", status="succeeded", counts=RunCounts()))
    plan = plan_recovery(
        state, queued_event_ids=set(), stored_key_ids=["k-live", "k-done", "k-orphan"]
    )
    assert plan.shred == ["k-done", "k-orphan"]
