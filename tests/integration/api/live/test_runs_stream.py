"""`GET /runs/events`: every run's live state, from now on, resumable on any replica."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from nats.js import JetStreamContext

from bench_common.bus import publish
from bench_common.envelope import Event
from bench_common.events import RunDisabled
from tests.integration.api.live.conftest import TOKEN, LiveApi
from tests.integration.api.live.test_run_stream import collect, data_events
from tests.support.projection_events import synthetic_run

pytestmark = pytest.mark.integration
Factory = Callable[..., Awaitable[LiveApi]]


async def publish_slowly(js: JetStreamContext, events: list[Event]) -> None:
    for event in events:
        await publish(js, event)
        await asyncio.sleep(0.005)


def states(events: list[Any]) -> list[tuple[int, str, dict[str, Any]]]:
    return [(e.json()["seq"], e.json()["event"], e.json()["run"]) for e in data_events(events)]


async def test_runs_stream_reports_absolute_state_and_resumes_elsewhere_identically(
    js: JetStreamContext, api_factory: Factory, client: httpx.AsyncClient
) -> None:
    first = await api_factory()
    # A run already half-way when the stream opens: its counts must still be exact.
    before = synthetic_run("run-old", samples=3, epochs=2)
    cut = next(i for i, e in enumerate(before) if e.name == "sample_completed") + 1
    for event in before[:cut]:
        await publish(js, event)
    opened = await collect(
        client, f"{first.url}/runs/events", stop=lambda got: got[-1].event == "ready"
    )
    assert [e.event for e in opened] == ["ready"]
    start_id = opened[0].id
    assert start_id is not None and int(start_id) >= cut

    later = [
        *before[cut:],
        *synthetic_run("run-new", samples=2, epochs=1),
        RunDisabled(run_id="run-old", disabled=True),
    ]
    producer = asyncio.create_task(publish_slowly(js, later))
    whole = await collect(
        client, f"{first.url}/runs/events", last_event_id=start_id,
        stop=lambda got: any(e.event == "run" and e.json()["event"] == "run_disabled" for e in got),
    )  # fmt: skip
    await producer
    seen = states(whole)
    old = [run for _, _, run in seen if run["id"] == "run-old"]
    assert old[0]["completedEvaluations"] + old[0]["skippedEvaluations"] == 2  # history folded in
    final_old = old[-1]
    assert final_old["status"] == "succeeded" and final_old["disabled"] is True
    assert (final_old["completedEvaluations"], final_old["skippedEvaluations"]) == (5, 1)
    assert final_old["completionPercentage"] == 100.0 and final_old["qualityScore"] == 0.5
    new = [run for _, _, run in seen if run["id"] == "run-new"]
    assert [r["status"] for r in new][:1] == ["queued"] and new[-1]["status"] == "succeeded"
    assert len({seq for seq, _, _ in seen}) == len(seen)

    # Hang up part-way, resume on a fresh replica (nothing in memory: replayed from NATS).
    middle = whole[len(whole) // 2]
    second = await api_factory()
    rest = await collect(
        client, f"{second.url}/runs/events", last_event_id=middle.id,
        stop=lambda got: len(data_events(got)) >= len(data_events(whole[len(whole) // 2 + 1 :])),
    )  # fmt: skip
    assert states(rest) == states(whole[len(whole) // 2 + 1 :])
    # And on the first replica, from its memory.
    again = await collect(
        client, f"{first.url}/runs/events", last_event_id=middle.id,
        stop=lambda got: len(data_events(got)) >= len(data_events(whole[len(whole) // 2 + 1 :])),
    )  # fmt: skip
    assert states(again) == states(rest)
    assert TOKEN not in str(whole)
