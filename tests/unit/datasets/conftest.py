"""Fixtures of the dataset tests: small rows, a fake rows server, a sleep that only records."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from bench_runner.datasets import HfRowsClient, RetryPolicy
from bench_runner.datasets.fake_rows_server import FakeRowsServer


@pytest.fixture
def rows() -> list[dict[str, Any]]:
    """Seven small rows with text that JSON and templates treat specially."""
    return [{"Question": f"q{i}", "n": i, "text": f"line\n{i} $& {{}}"} for i in range(7)]


@pytest.fixture
def delays() -> list[float]:
    """Delays passed to `record_sleep`, in order."""
    return []


@pytest.fixture
def record_sleep(delays: list[float]) -> Callable[[float], Awaitable[None]]:
    """An injected `sleep` that records the delay instead of waiting."""

    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    return sleep


@pytest.fixture
async def server(rows: list[dict[str, Any]]) -> AsyncIterator[FakeRowsServer]:
    async with FakeRowsServer(rows) as running:
        yield running


@pytest.fixture
def client(
    server: FakeRowsServer, record_sleep: Callable[[float], Awaitable[None]]
) -> HfRowsClient:
    """A client of `server` with pages of 3 rows, no jitter and recorded sleeps."""
    return HfRowsClient(
        base_url=server.url,
        page_size=3,
        retry=RetryPolicy(),
        sleep=record_sleep,
        jitter=lambda: 0.0,
    )
