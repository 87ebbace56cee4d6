"""Admission under the active-run cap: which runs may start, decided from the folded state.

The cap is `min(BENCH_API_MAX_RUNS, 8)` runs admitted and not finished, counting every run kind
(GPQA comparison arms are runs like any other and count too). The scheduler calls
`decide_admission` for one request at a time and folds the resulting events before it looks at
the next request, which is what makes the cap atomic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bench_common.commands import AdmissionRequest
from bench_common.envelope import Event, check_token, deterministic_event_id
from bench_common.events import RunAdmitted, RunRejected, RunRequested, SealedSecret
from bench_common.secrets_box import new_data_key, new_key_id, seal
from bench_scheduler.state import SchedulerState

HARD_MAX_ACTIVE_RUNS = 8
"""No deployment may run more than this many runs at once, whatever BENCH_API_MAX_RUNS says."""


@dataclass(frozen=True)
class AdmissionDecision:
    """The answer to one admission request.

    Attributes:
        admitted: the run may start (or, with `repeat`, was admitted by an earlier request).
        active: active runs, this one included when admitted.
        max_active: the cap in force.
        reason: why the run was refused, worded for the person who asked.
        repeat: the run id was admitted before; nothing is to be published again.
        at_cap: refused because of the cap (recorded as `RunRejected`; other refusals are
            answered only, since they concern no new run).
    """

    admitted: bool
    active: int
    max_active: int
    reason: str | None = None
    repeat: bool = False
    at_cap: bool = False


def active_run_cap(configured: int) -> int:
    """The cap in force: `configured` (BENCH_API_MAX_RUNS) but at most 8 and at least 1."""
    return max(1, min(configured, HARD_MAX_ACTIVE_RUNS))


def decide_admission(state: SchedulerState, run_id: str, *, max_active: int) -> AdmissionDecision:
    """Admit `run_id` if fewer than `max_active` runs are active.

    A run id is used once: asking again for an admitted run answers admitted (a client may
    retry after a lost reply), asking again for any other known run is refused.
    """
    active = len(state.active_runs())
    try:
        check_token(run_id, "run id")
    except ValueError as exc:
        return AdmissionDecision(False, active, max_active, reason=str(exc))
    known = state.runs.get(run_id)
    if known is not None and known.admitted:
        return AdmissionDecision(True, active, max_active, repeat=True)
    if known is not None:
        return AdmissionDecision(
            False,
            active,
            max_active,
            reason=f"run id {run_id} was already used; submit the run again under a new id",
        )
    if active >= max_active:
        return AdmissionDecision(
            False,
            active,
            max_active,
            reason=(
                f"the active-run cap is reached: {active} of {max_active} runs are active "
                "(comparison arms included); wait for one to finish or cancel one"
            ),
            at_cap=True,
        )
    return AdmissionDecision(True, active + 1, max_active)


@dataclass(frozen=True)
class AdmissionFacts:
    """What admitting or refusing a run records.

    Attributes:
        facts: the events to publish, in order (`RunRequested` then `RunAdmitted`, or
            `RunRejected`, or nothing).
        key_id: id of the run's new data key, when it has credentials to seal.
        key: the data key itself, to store in the key store before anything is published.
    """

    facts: list[Event] = field(default_factory=list)
    key_id: str | None = None
    key: bytes | None = field(default=None, repr=False)


def admission_events(request: AdmissionRequest, decision: AdmissionDecision) -> AdmissionFacts:
    """The events `decision` records, with the credentials sealed under a fresh data key.

    Only ciphertext reaches `RunRequested`; the run id is bound into each seal.
    """
    run_id = request.run_id
    if decision.at_cap:
        rejected = RunRejected(
            event_id=deterministic_event_id(run_id, "rejected"),
            run_id=run_id,
            reason=decision.reason or "the active-run cap is reached",
            active=decision.active,
            max_active=decision.max_active,
        )
        return AdmissionFacts(facts=[rejected])
    if not decision.admitted or decision.repeat:
        return AdmissionFacts()
    key_id, key = (new_key_id(), new_data_key()) if request.credentials else (None, None)
    sealed: dict[str, SealedSecret] = {}
    if key_id is not None and key is not None:
        sealed = {
            name: seal(secret.get_secret_value(), key=key, key_id=key_id, run_id=run_id)
            for name, secret in request.credentials.items()
        }
    requested = RunRequested(
        event_id=deterministic_event_id(run_id, "requested"),
        run_id=run_id,
        config=request.config,
        triggered_by_email=request.triggered_by_email,
        run_kind=request.run_kind,
        source_run_id=request.source_run_id,
        judge_model=request.judge_model,
        credentials=sealed,
    )
    admitted = RunAdmitted(
        event_id=deterministic_event_id(run_id, "admitted"),
        run_id=run_id,
        active=decision.active,
        max_active=decision.max_active,
    )
    return AdmissionFacts(facts=[requested, admitted], key_id=key_id, key=key)
