"""τ²'s reward: termination gate, DB hash after gold replay, COMMUNICATE, ACTION, basis."""

from __future__ import annotations

from typing import Any

import pytest

from bench_runner.benchmarks.base import Sample
from bench_runner.benchmarks.tau_airline.agent_loop import (
    AgentToolCall,
    Conversation,
    TerminationReason,
)
from bench_runner.benchmarks.tau_airline.benchmark import TauAirline
from bench_runner.benchmarks.tau_airline.data import AirlineBundle
from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.reward import (
    action_matches,
    communicate_met,
    score_conversation,
)
from bench_runner.benchmarks.tau_airline.task_model import Action, Task
from bench_runner.inference.types import CallContext, ChatRequest, ChatResult

from .conftest import loose
from .fakes import FakeChatModel, customer, make_context, oracle_agent, text, tool_call

CANCEL_RES001 = {
    "action_id": "0_0",
    "name": "cancel_reservation",
    "arguments": {"reservation_id": "RES001"},
}


def make_task(criteria: dict[str, Any] | None) -> Task:
    return Task.model_validate(
        {
            "id": "t",
            "user_scenario": {
                "instructions": {
                    "domain": "airline",
                    "reason_for_call": "r",
                    "task_instructions": "t",
                }
            },
            "evaluation_criteria": criteria,
        }
    )


def finished(
    termination: TerminationReason = "user_stop",
    texts: tuple[str, ...] = (),
    calls: tuple[AgentToolCall, ...] = (),
) -> Conversation:
    transcript: list[Any] = [{"role": "assistant", "content": t} for t in texts]
    return Conversation(transcript=transcript, termination=termination, tool_calls=list(calls))


def cancelled(mini: BaseDatabase) -> AirlineEnvironment:
    env = AirlineEnvironment(mini.fresh())
    env.call("cancel_reservation", {"reservation_id": "RES001"})
    return env


def test_matching_database_and_information_score_one(mini: BaseDatabase) -> None:
    task = make_task({"actions": [CANCEL_RES001], "communicate_info": ["230"]})
    result = score_conversation(task, finished(texts=("Refunded $230.",)), cancelled(mini).db, mini)
    assert (result.reward, result.db_match, result.communicate_met) == (1.0, True, True)
    assert result.breakdown == {"DB": 1.0, "COMMUNICATE": 1.0}


def test_one_extra_write_flips_the_database_check(mini: BaseDatabase) -> None:
    task = make_task({"actions": [CANCEL_RES001]})
    env = cancelled(mini)
    env.call("send_certificate", {"user_id": "ann_gold_1", "amount": 50})
    result = score_conversation(task, finished(), env.db, mini)
    assert result.db_match is False
    assert result.reward == 0.0


def test_empty_gold_actions_mean_the_database_must_not_change(mini: BaseDatabase) -> None:
    task = make_task({"actions": [], "nl_assertions": ["Agent refuses."]})
    assert score_conversation(task, finished(), mini.fresh(), mini).reward == 1.0
    assert score_conversation(task, finished(), cancelled(mini).db, mini).reward == 0.0


def test_no_actions_and_no_env_assertions_skip_the_database_check(mini: BaseDatabase) -> None:
    task = make_task({"communicate_info": []})
    result = score_conversation(task, finished(), cancelled(mini).db, mini)
    assert (result.reward, result.gold_db) == (1.0, None)


def test_a_task_without_criteria_scores_one_if_it_ended_properly(mini: BaseDatabase) -> None:
    assert score_conversation(make_task(None), finished(), mini.fresh(), mini).reward == 1.0
    assert (
        score_conversation(make_task(None), finished("max_steps"), mini.fresh(), mini).reward == 0.0
    )


@pytest.mark.parametrize("termination", ["max_steps", "too_many_errors", "agent_empty_response"])
def test_other_terminations_score_zero(mini: BaseDatabase, termination: TerminationReason) -> None:
    task = make_task({"actions": [CANCEL_RES001]})
    result = score_conversation(task, finished(termination), cancelled(mini).db, mini)
    assert result.reward == 0.0
    assert result.db_match is True
    assert result.note == f"conversation ended with {termination}"


def test_agent_stop_passes(mini: BaseDatabase) -> None:
    task = make_task({"actions": [CANCEL_RES001]})
    assert score_conversation(task, finished("agent_stop"), cancelled(mini).db, mini).reward == 1.0


def test_communicate_ignores_case_and_commas_in_the_message() -> None:
    assert communicate_met(["1628"], ["The total is $1,628."])
    assert communicate_met(["Gold"], ["you are a GOLD member"])
    assert not communicate_met(["1,628"], ["The total is $1,628."])  # only the message loses commas
    assert not communicate_met(["327", "1000"], ["327 only"])
    assert communicate_met([], [])


def test_communicate_counts_only_assistant_text(mini: BaseDatabase) -> None:
    task = make_task({"communicate_info": ["1628"]})
    conversation = finished(texts=("Let me see.",))
    conversation.transcript.append({"role": "user", "content": "Is it 1628?"})
    assert score_conversation(task, conversation, mini.fresh(), mini).communicate_met is False


def test_action_matching_follows_compare_args() -> None:
    action = Action(action_id="a", name="get_user_details", arguments={"user_id": "u1"})
    assert action_matches(action, AgentToolCall("get_user_details", {"user_id": "u1"}))
    assert not action_matches(action, AgentToolCall("get_user_details", {"user_id": "u2"}))
    assert not action_matches(action, AgentToolCall("get_reservation_details", {"user_id": "u1"}))
    assert not action_matches(action, AgentToolCall("get_user_details", None))
    loose = Action(
        action_id="b", name="transfer_to_human_agents", arguments={"summary": "x"}, compare_args=[]
    )
    assert action_matches(loose, AgentToolCall("transfer_to_human_agents", {"summary": "anything"}))
    partial = Action(
        action_id="c",
        name="calculate",
        arguments={"expression": "1+1", "note": "n"},
        compare_args=["expression"],
    )
    assert action_matches(partial, AgentToolCall("calculate", {"expression": "1+1"}))


def test_action_basis_is_honoured_when_asked_for(mini: BaseDatabase) -> None:
    task = make_task({"actions": [CANCEL_RES001], "reward_basis": ["DB", "ACTION", "NL_ASSERTION"]})
    call = AgentToolCall("cancel_reservation", {"reservation_id": "RES001"})
    good = score_conversation(task, finished(calls=(call,)), cancelled(mini).db, mini)
    assert good.breakdown == {"DB": 1.0, "ACTION": 1.0}  # NL_ASSERTION needs a judge: not evaluated
    assert good.actions_matched is True
    missing = score_conversation(task, finished(), cancelled(mini).db, mini)
    assert missing.reward == 0.0


async def test_an_extra_write_by_an_otherwise_perfect_agent_scores_incorrect(
    bundle: AirlineBundle,
) -> None:
    task = next(
        t for t in bundle.tasks if any(a.name == "cancel_reservation" for a in t.gold_actions)
    )
    oracle = oracle_agent(task)
    extra_done: list[bool] = []

    def respond(request: ChatRequest, call: CallContext) -> ChatResult:
        closing = oracle.respond(request, call)
        if closing.tool_calls or extra_done:
            return closing
        extra_done.append(True)
        user_id = task.gold_actions[0].arguments.get("user_id", "mia_li_3668")
        return tool_call("send_certificate", {"user_id": user_id, "amount": 5})

    sample = Sample(id=f"s-{task.id}", index=int(task.id), input="", payload=task)
    ctx, _ = make_context(FakeChatModel(respond), customer())
    record = await TauAirline().evaluate(sample, 0, ctx)
    assert record.score == "I"
    assert record.metadata["reward_breakdown"] == {"DB": 0.0, "COMMUNICATE": 1.0}
    mismatch = record.metadata["db_mismatch"]
    assert isinstance(mismatch, dict)
    assert any("certificate_3221322" in str(e) for e in loose(mismatch)["entries"])


async def test_text_next_to_a_tool_call_counts_as_said(bundle: AirlineBundle) -> None:
    task = next(t for t in bundle.tasks if t.communicate_info and t.gold_actions)
    oracle = oracle_agent(task)
    said = " ".join(task.communicate_info)

    def respond(request: ChatRequest, call: CallContext) -> ChatResult:
        result = oracle.respond(request, call)
        if result.tool_calls:
            return ChatResult(content=f"Noting {said}", tool_calls=result.tool_calls)
        return text("Done.")

    sample = Sample(id=f"s-{task.id}", index=0, input="", payload=task)
    ctx, _ = make_context(FakeChatModel(respond), customer())
    record = await TauAirline().evaluate(sample, 0, ctx)
    assert record.metadata["reward_breakdown"] == {"DB": 1.0, "COMMUNICATE": 1.0}
