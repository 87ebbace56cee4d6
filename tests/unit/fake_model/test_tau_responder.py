"""The fake model's TAU airline responder: both sides of every task's conversation, scripted.

The responder only sees request bodies, as over HTTP; here each side's `ChatRequest` is turned
into the body the inference client would send (tools only for the agent), so the plugin's own
conversation loop and reward run unchanged on all fifty tasks.
"""

from __future__ import annotations

from typing import Any

from bench_runner.benchmarks.base import DatasetContext
from bench_runner.benchmarks.tau_airline.benchmark import TauAirline
from bench_runner.benchmarks.tau_airline.data import load_bundle
from bench_runner.benchmarks.tau_airline.prompts import STOP, customer_system_prompt
from bench_runner.benchmarks.tau_airline.settings import TauAirlineOptions
from bench_runner.fake_model.default_responder import MultipleChoiceResponder
from bench_runner.fake_model.script import RecordedRequest, Reply
from bench_runner.fake_model.tau_responder import (
    TauAirlineResponder,
    is_tau_request,
    opening_line,
)
from bench_runner.inference.types import CallContext, ChatRequest, ChatResult, ToolCall
from tests.unit.tau_airline.fakes import FakeChatModel, make_context


def over_http(responder: TauAirlineResponder, name: str) -> FakeChatModel:
    """A chat model whose every answer is the responder's reply to the request's JSON body."""

    def respond(request: ChatRequest, _call: CallContext) -> ChatResult:
        body: dict[str, Any] = {"model": name, "messages": request.messages}
        if request.tools:
            body["tools"] = request.tools
        reply = responder(RecordedRequest(path="/v1/chat/completions", headers={}, body=body))
        calls = [
            ToolCall(id=c.id or "", name=c.name, arguments=c.arguments) for c in reply.tool_calls
        ]
        content = reply.content if isinstance(reply.content, str) else "".join(reply.content)
        return ChatResult(content=content, tool_calls=calls)

    return FakeChatModel(respond, name=name)


async def test_every_task_earns_reward_one_when_the_fake_plays_both_sides() -> None:
    responder = TauAirlineResponder()
    benchmark = TauAirline()
    samples = await benchmark.load_samples(DatasetContext(cache_dir=None), TauAirlineOptions())
    failures = []
    for sample in samples:
        ctx, _ = make_context(over_http(responder, "fake/agent"), over_http(responder, "fake/user"))
        record = await benchmark.evaluate(sample, 0, ctx)
        if record.score != "C":
            failures.append((sample.id, record.explanation))
    assert len(samples) == 50
    assert failures == []


def body_of(messages: list[dict[str, Any]], **extra: Any) -> RecordedRequest:
    return RecordedRequest(
        path="/v1/chat/completions", headers={}, body={"messages": messages, **extra}
    )


def test_the_customer_tags_its_task_then_stops() -> None:
    responder = TauAirlineResponder()
    scenario = load_bundle().tasks[12].render_instructions()
    system = {"role": "system", "content": customer_system_prompt(scenario)}
    first = responder(body_of([system, {"role": "user", "content": "Hi! How can I help?"}]))
    assert first.content == opening_line("12")
    later = responder(
        body_of([system, {"role": "user", "content": "Hi!"}, {"role": "assistant", "content": "x"},
                 {"role": "user", "content": "Done."}])
    )  # fmt: skip
    assert later.content == STOP


def test_unknown_conversations_end_politely_instead_of_failing() -> None:
    responder = TauAirlineResponder()
    strange = customer_system_prompt("a scenario no task has")
    assert responder(body_of([{"role": "system", "content": strange}])).content == STOP
    untagged = responder(
        body_of([{"role": "user", "content": "hello"}], tools=[{"type": "function"}])
    )
    assert untagged.tool_calls == ()
    assert "could not tell" in str(untagged.content)


def test_only_tau_conversations_are_routed_to_it() -> None:
    assert is_tau_request({"messages": [], "tools": [{"type": "function"}]})
    assert is_tau_request(
        {"messages": [{"role": "system", "content": customer_system_prompt("s")}]}
    )
    assert not is_tau_request({"messages": [{"role": "user", "content": "Question: A) 1 B) 2"}]})
    assert not is_tau_request({"messages": [{"role": "system", "content": "be brief"}]})
    assert not is_tau_request({})
    # the multiple-choice default is what everything else gets
    reply = MultipleChoiceResponder()(body_of([{"role": "user", "content": "A) x\nB) y"}]))
    assert isinstance(reply, Reply)
