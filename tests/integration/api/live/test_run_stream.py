"""`GET /runs/{id}/events` over a real server and NATS: history then live, both streams
merged, and `Last-Event-ID` resuming with no gaps and no repeats (from memory or from NATS,
on the same replica or another)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from nats.js import JetStreamContext

from bench_common.attempts import AttemptProgressed
from bench_common.bus import publish
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, Event, utc_now
from bench_common.events import RequestAttemptProgressed, SampleStarted
from tests.integration.api.live.conftest import TOKEN, LiveApi
from tests.support.projection_events import synthetic_run
from tests.support.sse import SseEvent, read_events, stream_headers

pytestmark = pytest.mark.integration
Factory = Callable[..., Awaitable[LiveApi]]
LIVE_EVENTS = {"request_attempt_progressed"}


def delta(run_id: str, n: int) -> RequestAttemptProgressed:
    record = AttemptProgressed(
        request_id=f"q-{run_id}-{n % 7}", call_id="c", session_id="s", attempt=1, model="m",
        url="http://model/v1", started_at=utc_now(), observed_at=utc_now(), elapsed_ms=n,
        received_bytes=10 * n, content_delta=f"token {n} ",
    )  # fmt: skip
    return RequestAttemptProgressed(run_id=run_id, record=record)


async def publish_all(js: JetStreamContext, events: list[Event]) -> dict[str, list[int]]:
    """Publish in order; the sequences of each stream."""
    seqs: dict[str, list[int]] = {STREAM_EVENTS: [], STREAM_LIVE: []}
    for event in events:
        seqs[event.stream].append(await publish(js, event))
    return seqs


def position(event: SseEvent) -> tuple[str, int]:
    stream = STREAM_LIVE if event.event in LIVE_EVENTS else STREAM_EVENTS
    return stream, int(event.json()["seq"])


async def collect(
    client: httpx.AsyncClient,
    url: str,
    *,
    last_event_id: str | None = None,
    stop: Callable[[list[SseEvent]], bool],
    timeout: float = 15.0,
    idle: float | None = None,
) -> list[SseEvent]:
    """Read events until `stop(events)` holds (or nothing came for `idle` s), then hang up."""
    got: list[SseEvent] = []
    headers = stream_headers(TOKEN, last_event_id)
    async with asyncio.timeout(timeout), client.stream("GET", url, headers=headers) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        events = read_events(response)
        while True:
            try:
                event = await asyncio.wait_for(anext(events), idle)
            except (TimeoutError, StopAsyncIteration):
                break
            got.append(event)
            if stop(got):
                break
    return got


def data_events(events: list[SseEvent]) -> list[SseEvent]:
    return [e for e in events if e.event != "ready"]


def at_least(count: int) -> Callable[[list[SseEvent]], bool]:
    """Stop once `count` data events arrived."""
    return lambda got: len(data_events(got)) >= count


async def test_history_then_live_from_both_streams_with_ids_that_resume(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient
) -> None:
    api = await api_factory()
    first = synthetic_run("run-a", finish=False)
    other = synthetic_run("run-b", samples=1, epochs=1)
    mixed: list[Event] = []
    for i, event in enumerate(first):
        mixed.append(event)
        if i % 3 == 0:
            mixed.append(delta("run-a", i))
        if i < len(other):
            mixed.append(other[i])
    seqs = await publish_all(js, mixed)
    mine = {(STREAM_EVENTS, s) for e, s in zip(
        [e for e in mixed if e.stream == STREAM_EVENTS], seqs[STREAM_EVENTS], strict=True
    ) if e.run_id == "run-a"} | {(STREAM_LIVE, s) for s in seqs[STREAM_LIVE]}  # fmt: skip

    url = f"{api.url}/runs/run-a/events"
    history = await collect(client, url, stop=lambda got: got[-1].event == "ready")
    received = [position(e) for e in data_events(history)]
    assert len(received) == len(set(received))
    assert set(received) == mine
    events_part = [seq for stream, seq in received if stream == STREAM_EVENTS]
    assert events_part == sorted(events_part)  # each stream in order
    last_events = max(s for st, s in received if st == STREAM_EVENTS)
    last_live = max(s for st, s in received if st == STREAM_LIVE)
    assert history[-1].id == f"{last_events}-{last_live}"  # ready carries the cursor
    names = {e.event for e in history}
    expected_names = {
        "run_requested", "sample_completed", "request_attempt_started",
        "request_attempt_completed", "request_attempt_progressed", "ready",
    }  # fmt: skip
    assert expected_names <= names

    # Live: what is published after the client joined arrives, on the same connection.
    async def later() -> None:
        await asyncio.sleep(0.3)
        await publish(js, delta("run-a", 1000))
        await publish(js, SampleStarted(run_id="run-a", sample_id="s9", epoch=0, runner_id="r"))

    task = asyncio.create_task(later())
    tail = await collect(
        client, url, last_event_id=history[-1].id, stop=lambda got: len(data_events(got)) >= 2
    )
    await task
    assert [e.event for e in data_events(tail)] == ["request_attempt_progressed", "sample_started"]
    assert data_events(tail)[0].json()["contentDelta"] == "token 1000 "


@pytest.mark.parametrize("log_bytes", [64 * 1024 * 1024, 2_000], ids=["from-memory", "from-nats"])
async def test_reconnecting_anywhere_while_events_flow_loses_and_repeats_nothing(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient, log_bytes: int
) -> None:
    """A client hangs up after a random number of events and resumes from its last id, on
    alternating replicas, while a producer keeps publishing to both streams."""
    replicas = [await api_factory(max_log_bytes=log_bytes) for _ in range(2)]
    run = synthetic_run("run-r", samples=4, epochs=2, finish=False)
    await publish_all(js, run[:10])
    produced: dict[str, list[int]] = {STREAM_EVENTS: [], STREAM_LIVE: []}

    async def producer() -> None:
        extra: list[Event] = []
        for i, event in enumerate(run[10:]):
            extra += [event, delta("run-r", i)]
        for event in extra:
            produced[event.stream].append(await publish(js, event))
            await asyncio.sleep(0.01)

    rng = random.Random(7)
    task = asyncio.create_task(producer())
    seen: list[tuple[str, int]] = []
    last_id: str | None = None
    sessions = 0

    def total() -> int:
        return 10 + sum(map(len, produced.values()))

    while not (task.done() and sessions > 3 and len(seen) >= total()):
        api = replicas[sessions % 2]
        want = rng.randint(1, 12)
        url = f"{api.url}/runs/run-r/events"
        got = await collect(client, url, last_event_id=last_id, stop=at_least(want), idle=1.0)
        seen += [position(e) for e in data_events(got)]
        ids = [e.id for e in got if e.id]
        last_id = ids[-1] if ids else last_id
        sessions += 1
        assert sessions < 200
    await task
    assert len(seen) == len(set(seen)), "an event was delivered twice"
    expected_events = 10 + len(produced[STREAM_EVENTS])
    assert len([p for p in seen if p[0] == STREAM_EVENTS]) == expected_events
    assert {p for p in seen if p[0] == STREAM_LIVE} == {
        (STREAM_LIVE, s) for s in produced[STREAM_LIVE]
    }


async def test_refusals_unknown_runs_and_bad_ids(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient
) -> None:
    api = await api_factory()
    await publish_all(js, synthetic_run("run-x", samples=1, epochs=1))
    async with httpx.AsyncClient() as anonymous:
        for path in ("/runs/events", "/runs/run-x/events"):
            response = await anonymous.get(f"{api.url}{path}")
            assert response.status_code == 401 and response.json() == {"error": "unauthorized"}
    assert (await client.get(f"{api.url}/runs/nope/events")).status_code == 404
    assert (await client.get(f"{api.url}/runs/a.b/events")).status_code == 404
    bad = await client.get(f"{api.url}/runs/run-x/events", headers={"Last-Event-ID": "12"})
    assert bad.status_code == 400 and "123-45" in bad.json()["error"]
    bad = await client.get(f"{api.url}/runs/events", headers={"Last-Event-ID": "1-2"})
    assert bad.status_code == 400


async def test_stopping_the_server_ends_open_streams_at_once(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient
) -> None:
    api = await api_factory()
    await publish_all(js, synthetic_run("run-s", samples=1, epochs=1, finish=False))
    ended = asyncio.Event()

    async def reader() -> None:
        async with client.stream("GET", f"{api.url}/runs/run-s/events") as response:
            async for _ in read_events(response):
                pass
        ended.set()

    task = asyncio.create_task(reader())
    await asyncio.sleep(0.5)
    started = asyncio.get_running_loop().time()
    await api.stop()
    await asyncio.wait_for(ended.wait(), 5)
    assert asyncio.get_running_loop().time() - started < 3
    await task


async def test_topics_are_shared_and_closed_when_idle(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient
) -> None:
    api = await api_factory()
    await publish_all(js, synthetic_run("run-t", samples=1, epochs=1))
    url = f"{api.url}/runs/run-t/events"
    results: list[Any] = await asyncio.gather(
        *(collect(client, url, stop=lambda got: got[-1].event == "ready") for _ in range(5))
    )
    assert all([e.id for e in r] == [e.id for e in results[0]] for r in results)
    assert api.hub.stats()["topics"] == 1
    await asyncio.sleep(1.0)
    assert api.hub.stats() == {"topics": 0, "clients": 0}
