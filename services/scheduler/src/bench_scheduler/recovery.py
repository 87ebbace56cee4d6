"""What a scheduler does once it has replayed BENCH_EVENTS, before it serves anything.

The replayed state is exact, but the world around it may be behind: the previous scheduler may
have died between recording a `SampleDispatched` and queueing its work item, between
`RunRequested` and `RunAdmitted`, or between `RunFinished` and deleting the run's data key.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bench_common.envelope import deterministic_event_id
from bench_common.events import RunRejected, SampleDispatched
from bench_scheduler.state import SchedulerState

INTERRUPTED_ADMISSION = (
    "admission was interrupted (the scheduler stopped before it answered); "
    "submit the run again under a new id"
)


@dataclass(frozen=True)
class RecoveryPlan:
    """Repairs to make after the replay.

    Attributes:
        requeue: work items recorded as dispatched, not scored, and no longer in the work queue;
            re-published unchanged (same event id, so the same `Nats-Msg-Id`).
        reject: runs requested but never answered; their requester saw a timeout.
        shred: data-key ids that belong to no active run (finished, rejected, or orphaned).
    """

    requeue: list[SampleDispatched]
    reject: list[RunRejected]
    shred: list[str]


def plan_recovery(
    state: SchedulerState, *, queued_event_ids: Iterable[str], stored_key_ids: Iterable[str]
) -> RecoveryPlan:
    """Compare the replayed state with the work queue and the key store.

    Args:
        state: the state folded from the whole of BENCH_EVENTS.
        queued_event_ids: event ids of the `SampleDispatched` copies still in BENCH_WORK
            (waiting, or being evaluated by a runner that has not acked them).
        stored_key_ids: ids of the data keys in the key store.
    """
    queued = set(queued_event_ids)
    requeue = [
        item
        for run in state.active_runs()
        if not run.cancel_requested and run.abort_reason is None
        for item in run.outstanding.values()
        if item.event_id not in queued
    ]
    reject = [
        RunRejected(
            event_id=deterministic_event_id(run.run_id, "rejected"),
            run_id=run.run_id,
            reason=INTERRUPTED_ADMISSION,
        )
        for run in state.runs.values()
        if run.requested and not run.admitted and not run.rejected
    ]
    keep = {run.key_id for run in state.active_runs() if run.key_id is not None}
    shred = sorted(set(stored_key_ids) - keep)
    return RecoveryPlan(requeue=requeue, reject=reject, shred=shred)
