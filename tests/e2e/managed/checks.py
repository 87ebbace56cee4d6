"""What every fault test asserts of its run once it is over.

1. The scheduler finished it `succeeded`, and `RunFinished.counts` add up to every planned
   evaluation.
2. BENCH_EVENTS holds a `SampleCompleted` for every planned (sample, epoch) and for nothing
   else. A key may be stored more than once only as a re-publish of the same fact (same
   deterministic event id); the first copy is the one that counts.
3. The counts of those first copies equal `RunFinished.counts`: nothing counted twice.
4. Once the projector has caught up, the `runs` row says what `RunFinished` says, and
   `evaluations` holds exactly one row per planned key, equal to that key's first copy
   (including the stream sequence it came from).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from bench_common.bus import last_event
from bench_common.envelope import deterministic_event_id
from bench_common.events import RunCounts, RunFinished, RunStarted, SampleCompleted
from tests.support.stack import ManagedStack

Key = tuple[str, int]

EVALUATION_COLUMNS = (
    "sample_id", "epoch", "sample_index", "score", "answer", "target", "explanation",
    "latency_ms", "input_tokens", "output_tokens", "total_tokens", "cost", "runner_id",
    "event_seq",
)  # fmt: skip


@dataclass(frozen=True)
class CountedRun:
    """A run's first `SampleCompleted` per key (with its sequence) and its stored copies."""

    finished: RunFinished
    first: dict[Key, tuple[int, SampleCompleted]]
    stored: int


async def assert_counted_once(
    stack: ManagedStack, run_id: str, finished: RunFinished, *, expected: int
) -> CountedRun:
    """Checks 1-3 of the module docstring."""
    assert (finished.status, finished.failure_reason) == ("succeeded", None)
    started = await last_event(stack.js, RunStarted, run_id)
    assert started is not None
    epochs = started.total_evaluations // max(started.expected_samples, 1)
    plan = {(sample_id, epoch) for sample_id in started.sample_ids for epoch in range(epochs)}
    assert len(plan) == started.total_evaluations == expected

    stored = await stack.events_of(run_id, SampleCompleted)
    first: dict[Key, tuple[int, SampleCompleted]] = {}
    for seq, event in stored:
        key = (event.record.sample_id, event.record.epoch)
        # Any copy, first or not, is the one fact a runner may publish for this key.
        assert event.event_id == deterministic_event_id(run_id, *key, "completed"), key
        first.setdefault(key, (seq, event))
    assert set(first) == plan

    records = [event.record for _, event in first.values()]
    counted = RunCounts(
        total=expected,
        completed=sum(r.score != "S" for r in records),
        skipped=sum(r.score == "S" for r in records),
        correct=sum(r.score == "C" for r in records),
    )
    assert finished.counts == counted
    assert finished.counts.completed + finished.counts.skipped == expected
    return CountedRun(finished=finished, first=first, stored=len(stored))


def evaluation_row(seq: int, event: SampleCompleted) -> tuple[Any, ...]:
    """The `evaluations` row the projection must hold for one first `SampleCompleted`."""
    record, usage = event.record, event.record.usage
    return (
        record.sample_id, record.epoch, record.sample_index, record.score, record.answer,
        record.target, record.explanation, record.latency_ms, usage.input_tokens,
        usage.output_tokens, usage.total_tokens, usage.cost, event.runner_id, seq,
    )  # fmt: skip


async def assert_mysql_matches(stack: ManagedStack, run_id: str, counted: CountedRun) -> None:
    """Check 4: wait for the projector to reach the stream's end, then compare."""
    await stack.wait_projected(await stack.last_seq())
    finished = counted.finished
    [run] = await stack.sql(
        "SELECT status, failure_reason, total_evaluations, completed_evaluations, "
        "skipped_evaluations, correct_evaluations, completion_percentage, quality_score "
        "FROM runs WHERE id = %s",
        run_id,
    )
    counts = finished.counts
    assert run[:6] == (
        finished.status, finished.failure_reason, counts.total, counts.completed,
        counts.skipped, counts.correct,
    )  # fmt: skip
    assert run[6] == Decimal("100.00")
    assert finished.accuracy is not None
    assert run[7] == Decimal(str(round(finished.accuracy, 8)))

    columns = ", ".join(EVALUATION_COLUMNS)
    rows = await stack.sql(f"SELECT {columns} FROM evaluations WHERE run_id = %s", run_id)
    assert len(rows) == len(counted.first)
    projected = {(row[0], row[1]): row for row in rows}
    expected = {key: evaluation_row(seq, event) for key, (seq, event) in counted.first.items()}
    mismatched = [key for key in expected if projected.get(key) != expected[key]]
    assert not mismatched, (
        f"{len(mismatched)} rows differ, e.g. {projected.get(mismatched[0])} "
        f"!= {expected[mismatched[0]]}"
    )
