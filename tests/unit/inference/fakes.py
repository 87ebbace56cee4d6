"""Test doubles for the inference client: a sink that keeps records, a sleep that doesn't."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from bench_common.attempts import AttemptCompleted, AttemptRecord, AttemptStarted
from bench_common.run_config import InferenceOptions
from bench_runner.benchmarks.base import Endpoint
from bench_runner.fake_model import FakeModelServer, Reply
from bench_runner.inference import (
    CallContext,
    ChatModel,
    ChatRequest,
    RetryNotice,
    create_client_session,
    make_chat_model,
)

API_KEY = "sk-or-v1-test-key-3f9a1c0d"
SESSION_ID = "run-123"
CALL = CallContext(sample_id="gpqa_diamond-7", epoch=2)


def user_request(text: str = "What is 2 + 2?", **kwargs: Any) -> ChatRequest:
    """A one-message request."""
    return ChatRequest(messages=[{"role": "user", "content": text}], **kwargs)


class FakeAttemptSink:
    """Keeps every attempt record, in order."""

    def __init__(self) -> None:
        self.records: list[AttemptRecord] = []

    async def record(self, record: AttemptRecord) -> None:
        self.records.append(record)

    def of(self, event: str) -> list[AttemptRecord]:
        """Records of one kind (`started`, `progress`, `completed`)."""
        return [r for r in self.records if r.event == event]

    def completed(self) -> list[AttemptCompleted]:
        """The completed records."""
        return [r for r in self.records if isinstance(r, AttemptCompleted)]

    def started(self) -> list[AttemptStarted]:
        """The started records."""
        return [r for r in self.records if isinstance(r, AttemptStarted)]


class FakeSleep:
    """An injected `sleep` that returns at once and remembers what it was asked to wait."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


@dataclass
class Harness:
    """A fake server and a client pointed at it, with everything the client reported."""

    server: FakeModelServer
    model: ChatModel
    sink: FakeAttemptSink
    sleep: FakeSleep
    notices: list[RetryNotice] = field(default_factory=list)


@asynccontextmanager
async def harness(
    replies: list[Reply] | None = None,
    *,
    options: InferenceOptions | None = None,
    model: str = "openai/gpt-4o-mini",
    base_suffix: str = "",
) -> AsyncIterator[Harness]:
    """Start a fake server with `replies` and build a client for it (jitter fixed at 1.0)."""
    sink, sleep = FakeAttemptSink(), FakeSleep()
    notices: list[RetryNotice] = []
    async with FakeModelServer(replies or []) as server, create_client_session(8) as session:
        client = make_chat_model(
            Endpoint(base_url=server.base_url + base_suffix, model=model, api_key=API_KEY),
            options or InferenceOptions(),
            session=session,
            session_id=SESSION_ID,
            sink=sink,
            on_retry=notices.append,
            sleep=sleep,
            uniform=lambda low, high: 1.0,
        )
        yield Harness(server=server, model=client, sink=sink, sleep=sleep, notices=notices)
