"""The fake server speaks the wire format clients expect, and records what it was sent."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest

from bench_runner.fake_model import (
    FakeModelServer,
    HttpError,
    MultipleChoiceResponder,
    RecordedRequest,
    Reply,
    choose_letter,
)

BODY: dict[str, Any] = {
    "model": "m",
    "stream": True,
    "messages": [{"role": "user", "content": "Q?\n\nA) 1\nB) 2\nC) 3\nD) 4"}],
}


async def post(
    server: FakeModelServer, body: dict[str, Any], **headers: str
) -> tuple[int, dict[str, str], bytes]:
    async with (
        aiohttp.ClientSession() as session,
        session.post(server.base_url + "/chat/completions", json=body, headers=headers) as response,
    ):
        return response.status, dict(response.headers), await response.read()


def content_of(raw: bytes) -> str:
    frames = data_frames(raw)
    return "".join(f["choices"][0]["delta"].get("content", "") for f in frames if f["choices"])


def data_frames(raw: bytes) -> list[Any]:
    frames = []
    for event in raw.decode().split("\n\n"):
        if event.startswith("data: ") and event != "data: [DONE]":
            frames.append(json.loads(event[6:]))
    return frames


async def test_stream_has_comments_provider_usage_chunk_and_done() -> None:
    async with FakeModelServer([Reply(content="Hello world", reasoning="r", cost=0.5)]) as server:
        status, headers, raw = await post(server, BODY)
    assert status == 200
    assert headers["Content-Type"].startswith("text/event-stream")
    assert raw.startswith(b": OPENROUTER PROCESSING\n\n")
    assert raw.endswith(b"data: [DONE]\n\n")
    frames = data_frames(raw)
    assert all(f["provider"] == "FakeProvider" for f in frames)
    assert len({f["id"] for f in frames}) == 1
    deltas = [f["choices"][0]["delta"] for f in frames if f["choices"]]
    assert "".join(d.get("content", "") for d in deltas) == "Hello world"
    assert "".join(d.get("reasoning", "") for d in deltas) == "r"
    last = frames[-1]
    assert last["choices"] == []
    assert last["usage"]["cost"] == 0.5
    assert last["usage"]["completion_tokens_details"]["reasoning_tokens"] == 1


async def test_non_streaming_request_gets_a_json_completion() -> None:
    async with FakeModelServer([Reply(content="Answer: C")]) as server:
        status, headers, raw = await post(server, {**BODY, "stream": False})
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    body = json.loads(raw)
    assert body["choices"][0]["message"]["content"] == "Answer: C"
    assert body["usage"]["total_tokens"] > 0


async def test_requests_are_recorded_with_headers_and_body() -> None:
    async with FakeModelServer() as server:
        await post(server, BODY, **{"x-session-id": "abc"})
    [recorded] = server.requests
    assert recorded.body == BODY
    assert recorded.headers["x-session-id"] == "abc"
    assert recorded.path == "/v1/chat/completions"


async def test_http_fault_with_retry_after() -> None:
    async with FakeModelServer([Reply(fault=HttpError(429, "slow", retry_after="7"))]) as server:
        status, headers, raw = await post(server, BODY)
    assert status == 429
    assert headers["Retry-After"] == "7"
    assert json.loads(raw) == {"error": {"code": 429, "message": "slow"}}


async def test_api_key_and_known_models() -> None:
    async with FakeModelServer(api_key="good", known_models=["m"]) as server:
        assert (await post(server, BODY))[0] == 401
        assert (await post(server, BODY, Authorization="Bearer good"))[0] == 200
        assert (await post(server, {**BODY, "model": "nope"}, Authorization="Bearer good"))[
            0
        ] == 404


async def test_unknown_path_is_404() -> None:
    async with (
        FakeModelServer() as server,
        aiohttp.ClientSession() as session,
        session.post(server.base_url + "/embeddings", json={}) as response,
    ):
        assert response.status == 404


async def test_script_then_callable_then_enqueue() -> None:
    def choose(request: RecordedRequest) -> Reply:
        return Reply(content=f"echo {request.body['model']}")

    async with FakeModelServer(choose) as server:
        server.enqueue(Reply(content="first"))
        first = content_of((await post(server, BODY))[2])
        second = content_of((await post(server, BODY))[2])
    assert (first, second) == ("first", "echo m")


async def test_default_responder_streams_tokens_over_the_duration() -> None:
    responder = MultipleChoiceResponder(tokens=20, duration=0.3)
    async with FakeModelServer(responder=responder) as server:
        began = time.perf_counter()
        _, _, raw = await post(server, BODY)
        elapsed = time.perf_counter() - began
    content = content_of(raw)
    assert content.endswith(f"Answer: {choose_letter(BODY['messages'][0]['content'])}")
    assert content.count("think") == 19
    assert 0.3 <= elapsed < 1.5


@pytest.mark.parametrize(
    ("prompt", "letters"),
    [("Q\n\nA) a\nB) b\nC) c\nD) d", "ABCD"), ("Q\n(A) a\n(B) b", "AB"), ("no options", "ABCD")],
)
def test_choose_letter_is_deterministic_and_among_the_options(prompt: str, letters: str) -> None:
    assert choose_letter(prompt) in letters
    assert choose_letter(prompt) == choose_letter(prompt)


async def test_many_concurrent_streams() -> None:
    responder = MultipleChoiceResponder(tokens=16, duration=0.2)
    async with (
        FakeModelServer(responder=responder, record=False) as server,
        aiohttp.ClientSession() as session,
    ):

        async def one() -> bytes:
            async with session.post(server.base_url + "/chat/completions", json=BODY) as response:
                return await response.read()

        began = time.perf_counter()
        bodies = await asyncio.gather(*(one() for _ in range(100)))
        elapsed = time.perf_counter() - began
    assert all(body.endswith(b"data: [DONE]\n\n") for body in bodies)
    assert server.served == 100
    assert server.requests == []
    assert elapsed < 3
