"""Dispatch credits: outstanding never exceeds the run's concurrency (6 for sandboxes)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench_common.envelope import deterministic_event_id
from bench_common.events import RunAbortRequested, RunCancelRequested
from bench_scheduler.dispatch import SANDBOX_BENCHMARKS, credit_limit, take_dispatches
from bench_scheduler.state import SchedulerState
from tests.unit.scheduler.fakes import admitted_run, completed, config


@pytest.mark.parametrize("benchmark", sorted(SANDBOX_BENCHMARKS))
def test_sandbox_benchmarks_are_capped_at_6(benchmark: str) -> None:
    assert credit_limit(config(benchmark=benchmark, concurrency=50)) == 6
    assert credit_limit(config(benchmark=benchmark, concurrency=2)) == 2


def test_model_benchmarks_use_their_concurrency() -> None:
    assert credit_limit(config(concurrency=64)) == 64


def test_first_dispatch_fills_the_credits_in_sample_epoch_order() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=3, epochs=2, concurrency=3)
    items = take_dispatches(state.runs["r1"])
    assert [(i.sample_id, i.epoch, i.sample_index) for i in items] == [
        ("q0", 0, 0), ("q0", 1, 0), ("q1", 0, 1),
    ]  # fmt: skip
    assert items[0].event_id == deterministic_event_id("r1", "q0", 0, "dispatched")


def test_taking_is_pure_until_folded() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=3)
    run = state.runs["r1"]
    ids = [i.event_id for i in take_dispatches(run)]
    assert ids == [i.event_id for i in take_dispatches(run)]
    for item in take_dispatches(run):
        state.apply(item)
    assert take_dispatches(run) == []


def test_each_completion_frees_one_credit() -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=4, epochs=1, concurrency=2)
    run = state.runs["r1"]
    first = take_dispatches(run)
    for item in first:
        state.apply(item)
    state.apply(completed(first[1]))
    refill = take_dispatches(run)
    assert [(i.sample_id, i.epoch) for i in refill] == [("q2", 0)]


@pytest.mark.parametrize(
    "stop", [RunCancelRequested(run_id="r1"), RunAbortRequested(run_id="r1", reason="bad key")]
)
def test_nothing_is_dispatched_once_the_run_is_stopping(
    stop: RunCancelRequested | RunAbortRequested,
) -> None:
    state = SchedulerState()
    admitted_run(state, "r1", samples=4)
    state.apply(stop)
    assert take_dispatches(state.runs["r1"]) == []


def test_nothing_is_dispatched_before_the_plan() -> None:
    state = SchedulerState()
    admitted_run(state, "r1")
    assert take_dispatches(state.runs["r1"]) == []


@settings(max_examples=60, deadline=None)
@given(
    samples=st.integers(1, 12),
    epochs=st.integers(1, 3),
    concurrency=st.integers(1, 8),
    seed=st.integers(0, 10_000),
)
def test_outstanding_never_exceeds_concurrency(
    samples: int, epochs: int, concurrency: int, seed: int
) -> None:
    """Completions in any order: every evaluation is dispatched once, credits always hold."""
    rng = random.Random(seed)
    state = SchedulerState()
    admitted_run(state, "r1", samples=samples, epochs=epochs, concurrency=concurrency)
    run = state.runs["r1"]
    dispatched: list[tuple[str, int]] = []
    in_flight = []
    while True:
        for item in take_dispatches(run):
            state.apply(item)
            dispatched.append((item.sample_id, item.epoch))
            in_flight.append(item)
        assert len(run.outstanding) <= concurrency
        if not in_flight:
            break
        done = in_flight.pop(rng.randrange(len(in_flight)))
        state.apply(completed(done, rng.choice(["C", "I", "S"])))
    assert sorted(dispatched) == sorted(run.item_at(p) for p in range(run.total))
    assert len(run.scores) == run.total
