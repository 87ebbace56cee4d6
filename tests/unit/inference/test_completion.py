"""Rebuilding a completion from chunks and bodies: content, reasoning, tools, usage, errors."""

from __future__ import annotations

from typing import Any

import pytest

from bench_runner.inference.completion import (
    CompletionAssembler,
    merge_reasoning_details,
    provider_from_metadata,
    usage_from,
)
from bench_runner.inference.errors import ModelError
from bench_runner.inference.types import ToolCall


def chunk(delta: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    frame: dict[str, Any] = {"id": "gen-42", "object": "chat.completion.chunk", **extra}
    if delta is not None:
        frame["choices"] = [{"index": 0, "delta": delta, "finish_reason": None}]
    return frame


def test_content_reasoning_and_finish_reason() -> None:
    a = CompletionAssembler()
    a.add_chunk(chunk({"role": "assistant", "content": ""}, provider="Fireworks"))
    a.add_chunk(chunk({"reasoning": "think"}))
    a.add_chunk(chunk({"reasoning_content": "ing"}))
    a.add_chunk(chunk({"content": "Answer: "}))
    a.add_chunk(chunk({"content": "B"}))
    a.add_chunk({"id": "gen-42", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    assert "".join(a.content) == "Answer: B"
    assert "".join(a.reasoning) == "thinking"
    assert a.finish_reason == "stop"
    assert a.provider == "Fireworks"
    assert a.generation_id == "gen-42"


def test_tool_call_deltas_merge_by_index() -> None:
    a = CompletionAssembler()
    a.add_chunk(
        chunk(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_a", "function": {"name": "get_", "arguments": ""}}
                ]
            }
        )
    )
    a.add_chunk(chunk({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "book"}}]}))
    a.add_chunk(chunk({"tool_calls": [{"index": 0, "function": {"name": "user"}}]}))
    a.add_chunk(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"id":'}}]}))
    a.add_chunk(chunk({"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]}))
    # Some providers repeat the id with every delta: it must not be doubled.
    a.add_chunk(
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "function": {"arguments": "1}"}}]})
    )
    assert a.tool_calls() == [
        ToolCall(id="call_a", name="get_user", arguments='{"id":1}'),
        ToolCall(id="call_b", name="book", arguments="{}"),
    ]
    assert len(a.tool_deltas) == 6


def test_reasoning_details_fragments_merge_by_index_and_type() -> None:
    details: list[Any] = [
        {"type": "reasoning.text", "index": 0, "text": "Let me ", "format": "x"},
        {"type": "reasoning.text", "index": 0, "text": "think", "signature": None},
        {"type": "reasoning.text", "index": 0, "signature": "sig"},
        {"type": "reasoning.encrypted", "index": 1, "data": "abc"},
    ]
    assert merge_reasoning_details(details) == [
        {
            "type": "reasoning.text",
            "index": 0,
            "text": "Let me think",
            "format": "x",
            "signature": "sig",
        },
        {"type": "reasoning.encrypted", "index": 1, "data": "abc"},
    ]


def test_usage_from_any_frame_with_reasoning_cached_tokens_and_cost() -> None:
    a = CompletionAssembler()
    a.add_chunk(chunk({"content": "x"}))
    a.add_chunk(
        {
            "id": "gen-42",
            "choices": [],
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 40,
                "total_tokens": 140,
                "completion_tokens_details": {"reasoning_tokens": 30},
                "prompt_tokens_details": {"cached_tokens": 64},
                "cost": 0.0021,
            },
        }
    )
    usage = a.usage_model(1234)
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (100, 40, 140)
    assert (usage.reasoning_tokens, usage.cache_read_tokens) == (30, 64)
    assert usage.cost == pytest.approx(0.0021)
    assert usage.generation_time_ms == 1234


def test_usage_total_defaults_to_the_sum_and_missing_usage_is_zero() -> None:
    assert usage_from({"prompt_tokens": 3, "completion_tokens": 4}, 0).total_tokens == 7
    assert usage_from(None, 9).model_dump() == {
        "input_tokens": 0,
        "output_tokens": 0,
        "total_tokens": 0,
        "reasoning_tokens": 0,
        "cache_read_tokens": 0,
        "cost": 0.0,
        "generation_time_ms": 9,
    }


def test_provider_from_openrouter_metadata() -> None:
    metadata = {
        "requested": "openai/gpt-4o",
        "endpoints": {
            "available": [
                {"provider": "Azure", "selected": False},
                {"provider": "OpenAI", "selected": True},
            ]
        },
    }
    assert provider_from_metadata(metadata) == "OpenAI"
    assert provider_from_metadata({"provider_name": "Groq"}) == "Groq"
    assert provider_from_metadata("nonsense") is None
    a = CompletionAssembler()
    a.add_chunk({"id": "g", "choices": [], "openrouter_metadata": metadata})
    assert a.provider == "OpenAI"


@pytest.mark.parametrize(
    ("frame", "status"),
    [
        ({"error": {"code": 502, "message": "upstream died"}, "choices": []}, 502),
        ({"error": {"code": "429", "message": "slow down"}}, 429),
        ({"error": {"code": "server_error", "message": "?"}}, None),
        (
            {
                "error": {"code": 503, "message": "x"},
                "choices": [{"index": 0, "delta": {}, "finish_reason": "error"}],
            },
            503,
        ),
        ({"choices": [{"index": 0, "delta": {}, "finish_reason": "error"}]}, None),
    ],
)
def test_error_frames_raise_with_the_numeric_code_as_status(
    frame: dict[str, Any], status: int | None
) -> None:
    a = CompletionAssembler()
    a.add_chunk(chunk({"content": "partial"}))
    with pytest.raises(ModelError) as caught:
        a.add_chunk(frame)
    assert caught.value.status == status
    assert caught.value.stage == "response_processing"
    assert caught.value.retryable


def test_json_body_completion() -> None:
    a = CompletionAssembler()
    a.add_body(
        {
            "id": "gen-9",
            "provider": "DeepInfra",
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "message": {
                        "content": None,
                        "reasoning": "plan",
                        "tool_calls": [
                            {"id": "c1", "function": {"name": "f", "arguments": "{}"}},
                            {"id": "c2", "function": {"name": "g", "arguments": "[]"}},
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 5, "completion_tokens": 2},
        }
    )
    assert a.content == []
    assert a.reasoning == ["plan"]
    assert [c.name for c in a.tool_calls()] == ["f", "g"]
    assert a.finish_reason == "tool_calls"
    assert a.provider == "DeepInfra"
    assert a.usage_model(0).total_tokens == 7


def test_json_body_with_error_and_no_choices_has_the_code_as_status() -> None:
    with pytest.raises(ModelError) as caught:
        CompletionAssembler().add_body({"error": {"code": 401, "message": "User not found"}})
    assert caught.value.status == 401
    assert caught.value.outcome == "fatal"


@pytest.mark.parametrize("body", [{"object": "chat.completion"}, {"choices": []}, [1, 2], "text"])
def test_unusable_bodies_are_status_less_and_retryable(body: Any) -> None:
    with pytest.raises(ModelError) as caught:
        CompletionAssembler().add_body(body)
    assert caught.value.status is None
    assert caught.value.stage == "response_processing"
    assert caught.value.outcome == "skip"


def test_content_parts_lists_are_joined() -> None:
    a = CompletionAssembler()
    a.add_body(
        {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"text": "b"}]}}]}
    )
    assert a.content == ["ab"]


def test_take_deltas_returns_only_what_is_new() -> None:
    a = CompletionAssembler()
    a.add_chunk(chunk({"content": "a", "reasoning": "r"}))
    assert a.has_pending_deltas()
    assert a.take_deltas() == ("a", "r", [], [])
    assert not a.has_pending_deltas()
    a.add_chunk(
        chunk({"content": "b", "tool_calls": [{"index": 0, "function": {"arguments": "{"}}]})
    )
    content, reasoning, details, tools = a.take_deltas()
    assert (content, reasoning, details) == ("b", "", [])
    assert tools == [{"index": 0, "function": {"arguments": "{"}}]
