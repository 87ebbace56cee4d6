"""Successful calls through real HTTP and SSE: what comes back and what was sent."""

from __future__ import annotations

import json

from bench_common.run_config import InferenceOptions
from bench_runner.fake_model import Reply, ToolCallReply
from bench_runner.inference import CallContext, ToolCall
from tests.unit.inference.fakes import API_KEY, CALL, SESSION_ID, harness, user_request


async def test_streamed_completion_is_rebuilt() -> None:
    reply = Reply(
        content="The answer is clearly\n\nAnswer: C",
        reasoning="Consider each option in turn.",
        provider="Together",
        generation_id="gen-abc",
        usage={
            "prompt_tokens": 120,
            "completion_tokens": 45,
            "total_tokens": 165,
            "completion_tokens_details": {"reasoning_tokens": 20},
            "prompt_tokens_details": {"cached_tokens": 100},
            "cost": 0.00042,
        },
        headers={"x-request-id": "req-1", "cf-ray": "ray-1"},
    )
    async with harness([reply]) as h:
        result = await h.model.complete(user_request(), call=CALL)
    assert result.content == "The answer is clearly\n\nAnswer: C"
    assert result.reasoning == "Consider each option in turn."
    assert result.finish_reason == "stop"
    assert result.provider == "Together"
    assert result.generation_id == "gen-abc"
    assert result.usage.input_tokens == 120
    assert result.usage.output_tokens == 45
    assert result.usage.reasoning_tokens == 20
    assert result.usage.cache_read_tokens == 100
    assert result.usage.cost == 0.00042
    assert result.usage.generation_time_ms >= 0
    assert result.attempts == 1
    completed = h.sink.completed()[-1]
    assert (completed.x_request_id, completed.cf_ray) == ("req-1", "ray-1")


async def test_tool_calls_and_reasoning_content_field() -> None:
    reply = Reply(
        content="",
        reasoning="need the user",
        reasoning_field="reasoning_content",
        reasoning_details=[
            {"type": "reasoning.text", "index": 0, "text": "need "},
            {"type": "reasoning.text", "index": 0, "text": "the user"},
        ],
        tool_calls=[
            ToolCallReply("get_user_details", '{"user_id": "mia_li_3668"}', id="call_1", chunks=4),
            ToolCallReply("think", '{"thought": "ok"}', id="call_2", chunks=3),
        ],
    )
    async with harness([reply]) as h:
        result = await h.model.complete(user_request(), call=CALL)
    assert result.reasoning == "need the user"
    assert result.tool_calls == [
        ToolCall("call_1", "get_user_details", '{"user_id": "mia_li_3668"}'),
        ToolCall("call_2", "think", '{"thought": "ok"}'),
    ]
    assert result.finish_reason == "tool_calls"
    assert result.reasoning_details == [
        {"type": "reasoning.text", "index": 0, "text": "need the user"}
    ]
    message = result.assistant_message()
    assert message["tool_calls"] == [c.to_message() for c in result.tool_calls]


async def test_plain_json_body_instead_of_sse() -> None:
    reply = Reply(content="Answer: D", stream=False, provider="Azure")
    async with harness([reply]) as h:
        result = await h.model.complete(user_request(), call=CALL)
    assert result.content == "Answer: D"
    assert result.provider == "Azure"
    assert result.usage.total_tokens > 0


async def test_empty_completion_is_not_an_error_for_the_client() -> None:
    async with harness([Reply(content=[]), Reply(content=[], stream=False)]) as h:
        streamed = await h.model.complete(user_request(), call=CALL)
        plain = await h.model.complete(user_request(), call=CALL)
    assert streamed.content == plain.content == ""
    assert streamed.tool_calls == []
    assert h.sink.completed()[0].ok


async def test_provider_from_openrouter_metadata() -> None:
    metadata = {"endpoints": {"available": [{"provider": "Groq", "selected": True}]}}
    async with harness([Reply(provider=None, metadata=metadata)]) as h:
        result = await h.model.complete(user_request(), call=CALL)
    assert result.provider == "Groq"


async def test_body_and_headers_sent() -> None:
    run = InferenceOptions.model_validate(
        {
            "temperature": 0.3,
            "maxTokens": 256,
            "reasoningEffort": "low",
            "sort": "latency",
            "providerOnly": ["fireworks"],
            "providerIgnore": ["azure"],
            "allowFallbacks": True,
            "endpointId": None,
            "cloudflareVersion": "w=1",
        }
    )
    async with harness([Reply()], options=run, base_suffix="/") as h:
        await h.model.complete(user_request(temperature=1.0), call=CALL)
        sent = h.server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.body["model"] == "openai/gpt-4o-mini"
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["temperature"] == 1.0
    assert sent.body["max_tokens"] == 256
    assert sent.body["reasoning_effort"] == "low"
    assert sent.body["provider"] == {
        "sort": "latency",
        "only": ["fireworks"],
        "ignore": ["azure"],
        "allow_fallbacks": True,
    }
    assert sent.headers["Authorization"] == f"Bearer {API_KEY}"
    assert sent.headers["x-session-id"] == SESSION_ID
    assert sent.headers["x-openrouter-cache-salt"] == f"{SESSION_ID}:epoch-2"
    assert sent.headers["Cloudflare-Workers-Version-Overrides"] == "w=1"
    assert "X-OpenRouter-Metadata" not in sent.headers
    assert "X-OR-Endpoint-Id" not in sent.headers


async def test_each_epoch_gets_its_own_cache_salt() -> None:
    async with harness([Reply(), Reply(), Reply()]) as h:
        for epoch in (1, 2):
            await h.model.complete(user_request(), call=CallContext("s", epoch))
        await h.model.complete(user_request(), call=CallContext("s", 2, call_salt="turn-3"))
        salts = [r.headers["x-openrouter-cache-salt"] for r in h.server.requests]
    assert salts == [
        f"{SESSION_ID}:epoch-1",
        f"{SESSION_ID}:epoch-2",
        f"{SESSION_ID}:epoch-2:turn-3",
    ]


async def test_pinned_endpoint_header_and_no_sort() -> None:
    run = InferenceOptions.model_validate({"endpointId": "ep-9", "sort": "price"})
    async with harness([Reply()], options=run) as h:
        await h.model.complete(user_request(), call=CALL)
        sent = h.server.requests[0]
    assert sent.headers["X-OR-Endpoint-Id"] == "ep-9"
    assert "provider" not in sent.body


async def test_default_responder_answers_multiple_choice() -> None:
    prompt = "Pick one.\n\nA) x\nB) y\nC) z\nD) w"
    async with harness() as h:
        first = await h.model.complete(user_request(prompt), call=CALL)
        second = await h.model.complete(user_request(prompt), call=CALL)
    assert first.content == second.content
    assert first.content.splitlines()[-1] in {f"Answer: {x}" for x in "ABCD"}
    assert first.usage.cost > 0
    assert json.loads(h.sink.completed()[0].model_dump_json())["ok"] is True
