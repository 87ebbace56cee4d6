"""Planning an admitted run: the runner's side of "Planning (runners)".

The runner that receives `RunAdmitted` opens the run (loading and selecting the dataset from
its own cache or `BENCH_GPQA_DATASET_FILE`) and publishes `RunStarted` with the sample ids in
order, which the scheduler then dispatches. The opened session stays in the cache, so this
runner's first work items of the run start at once.
"""

from __future__ import annotations

from bench_common.envelope import deterministic_event_id
from bench_common.events import RunAdmitted, RunStarted
from bench_runner.worker.opening import OpenRun, RunOver
from bench_runner.worker.ports import EventPublisher, EventReader
from bench_runner.worker.sessions import SessionCache


def run_started(run: OpenRun) -> RunStarted:
    """What will be dispatched: every selected sample, in order, times the epochs."""
    sample_ids = list(run.samples)
    return RunStarted(
        run_id=run.run_id,
        expected_samples=len(sample_ids),
        total_evaluations=len(sample_ids) * run.config.epochs,
        sample_ids=sample_ids,
        event_id=deterministic_event_id(run.run_id, "started"),
    )


class Planner:
    """Turns `RunAdmitted` into `RunStarted` (or, via the opener, `RunAbortRequested`)."""

    def __init__(
        self, *, runs: SessionCache, events: EventReader, publisher: EventPublisher
    ) -> None:
        self._runs = runs
        self._events = events
        self._publisher = publisher

    async def on_run_admitted(self, admitted: RunAdmitted) -> None:
        """Publish `RunStarted` unless the run already started or is over (redeliveries and
        replays of old admissions change nothing)."""
        if await self._events.last(RunStarted, admitted.run_id) is not None:
            return
        run = await self._runs.get(admitted.run_id)
        if isinstance(run, RunOver):
            return
        await self._publisher.publish(run_started(run))
