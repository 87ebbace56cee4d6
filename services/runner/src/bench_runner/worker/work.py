"""Evaluating one dispatched (sample, epoch): the runner's side of "Work (runners)".

The evaluation itself is `RunSession.evaluate`, the CLI's code path; this module only decides
what to publish around it. The caller acks the work item when `on_sample_dispatched` returns
(every publish acknowledged by then), naks it when it raises, and acks it when the run ends
under it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from bench_common.claim_checks import CLAIM_THRESHOLD_BYTES, BlobStore, claim_checked
from bench_common.envelope import deterministic_event_id
from bench_common.evaluation import EvaluationRecord
from bench_common.events import SampleCompleted, SampleDispatched, SampleStarted
from bench_runner.inference.errors import RunAborted
from bench_runner.worker.opening import OpenRun, RunOver, abort_requested
from bench_runner.worker.ports import EventPublisher
from bench_runner.worker.sessions import SessionCache

EndRun = Callable[[str, RunOver], None]
"""Marks a run over on this runner and stops its other in-flight evaluations."""


def sample_completed(run_id: str, record: EvaluationRecord, runner_id: str) -> SampleCompleted:
    """The result of (sample, epoch). Its id depends only on the run, sample and epoch, so a
    redelivered item evaluated again by another runner publishes the same fact twice and the
    copy is dropped (JetStream's duplicate window; consumers keep the first)."""
    return SampleCompleted(
        run_id=run_id,
        record=record,
        runner_id=runner_id,
        event_id=deterministic_event_id(run_id, record.sample_id, record.epoch, "completed"),
    )


class WorkCore:
    """Runs work items against the session cache."""

    def __init__(
        self,
        *,
        runs: SessionCache,
        publisher: EventPublisher,
        runner_id: str,
        end_run: EndRun,
        blobs: BlobStore,
        claim_threshold: int = CLAIM_THRESHOLD_BYTES,
    ) -> None:
        self._runs = runs
        self._publisher = publisher
        self._runner_id = runner_id
        self._end_run = end_run
        self._blobs = blobs
        self._claim_threshold = claim_threshold

    async def on_sample_dispatched(self, item: SampleDispatched) -> None:
        """Evaluate the item and publish `SampleStarted` then `SampleCompleted`.

        A record too large for one message goes by claim check (`bench_common.claim_checks`).
        `SampleStarted` is acknowledged while the evaluation runs (one NATS round trip less
        in series with every item) and before `SampleCompleted` is published, so the stream
        holds them in that order; a failed start publish fails the item as before.
        Items of runs that are over are dropped (the caller acks them). A fatal model error
        (bad key, unknown model) publishes `RunAbortRequested` and ends the run here.
        """
        run = await self._runs.get(item.run_id)
        if isinstance(run, RunOver):
            return
        # Looked up by id: `item.sample_index` is the position in `RunStarted.sample_ids`, and
        # the record keeps the engine's absolute dataset row.
        sample = run.samples.get(item.sample_id)
        if sample is None:
            await self._abort(run, _unknown_sample(item, run))
            return
        started = asyncio.ensure_future(
            self._publisher.publish(
                SampleStarted(
                    run_id=item.run_id,
                    sample_id=item.sample_id,
                    epoch=item.epoch,
                    runner_id=self._runner_id,
                )
            )
        )
        try:
            record = await run.session.evaluate(sample, item.epoch)
        except RunAborted as exc:
            await _outcome_ignored(started)  # the start stays on record before the abort
            await self._abort(run, str(exc))
            return
        except BaseException:  # the run ended under it, or the evaluation failed
            started.cancel()
            await _outcome_ignored(started)
            raise
        await started
        completed = await claim_checked(
            sample_completed(item.run_id, record, self._runner_id),
            self._blobs,
            threshold=self._claim_threshold,
        )
        await self._publisher.publish(completed)

    async def _abort(self, run: OpenRun, reason: str) -> None:
        await self._publisher.publish(abort_requested(run.run_id, reason, self._runner_id))
        self._end_run(run.run_id, RunOver(reason))


async def _outcome_ignored(publish: asyncio.Future[None]) -> None:
    """Wait for a publish whose outcome no longer decides anything (the item is ending)."""
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await publish


def _unknown_sample(item: SampleDispatched, run: OpenRun) -> str:
    return (
        f"sample {item.sample_id} of run {item.run_id} is not in "
        f"the {run.config.benchmark} dataset of this runner: every runner must read the same "
        "dataset (same BENCH_GPQA_DATASET_FILE or dataset cache version). Fix the runners' "
        "datasets and resubmit the run."
    )
