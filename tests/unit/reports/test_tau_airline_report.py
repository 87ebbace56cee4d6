"""The TAU airline report: items with expectations and tool calls, pass^k over epochs."""

from __future__ import annotations

import pytest

from bench_common.evaluation import EvaluationRecord, ScoreValue
from bench_common.reports import tau_airline_report
from bench_common.reports.tau_airline import pass_hat_k


def record(task: int, epoch: int, score: ScoreValue) -> EvaluationRecord:
    return EvaluationRecord(
        sample_id=f"tau_bench_verified_airline-{task}",
        sample_index=task,
        epoch=epoch,
        score=score,
        input="Domain: airline\nReason for call:\n\tcancel",
        target=str(task),
        messages=[
            {"role": "user", "content": "Hi, cancel my trip"},
            {
                "role": "assistant",
                "content": "",
                "reasoning": "look it up",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "cancel_reservation", "arguments": '{"x":1}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "{}"},
            {"role": "assistant", "content": "Done, refund of 100 issued."},
        ],
        metadata={
            "task_id": str(task),
            "termination_reason": "user_stop",
            "step_count": 4,
            "reward": 1.0 if score == "C" else 0.0,
            "reward_basis": ["DB", "COMMUNICATE"],
            "expected": {
                "purpose": "cancel",
                "persona": None,
                "actions": [{"name": "cancel_reservation", "arguments": {"reservation_id": "X"}}],
                "communicate_info": ["100"],
                "nl_assertions": ["agent cancels"],
            },
        },
    )


def test_items_carry_expectations_and_what_the_agent_did() -> None:
    report = tau_airline_report([record(1, 0, "C"), record(0, 0, "I")])
    first = report["items"][0]
    assert first["taskId"] == "0"
    assert first["status"] == "failed"
    assert first["expectedActions"][0]["name"] == "cancel_reservation"
    assert first["expectedCommunications"] == ["100"]
    assert first["actualToolCalls"] == [{"name": "cancel_reservation", "arguments": '{"x":1}'}]
    assert first["finalAgentAnswer"] == "Done, refund of 100 issued."
    assert first["hasReasoning"] is True
    assert report["terminationReasons"] == {"user_stop": 2}


def test_pass_hat_k_is_the_chance_that_k_attempts_all_succeed() -> None:
    records = [
        record(0, 0, "C"), record(0, 1, "C"), record(0, 2, "C"),  # always passes
        record(1, 0, "C"), record(1, 1, "I"), record(1, 2, "C"),  # 2 of 3
        record(2, 0, "I"), record(2, 1, "S"), record(2, 2, "I"),  # never (2 scored)
    ]  # fmt: skip
    result = pass_hat_k(records)
    assert set(result) == {"1", "2"}  # task 2 has only two scored epochs
    assert result["1"] == pytest.approx((1 + 2 / 3 + 0) / 3)
    assert result["2"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert pass_hat_k([]) == {}
