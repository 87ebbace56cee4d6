"""The request as sent: URL, body (options, overrides, routing) and headers (§4.1)."""

from __future__ import annotations

import pytest
from pydantic import JsonValue

from bench_common.run_config import InferenceOptions
from bench_runner.inference.payload import (
    build_body,
    build_headers,
    cache_salt,
    completions_url,
    request_summary,
)
from bench_runner.inference.types import CallContext, ChatRequest

MESSAGES: list[dict[str, JsonValue]] = [{"role": "user", "content": "hi"}]


def options(**values: object) -> InferenceOptions:
    return InferenceOptions.model_validate(values)


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://openrouter.ai/api/v1", "https://openrouter.ai/api/v1/chat/completions"),
        ("https://inference.do-ai.run/v1", "https://inference.do-ai.run/v1/chat/completions"),
        ("https://inference.do-ai.run/v1//", "https://inference.do-ai.run/v1/chat/completions"),
        ("http://127.0.0.1:8000", "http://127.0.0.1:8000/chat/completions"),
    ],
)
def test_base_url_is_used_as_given(base: str, url: str) -> None:
    assert completions_url(base) == url


def test_minimal_body_streams_with_usage() -> None:
    body = build_body("m", InferenceOptions(), ChatRequest(messages=list(MESSAGES)))
    assert body == {
        "model": "m",
        "messages": MESSAGES,
        "stream": True,
        "stream_options": {"include_usage": True},
        "cache_control": {"type": "ephemeral"},
    }


def test_request_temperature_and_max_tokens_override_the_run() -> None:
    run = options(temperature=0.2, maxTokens=100, reasoningEffort="high")
    body = build_body("m", run, ChatRequest(messages=[], temperature=1.0, max_tokens=50))
    assert (body["temperature"], body["max_tokens"], body["reasoning_effort"]) == (1.0, 50, "high")
    body = build_body("m", run, ChatRequest(messages=[]))
    assert (body["temperature"], body["max_tokens"]) == (0.2, 100)


def test_tools_and_tool_choice() -> None:
    tools: list[dict[str, JsonValue]] = [{"type": "function", "function": {"name": "f"}}]
    body = build_body(
        "m", InferenceOptions(), ChatRequest(messages=[], tools=tools, tool_choice="auto")
    )
    assert body["tools"] == tools
    assert body["tool_choice"] == "auto"


def test_provider_preferences() -> None:
    run = options(
        sort="throughput", providerOnly=["groq"], providerIgnore=["azure"], allowFallbacks=False
    )
    body = build_body("m", run, ChatRequest(messages=[]))
    assert body["provider"] == {
        "sort": "throughput",
        "only": ["groq"],
        "ignore": ["azure"],
        "allow_fallbacks": False,
    }


def test_sort_is_omitted_when_an_endpoint_is_pinned() -> None:
    body = build_body("m", options(sort="price", endpointId="ep-1"), ChatRequest(messages=[]))
    assert "provider" not in body
    body = build_body(
        "m", options(sort="price", endpointId="ep-1", providerOnly=["x"]), ChatRequest(messages=[])
    )
    assert body["provider"] == {"only": ["x"]}


def test_auto_router_plugin_only_for_openrouter_auto() -> None:
    run = options(costTier="low", costQualityTradeoff=3, pinModel="openai/gpt-4o")
    plugin = {
        "id": "auto-router",
        "cost_tier": "low",
        "cost_quality_tradeoff": 3,
        "pin_model": "openai/gpt-4o",
    }
    assert build_body("openrouter/auto", run, ChatRequest(messages=[]))["plugins"] == [plugin]
    assert build_body("openrouter/auto-beta", run, ChatRequest(messages=[]))["plugins"] == [plugin]
    assert "plugins" not in build_body("openai/gpt-4o", run, ChatRequest(messages=[]))
    assert "plugins" not in build_body(
        "openrouter/auto", InferenceOptions(), ChatRequest(messages=[])
    )


def test_extra_body_is_merged_last() -> None:
    request = ChatRequest(messages=[], extra_body={"top_p": 0.5, "stream_options": {"x": 1}})
    body = build_body("m", InferenceOptions(), request)
    assert body["top_p"] == 0.5
    assert body["stream_options"] == {"x": 1}


def test_cache_salt_per_epoch_call_and_attempt() -> None:
    assert cache_salt("s", CallContext(epoch=1), 1) == "s:epoch-1"
    assert cache_salt("s", CallContext(epoch=3, call_salt="turn-2"), 1) == "s:epoch-3:turn-2"
    assert (
        cache_salt("s", CallContext(epoch=3, call_salt="turn-2"), 4) == "s:epoch-3:turn-2:attempt-4"
    )
    assert cache_salt("s", CallContext(), 2) == "s:attempt-2"


def headers_for(base_url: str, run: InferenceOptions) -> dict[str, str]:
    return build_headers(
        base_url=base_url, api_key="k", options=run, session_id="sess", salt="salt"
    )


def test_headers() -> None:
    headers = headers_for("https://inference.do-ai.run/v1", InferenceOptions())
    assert headers["Authorization"] == "Bearer k"
    assert headers["HTTP-Referer"] == "https://bench-harness.openrouter.ai/"
    assert headers["X-OpenRouter-Title"] == "OpenRouter: Bench Harness"
    assert headers["x-openrouter-cache"] == "true"
    assert headers["x-openrouter-cache-ttl"] == "7200"
    assert headers["x-openrouter-cache-salt"] == "salt"
    assert headers["x-session-id"] == "sess"
    assert "X-OpenRouter-Metadata" not in headers
    assert "X-OR-Endpoint-Id" not in headers
    assert "Cloudflare-Workers-Version-Overrides" not in headers


def test_metadata_header_only_for_openrouter_and_pins() -> None:
    run = options(endpointId="ep-7", cloudflareVersion='worker="v2"')
    headers = headers_for("https://openrouter.ai/api/v1/", run)
    assert headers["X-OpenRouter-Metadata"] == "enabled"
    assert headers["X-OR-Endpoint-Id"] == "ep-7"
    assert headers["Cloudflare-Workers-Version-Overrides"] == 'worker="v2"'
    assert "X-OpenRouter-Metadata" not in headers_for("https://openrouter.ai/api/v2", run)


def test_request_summary() -> None:
    run = options(temperature=0.5, endpointId="e", timeoutMs=10, completionTimeoutMs=20)
    body = build_body("m", run, ChatRequest(messages=list(MESSAGES), max_tokens=9))
    assert request_summary(body, run) == {
        "messages": 1,
        "stream": True,
        "temperature": 0.5,
        "max_tokens": 9,
        "reasoning_effort": None,
        "endpoint_id": "e",
        "timeout_ms": 10,
        "completion_timeout_ms": 20,
    }
