"""Admission under the active-run cap, and what admitting records."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from bench_common.commands import AdmissionRequest
from bench_common.events import RunAdmitted, RunCounts, RunFinished, RunRejected, RunRequested
from bench_common.secrets_box import unseal
from bench_scheduler.admission import active_run_cap, admission_events, decide_admission
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import admitted_run, config


@pytest.mark.parametrize(("configured", "cap"), [(1, 1), (3, 3), (8, 8), (50, 8), (0, 1)])
def test_cap_is_bench_api_max_runs_but_at_most_8(configured: int, cap: int) -> None:
    assert active_run_cap(configured) == cap


def test_admits_below_the_cap_and_refuses_at_it() -> None:
    state = SchedulerState()
    for i in range(7):
        admitted_run(state, f"r{i}")
    seventh = decide_admission(state, "new", max_active=8)
    assert seventh.admitted
    assert seventh.active == 8
    admitted_run(state, "r7")
    refused = decide_admission(state, "new", max_active=8)
    assert not refused.admitted
    assert refused.at_cap
    assert (refused.active, refused.max_active) == (8, 8)
    assert refused.reason is not None
    assert "8 of 8" in refused.reason


def test_comparison_arms_count_toward_the_cap() -> None:
    state = SchedulerState()
    admitted_run(state, "normal")
    state.apply(
        RunRequested(
            run_id="arm", config=config(), run_kind="gpqa_retry_arm", source_run_id="normal"
        )
    )
    state.apply(RunAdmitted(run_id="arm", active=2, max_active=2))
    assert not decide_admission(state, "third", max_active=2).admitted


def test_finished_runs_free_their_slot() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    assert not decide_admission(state, "r2", max_active=1).admitted
    state.apply(RunFinished(run_id="r1", status="succeeded", counts=RunCounts()))
    assert decide_admission(state, "r2", max_active=1).admitted


def test_run_ids_are_used_once() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    again = decide_admission(state, "r1", max_active=8)
    assert again.admitted
    assert again.repeat
    state.apply(RunRejected(run_id="r2", reason="cap"))
    reused = decide_admission(state, "r2", max_active=8)
    assert not reused.admitted
    assert not reused.at_cap
    assert reused.reason is not None
    assert "already used" in reused.reason


def test_run_ids_that_break_subjects_are_refused() -> None:
    decision = decide_admission(SchedulerState(), "a.b", max_active=8)
    assert not decision.admitted
    assert "NATS subject" in (decision.reason or "")


def test_admission_seals_credentials_under_a_fresh_key() -> None:
    request = AdmissionRequest(
        run_id="r1",
        config=config(),
        credentials={"api_key": SecretStr("sk-plain"), "simulator_api_key": SecretStr("sim")},
    )
    decision = decide_admission(SchedulerState(), "r1", max_active=8)
    facts = admission_events(request, decision)
    requested, admitted = facts.facts
    assert isinstance(requested, RunRequested)
    assert isinstance(admitted, RunAdmitted)
    assert facts.key is not None
    assert facts.key_id is not None
    assert "sk-plain" not in requested.model_dump_json()
    sealed = requested.credentials["api_key"]
    assert sealed.key_id == facts.key_id
    assert unseal(sealed, key=facts.key, run_id="r1") == "sk-plain"
    assert unseal(requested.credentials["simulator_api_key"], key=facts.key, run_id="r1") == "sim"
    assert repr(facts.key) not in repr(facts)  # the key never shows in a repr


def test_admission_without_credentials_stores_no_key() -> None:
    request = AdmissionRequest(run_id="r1", config=config())
    facts = admission_events(request, decide_admission(SchedulerState(), "r1", max_active=8))
    assert facts.key is None
    assert facts.key_id is None
    assert len(facts.facts) == 2


def test_refusals_record_only_the_cap() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    at_cap = admission_events(
        AdmissionRequest(run_id="r2", config=config()),
        decide_admission(state, "r2", max_active=1),
    )
    assert [type(e) for e in at_cap.facts] == [RunRejected]
    repeat = admission_events(
        AdmissionRequest(run_id="r1", config=config()),
        decide_admission(state, "r1", max_active=1),
    )
    assert repeat.facts == []
