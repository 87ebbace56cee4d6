"""The conversation loop: roles, termination rules, limits, retries, what each side sees."""

from __future__ import annotations

import pytest

from bench_runner.benchmarks.tau_airline.agent_loop import Conversation, ConversationLoop, Limits
from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.environment import AirlineEnvironment
from bench_runner.benchmarks.tau_airline.prompts import customer_system_prompt
from bench_runner.benchmarks.tau_airline.simulator import SimulatedCustomer
from bench_runner.inference.errors import ModelError, RunAborted
from bench_runner.inference.types import CallContext, ChatRequest, ChatResult, ToolCall

from .conftest import loose
from .fakes import AGENT_USAGE, FakeChatModel, customer, scripted, text, tool_call

AIRPORTS = tool_call("list_all_airports", {})
EMPTY = text("")


def build(
    agent: FakeChatModel,
    customer_model: FakeChatModel,
    mini: BaseDatabase,
    *,
    limits: Limits | None = None,
    temperature: float | None = 0.0,
) -> ConversationLoop:
    simulated = SimulatedCustomer(
        customer_model,
        system_prompt=customer_system_prompt("Domain: airline"),
        temperature=0.0,
        sample_id="s-1",
        epoch=2,
        base_url="https://sim.example/v1",
    )
    return ConversationLoop(
        agent=agent,
        customer=simulated,
        environment=AirlineEnvironment(mini.fresh()),
        system_prompt="<instructions>agent</instructions>",
        temperature=temperature,
        sample_id="s-1",
        epoch=2,
        limits=limits,
    )


async def run(
    agent: FakeChatModel,
    customer_model: FakeChatModel,
    mini: BaseDatabase,
    *,
    limits: Limits | None = None,
    temperature: float | None = 0.0,
) -> Conversation:
    loop = build(agent, customer_model, mini, limits=limits, temperature=temperature)
    return await loop.run()


@pytest.mark.parametrize("token", ["###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"])
async def test_customer_tokens_end_with_user_stop(mini: BaseDatabase, token: str) -> None:
    agent = scripted([text("Let me check.")])
    conversation = await run(agent, customer(["Hello", f"Thanks. {token}"]), mini)
    assert conversation.termination == "user_stop"
    assert conversation.transcript[-1] == {"role": "user", "content": f"Thanks. {token}"}
    assert conversation.steps == 3  # customer, agent, customer


async def test_agent_stop_token_ends_the_conversation(mini: BaseDatabase) -> None:
    sim = customer(["Hello", "more?"])
    conversation = await run(scripted([text("Goodbye ###STOP###")]), sim, mini)
    assert conversation.termination == "agent_stop"
    assert len(sim.requests) == 1


async def test_max_steps_ends_a_conversation_that_never_stops(mini: BaseDatabase) -> None:
    conversation = await run(scripted([AIRPORTS]), customer(), mini)
    assert conversation.termination == "max_steps"
    assert conversation.steps == 200
    assert conversation.tool_errors == 0


async def test_step_limit_overrides_a_stop_on_the_same_step_as_in_tau2(mini: BaseDatabase) -> None:
    conversation = await run(
        scripted([AIRPORTS]), customer(["###STOP###"]), mini, limits=Limits(max_steps=1)
    )
    assert conversation.termination == "max_steps"


async def test_ten_tool_errors_end_with_too_many_errors(mini: BaseDatabase) -> None:
    agent = scripted([tool_call("no_such_tool", {})])
    conversation = await run(agent, customer(), mini)
    assert conversation.termination == "too_many_errors"
    assert conversation.tool_errors == 10
    assert conversation.steps == 1 + 2 * 10


async def test_parallel_tool_calls_each_get_a_result_and_errors_count(mini: BaseDatabase) -> None:
    calls = [
        ToolCall(id="a", name="list_all_airports", arguments="{}"),
        ToolCall(id="b", name="get_user_details", arguments='{"user_id": "ghost"}'),
        ToolCall(id="c", name="calculate", arguments="{not json"),
    ]
    agent = scripted([ChatResult(content="", tool_calls=calls), text("done")])
    conversation = await run(agent, customer(), mini)
    tool_messages = [m for m in conversation.transcript if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["a", "b", "c"]
    assert conversation.tool_errors == 2
    assert [c.arguments for c in conversation.tool_calls] == [{}, {"user_id": "ghost"}, None]
    assert conversation.termination == "user_stop"


async def test_missing_tool_call_ids_are_filled_in_consistently(mini: BaseDatabase) -> None:
    agent = scripted([tool_call("list_all_airports", {}, call_id=""), text("done")])
    conversation = await run(agent, customer(), mini)
    assistant = conversation.transcript[2]
    call_id = loose(assistant["tool_calls"])[0]["id"]
    assert call_id == "call_1_0"
    assert conversation.transcript[3]["tool_call_id"] == call_id


async def test_empty_answers_are_retried_with_distinct_salts(mini: BaseDatabase) -> None:
    agent = scripted([EMPTY, EMPTY, text("Sure.")])
    conversation = await run(agent, customer(), mini)
    assert conversation.termination == "user_stop"
    assert [c.call_salt for c in agent.calls] == ["turn-1", "turn-1-retry-1", "turn-1-retry-2"]
    assert conversation.agent_calls == 3
    assert conversation.agent_usage.input_tokens == 3 * AGENT_USAGE.input_tokens


async def test_four_empty_answers_end_with_agent_empty_response(mini: BaseDatabase) -> None:
    agent = scripted([text("   ")])
    conversation = await run(agent, customer(), mini)
    assert conversation.termination == "agent_empty_response"
    assert len(agent.calls) == 4  # the first call and three retries
    assert len({c.call_salt for c in agent.calls}) == 4
    assert [m["role"] for m in conversation.transcript] == ["assistant", "user"]


async def test_turns_carry_sample_epoch_and_a_salt_per_turn(mini: BaseDatabase) -> None:
    agent = scripted([AIRPORTS, text("There you go.")])
    await run(agent, customer(), mini)
    assert [(c.sample_id, c.epoch, c.call_salt) for c in agent.calls] == [
        ("s-1", 2, "turn-1"),
        ("s-1", 2, "turn-2"),
    ]


async def test_agent_sees_system_prompt_tools_and_no_greeting(mini: BaseDatabase) -> None:
    agent = scripted([AIRPORTS, text("There you go.")])
    await run(agent, customer(["I need airports", "###STOP###"]), mini, temperature=0.0)
    first, second = agent.requests
    assert first.messages == [
        {"role": "system", "content": "<instructions>agent</instructions>"},
        {"role": "user", "content": "I need airports"},
    ]
    assert first.temperature == 0.0
    assert first.tools is not None
    assert len(first.tools) == 14
    assert [m["role"] for m in second.messages] == ["system", "user", "assistant", "tool"]


async def test_customer_sees_flipped_roles_and_no_tool_traffic(mini: BaseDatabase) -> None:
    sim = customer(["I need airports", "ok", "###STOP###"])
    agent = scripted([AIRPORTS, text("Here they are."), text("Anything else?")])
    await run(agent, sim, mini)
    last: ChatRequest = sim.requests[-1]
    assert last.messages[0]["role"] == "system"
    system = last.messages[0]["content"]
    assert isinstance(system, str)
    assert system.startswith("# User Simulation Guidelines")
    assert system.endswith("<scenario>\nDomain: airline\n</scenario>")
    assert last.messages[1:] == [
        {"role": "user", "content": "Hi! How can I help you today?"},
        {"role": "assistant", "content": "I need airports"},
        {"role": "user", "content": "Here they are."},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "Anything else?"},
    ]
    assert last.temperature == 0.0
    assert [c.call_salt for c in sim.calls] == ["customer-1", "customer-2", "customer-3"]


async def test_customer_empty_replies_raise_a_skippable_model_error(mini: BaseDatabase) -> None:
    sim = customer(["  "])
    with pytest.raises(ModelError, match="empty message 3 times") as caught:
        await run(scripted([text("hi")]), sim, mini)
    assert caught.value.outcome == "skip"
    assert [c.call_salt for c in sim.calls] == [
        "customer-1",
        "customer-1-retry-1",
        "customer-1-retry-2",
    ]


async def test_customer_endpoint_refusing_the_key_aborts_the_run(mini: BaseDatabase) -> None:
    def refuse(_request: ChatRequest, _call: CallContext) -> ChatResult:
        raise ModelError("bad key", status=401)

    with pytest.raises(RunAborted, match=r"simulated customer's endpoint https://sim\.example/v1"):
        await run(scripted([text("hi")]), FakeChatModel(refuse), mini)


async def test_customer_transient_failures_propagate(mini: BaseDatabase) -> None:
    def busy(_request: ChatRequest, _call: CallContext) -> ChatResult:
        raise ModelError("overloaded", status=503)

    with pytest.raises(ModelError, match="overloaded"):
        await run(scripted([text("hi")]), FakeChatModel(busy), mini)


async def test_agent_model_errors_propagate(mini: BaseDatabase) -> None:
    def broken(_request: ChatRequest, _call: CallContext) -> ChatResult:
        raise ModelError("bad request", status=400)

    with pytest.raises(ModelError, match="bad request"):
        await run(FakeChatModel(broken), customer(), mini)
