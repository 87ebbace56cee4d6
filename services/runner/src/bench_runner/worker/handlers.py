"""Subscribers of the runner: each gets a decoded event and calls a core (kept thin).

Acks, naks and task bookkeeping are the runtime's (`runtime.py`); the meaning is here.
"""

from __future__ import annotations

from bench_common.events import RunAdmitted, RunCancelRequested, RunFinished, SampleDispatched
from bench_runner.worker.opening import RunOver
from bench_runner.worker.planning import Planner
from bench_runner.worker.work import EndRun, WorkCore


class Handlers:
    """`on_<event>` for every event the runner consumes."""

    def __init__(self, *, work: WorkCore, planner: Planner, end_run: EndRun) -> None:
        self._work = work
        self._planner = planner
        self._end_run = end_run

    async def on_sample_dispatched(self, event: SampleDispatched) -> None:
        """A work item (durable pull consumer `runners` on BENCH_WORK)."""
        await self._work.on_sample_dispatched(event)

    async def on_run_admitted(self, event: RunAdmitted) -> None:
        """A run to plan (durable pull consumer `runner-planner`)."""
        await self._planner.on_run_admitted(event)

    def on_run_cancel_requested(self, event: RunCancelRequested) -> None:
        """Stop the run's in-flight evaluations at once (core subscription)."""
        self._end_run(event.run_id, RunOver("the run was cancelled"))

    def on_run_finished(self, event: RunFinished) -> None:
        """The run is over: stop its evaluations, drop its session and credentials."""
        self._end_run(event.run_id, RunOver(f"the run finished ({event.status})"))
