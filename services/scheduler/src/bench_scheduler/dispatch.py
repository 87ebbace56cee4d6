"""Dispatch by per-run credits: which evaluations to hand to the runners next.

A run has `concurrency` credits (at most 6 for benchmarks that need a sandbox, whatever the
config says). Each dispatched evaluation takes a credit until its `SampleCompleted` is folded,
so outstanding = dispatched - completed never exceeds the credits, however many runners pull
from the work queue. Evaluations go out in sample/epoch order, the order of the CLI.
"""

from __future__ import annotations

from bench_common.envelope import deterministic_event_id
from bench_common.events import SampleDispatched
from bench_common.run_config import RunConfig
from bench_scheduler.state import ItemKey, RunState

SANDBOX_BENCHMARKS = frozenset(
    {
        "deep_swe",
        "swe_bench_verified",
        "terminal_bench",
        "swe_atlas_qa",
        "swe_atlas_tw",
        "swe_atlas_rf",
    }
)
SANDBOX_MAX_CONCURRENCY = 6
"""Each sandbox evaluation holds a Droplet; more than this many per run is refused."""


def credit_limit(config: RunConfig) -> int:
    """Evaluations of a run that may be outstanding at once."""
    if config.benchmark in SANDBOX_BENCHMARKS:
        return min(config.concurrency, SANDBOX_MAX_CONCURRENCY)
    return config.concurrency


def dispatch_event(run_id: str, key: ItemKey, sample_index: int) -> SampleDispatched:
    """The `SampleDispatched` of one evaluation; its id is derived from (run, sample, epoch).

    `sample_index` is the sample's position in the run's `RunStarted.sample_ids`. Deriving the
    id means a re-published copy carries the same `Nats-Msg-Id` and JetStream drops it.
    """
    sample_id, epoch = key
    return SampleDispatched(
        event_id=deterministic_event_id(run_id, sample_id, epoch, "dispatched"),
        run_id=run_id,
        sample_id=sample_id,
        sample_index=sample_index,
        epoch=epoch,
    )


def can_dispatch(run: RunState) -> bool:
    """The run is admitted, planned, not finished, and nobody asked it to stop."""
    return (
        run.active
        and run.config is not None
        and run.sample_ids is not None
        and not run.cancel_requested
        and run.abort_reason is None
    )


def take_dispatches(run: RunState) -> list[SampleDispatched]:
    """The next evaluations to dispatch: as many as there are free credits.

    Pure: the caller folds the returned events into the state (which takes the credits)
    before publishing them.
    """
    if not can_dispatch(run):
        return []
    assert run.config is not None
    free = credit_limit(run.config) - len(run.outstanding)
    chosen: list[SampleDispatched] = []
    position = run.cursor
    while free > len(chosen) and position < run.total:
        key = run.item_at(position)
        if not run.taken(key):
            chosen.append(dispatch_event(run.run_id, key, position // run.epochs))
        position += 1
    return chosen
