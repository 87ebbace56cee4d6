"""Encoding a reply as SSE frames or as one JSON body, the way OpenRouter sends them.

A frame is a per-response byte prefix and suffix around a small JSON delta. The deltas of a
reply are encoded once (and cached: benchmark replies repeat the same tokens) and frames are
assembled only when written, so a burst of hundreds of new streams costs the server little.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bench_runner.fake_model.script import RecordedRequest, Reply, chunks_of

COMMENT = b": OPENROUTER PROCESSING\n\n"
_ROLE_DELTA = b'{"role":"assistant","content":""}'
DONE = b"data: [DONE]\n\n"
CREATED = 1_767_225_600


@dataclass(frozen=True)
class StreamPlan:
    """The frames of one streamed reply: `len(plan)` body frames paced over the duration,
    then `tail` (the finish frame, the usage frame and `[DONE]`)."""

    prefix: bytes
    suffix: bytes
    deltas: Sequence[bytes]
    tail: list[bytes]

    def __len__(self) -> int:
        return len(self.deltas)

    def frames(self, start: int, end: int) -> bytes:
        """Body frames `start` to `end` (exclusive), as one byte string."""
        prefix, suffix = self.prefix, self.suffix
        if end == start + 1:
            return prefix + self.deltas[start] + suffix
        return b"".join(prefix + delta + suffix for delta in self.deltas[start:end])


def _dumps(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


@lru_cache(maxsize=256)
def _text_deltas(key: str, pieces: tuple[str, ...]) -> tuple[bytes, ...]:
    # Benchmark replies repeat the same few token sequences: encode each sequence once.
    return tuple(_dumps({key: piece}) for piece in pieces)


def usage_for(
    reply: Reply, request: RecordedRequest, *, content: int, reasoning: int
) -> dict[str, Any]:
    """The reply's `usage`, or one computed from the prompt and the chunk counts."""
    if reply.usage is not None:
        return reply.usage
    prompt_chars = sum(len(str(m.get("content") or "")) for m in request.body.get("messages") or [])
    prompt = prompt_chars // 4 + 1
    completion = content + reasoning
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "completion_tokens_details": {"reasoning_tokens": reasoning},
        "prompt_tokens_details": {"cached_tokens": 0},
        "cost": reply.cost,
    }


def _finish_reason(reply: Reply) -> str:
    if reply.finish_reason is not None:
        return reply.finish_reason
    return "tool_calls" if reply.tool_calls else "stop"


def _tool_call_deltas(reply: Reply) -> list[list[dict[str, Any]]]:
    deltas: list[list[dict[str, Any]]] = []
    for index, call in enumerate(reply.tool_calls):
        pieces = _split(call.arguments, max(call.chunks, 1))
        for position, piece in enumerate(pieces):
            entry: dict[str, Any] = {"index": index, "function": {"arguments": piece}}
            if position == 0:
                entry["id"] = call.id or f"call_{index}"
                entry["type"] = "function"
                entry["function"]["name"] = call.name
            deltas.append([entry])
    return deltas


def _split(text: str, parts: int) -> list[str]:
    size = max(-(-len(text) // parts), 1)
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def stream_plan(reply: Reply, request: RecordedRequest, generation_id: str) -> StreamPlan:
    """Every frame of a streamed reply, in order (assembled when written)."""
    envelope: dict[str, Any] = {
        "id": generation_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": request.body.get("model", "fake"),
    }
    if reply.provider is not None:
        envelope["provider"] = reply.provider
    head = _dumps(envelope)[:-1]
    reasoning = tuple(reply.reasoning_chunks())
    content = tuple(reply.content_chunks())
    deltas: list[bytes] = [_ROLE_DELTA]
    deltas += _text_deltas(reply.reasoning_field, reasoning)
    deltas += [_dumps({"reasoning_details": [detail]}) for detail in reply.reasoning_details]
    deltas += _text_deltas("content", content)
    deltas += [_dumps({"tool_calls": calls}) for calls in _tool_call_deltas(reply)]
    finish = (
        b"data: "
        + head
        + b',"choices":[{"index":0,"delta":{},"finish_reason":'
        + _dumps(_finish_reason(reply))
        + b"}]}\n\n"
    )
    usage = usage_for(reply, request, content=len(content), reasoning=len(reasoning))
    extras: dict[str, Any] = {"usage": usage}
    if reply.metadata is not None:
        extras["openrouter_metadata"] = reply.metadata
    final = b"data: " + head + b',"choices":[],' + _dumps(extras)[1:] + b"\n\n"
    return StreamPlan(
        prefix=b"data: " + head + b',"choices":[{"index":0,"delta":',
        suffix=b',"finish_reason":null}]}\n\n',
        deltas=deltas,
        tail=[finish, final, DONE],
    )


def error_frame(generation_id: str, code: int | str, message: str) -> bytes:
    """OpenRouter's mid-stream error chunk."""
    frame = {
        "id": generation_id,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "error": {"code": code, "message": message},
        "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": "error"}],
    }
    return b"data: " + _dumps(frame) + b"\n\n"


def completion_body(reply: Reply, request: RecordedRequest, generation_id: str) -> bytes:
    """A non-streamed `chat.completion` JSON body for the reply."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.content_chunks())}
    if reply.reasoning is not None:
        message[reply.reasoning_field] = "".join(chunks_of(reply.reasoning))
    if reply.reasoning_details:
        message["reasoning_details"] = list(reply.reasoning_details)
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for index, call in enumerate(reply.tool_calls)
        ]
    body: dict[str, Any] = {
        "id": generation_id,
        "object": "chat.completion",
        "created": CREATED,
        "model": request.body.get("model", "fake"),
        "choices": [{"index": 0, "message": message, "finish_reason": _finish_reason(reply)}],
        "usage": usage_for(
            reply,
            request,
            content=len(reply.content_chunks()),
            reasoning=len(reply.reasoning_chunks()),
        ),
    }
    if reply.provider is not None:
        body["provider"] = reply.provider
    if reply.metadata is not None:
        body["openrouter_metadata"] = reply.metadata
    return _dumps(body)


def error_body(code: int | str, message: str) -> bytes:
    """An OpenAI-style `{"error": {...}}` body."""
    return _dumps({"error": {"code": code, "message": message}})
