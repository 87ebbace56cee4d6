"""Fault tests of the managed stack (issue 3, "Tests"): every service is a real process.

Each test runs 594 evaluations (198 invented GPQA rows x 3 epochs, concurrency 64) on two
runner processes against the fake model (0.15 s per response), breaks one thing about half
way (MySQL a quarter of the way, so that the run ends during the outage), and then checks
(see `checks.py`) that the run succeeded, that every (sample, epoch) was counted exactly
once, and that MySQL holds exactly what BENCH_EVENTS says.
"""

from __future__ import annotations

import asyncio
import time

import nats.errors
import nats.js.errors
import pytest

from bench_api.adapters.event_source import DURABLE as PROJECTOR_CONSUMER
from bench_common.bus import KEYS_BUCKET, last_event
from bench_common.envelope import STREAM_EVENTS, deterministic_event_id
from bench_common.events import (
    RunAbortRequested,
    RunFinished,
    RunRequested,
    SampleDispatched,
    SampleStarted,
)
from bench_common.ids import new_id
from tests.e2e.managed.checks import assert_counted_once, assert_mysql_matches
from tests.e2e.managed.conftest import CONCURRENCY, EPOCHS, EVALUATIONS
from tests.support.stack import CompletionWatch, ManagedStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

MYSQL_DOWN_S = 20.0
CATCH_UP_S = 30.0
"""Catching up on the ~2,000 events of the outage takes 1-4 s; this is a generous bound."""
PROJECTOR_STALL = (
    "api projector stalls after MySQL returns (nats-server 2.9.10): an event it NAKed with a "
    "delay is dropped from the consumer's redelivery queue when the pull request it was meant "
    "for has expired (server/consumer.go loopAndGatherMsgs only does `o.sseq--`), so it comes "
    "back only after the `projector` consumer's 60 s ack wait, and the projector, folding "
    "strictly in order and NAKing every later event for 0.2 s, waits behind it"
)


async def start_run(stack: ManagedStack) -> tuple[str, CompletionWatch]:
    """Submit the 594-evaluation run, watching its completions from the first one."""
    run_id = new_id()
    watch = await stack.watch_completions(run_id)
    await stack.submit(stack.run_config(epochs=EPOCHS, concurrency=CONCURRENCY), run_id=run_id)
    return run_id, watch


def half_way(watch: CompletionWatch) -> bool:
    """Half the evaluations counted, and both runners among those who did them."""
    return len(watch.keys) >= EVALUATIONS // 2 and len(watch.by_runner) == 2


async def test_a_runner_killed_half_way_leaves_its_items_to_the_other(
    stack: ManagedStack,
) -> None:
    run_id, watch = await start_run(stack)
    await watch.until(half_way, timeout=60)
    await stack.kill("runner-1")

    finished = await stack.wait_finished(run_id)
    counted = await assert_counted_once(stack, run_id, finished, expected=EVALUATIONS)

    # runner-1 died holding items (started, never completed by it); runner-2 got them after
    # the ack wait and completed them.
    completed_by = {key: event.runner_id for key, (_, event) in counted.first.items()}
    taken_over = {
        (event.sample_id, event.epoch)
        for _, event in await stack.events_of(run_id, SampleStarted)
        if event.runner_id == "runner-1"
        and completed_by[(event.sample_id, event.epoch)] == "runner-2"
    }
    assert taken_over, "no item of the killed runner was redelivered to the other"
    runner_1 = stack.service("runner-1").process
    assert runner_1 is not None and runner_1.returncode == -9  # not restarted meanwhile
    await assert_mysql_matches(stack, run_id, counted)


async def test_a_scheduler_killed_half_way_and_restarted_rebuilds_and_finishes_the_run(
    stack: ManagedStack,
) -> None:
    run_id, watch = await start_run(stack)
    await watch.until(half_way, timeout=60)
    await stack.kill("scheduler")

    # Without a scheduler the runners drain what was dispatched, then nothing moves: no new
    # credits, no RunFinished.
    await asyncio.sleep(1.5)
    assert await last_event(stack.js, RunFinished, run_id) is None
    assert len(watch.keys) < EVALUATIONS

    await stack.restart("scheduler")
    finished = await stack.wait_finished(run_id)
    counted = await assert_counted_once(stack, run_id, finished, expected=EVALUATIONS)

    scheduler = stack.service("scheduler")
    resumed = scheduler.log_events("scheduler resumed")
    assert [(r["runs"], r["active"]) for r in resumed] == [(0, 0), (1, 1)]  # first and second life
    assert len(scheduler.log_events("run finished")) == 1  # by the restarted scheduler
    # Every planned item was dispatched; a copy in the record is the same fact re-published.
    dispatched = await stack.events_of(run_id, SampleDispatched)
    assert {(e.sample_id, e.epoch) for _, e in dispatched} == set(counted.first)
    assert all(
        e.event_id == deterministic_event_id(run_id, e.sample_id, e.epoch, "dispatched")
        for _, e in dispatched
    )
    await assert_mysql_matches(stack, run_id, counted)


async def test_mysql_down_for_20_seconds_the_run_goes_on_and_the_projection_catches_up(
    stack: ManagedStack,
) -> None:
    run_id, watch = await start_run(stack)
    await watch.until(lambda w: len(w.keys) >= EVALUATIONS // 4, timeout=60)
    await stack.cut_mysql()
    cut_at = time.monotonic()

    finished = await stack.wait_finished(run_id)  # nothing in the run needs MySQL
    assert time.monotonic() - cut_at < MYSQL_DOWN_S, "the run should end while MySQL is down"
    health = await stack.health()
    deadline = time.monotonic() + 10
    while (health is None or health[0] != 503) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        health = await stack.health()
    assert health is not None and health[0] == 503, health  # the api reports the outage
    # The events wait in JetStream: the committed position is behind the stream's end and
    # MySQL does not know the run is over.
    [(position,)] = await stack.sql("SELECT last_seq FROM projection_position")
    assert position < await stack.last_seq()
    assert (
        await stack.sql("SELECT 1 FROM runs WHERE id = %s AND status = 'succeeded'", run_id) == []
    )

    await asyncio.sleep(max(0.0, cut_at + MYSQL_DOWN_S - time.monotonic()))
    await stack.restore_mysql()
    counted = await assert_counted_once(stack, run_id, finished, expected=EVALUATIONS)
    try:
        await stack.wait_projected(await stack.last_seq(), timeout=CATCH_UP_S)
    except AssertionError:
        if await projector_stalled(stack):
            pytest.xfail(PROJECTOR_STALL)
        raise
    await assert_mysql_matches(stack, run_id, counted)
    health = await stack.health()
    assert health is not None and health[0] == 200, health


async def test_nats_restarted_half_way_the_run_finishes_on_the_sessions_already_open(
    stack: ManagedStack,
) -> None:
    run_id, watch = await start_run(stack)
    requested = await last_event(stack.js, RunRequested, run_id)
    assert requested is not None
    key_id = requested.credentials["api_key"].key_id
    # Both runners must have opened the run (they hold its credentials in memory) before the
    # restart: the data keys live in a memory KV bucket, which a restart wipes.
    await watch.until(half_way, timeout=60)
    await stack.restart_nats()

    assert await stored_data_key(stack, key_id) is None, "a restart wipes memory storage"
    # So a runner that had not opened the run could not open it now (it would abort the run
    # with "resubmit"); the two that had go on with the sessions they hold, and the file
    # streams (BENCH_EVENTS, BENCH_WORK) and durable consumers survive the restart.
    finished = await stack.wait_finished(run_id, timeout=90)
    assert await stack.events_of(run_id, RunAbortRequested) == []
    counted = await assert_counted_once(stack, run_id, finished, expected=EVALUATIONS)
    await assert_mysql_matches(stack, run_id, counted)


async def stored_data_key(stack: ManagedStack, key_id: str, timeout: float = 20.0) -> bytes | None:
    """The run's data key in BENCH_RUN_KEYS, or None; retried while the client reconnects."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            kv = await stack.js.key_value(KEYS_BUCKET)
            entry = await kv.get(key_id)
            return entry.value
        except (nats.js.errors.BucketNotFoundError, nats.js.errors.KeyNotFoundError):
            return None
        except (nats.errors.Error, TimeoutError):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.2)


async def projector_stalled(stack: ManagedStack) -> bool:
    """The signature of the stall: the api is healthy (MySQL reachable, no error), JetStream
    has delivered every event to the projector, yet events stay unacknowledged and the
    committed position stays behind the stream's end."""
    health = await stack.health()
    info = await stack.js.consumer_info(STREAM_EVENTS, PROJECTOR_CONSUMER)
    [(position,)] = await stack.sql("SELECT last_seq FROM projection_position")
    return (
        health is not None
        and health[0] == 200
        and info.num_pending == 0
        and info.num_ack_pending > 0
        and position < await stack.last_seq()
    )
