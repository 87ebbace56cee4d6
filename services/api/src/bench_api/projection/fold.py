"""The projection's pure core: a batch of (stream sequence, event) -> row changes.

No I/O and no state beyond the batch: what a row already holds is combined with the changes by
each column's merge policy (see `changes.py`), so folding batch by batch gives the same rows
as folding the whole stream at once, which is what `bench projection rebuild` relies on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from bench_api.projection.attempt_rows import attempt_row
from bench_api.projection.changes import ChangeSet, RunPatch
from bench_api.projection.evaluation_rows import evaluation_row
from bench_api.projection.run_columns import (
    FAILURE_REASON_LIMIT,
    TEXT_LIMIT,
    clip,
    fit_uint,
    key_problem,
    request_columns,
)
from bench_common.envelope import Event
from bench_common.events import (
    ArchiveFailed,
    ArchiveRetryRequested,
    ArtifactUploaded,
    RequestAttemptCompleted,
    RequestAttemptStarted,
    RunAdmitted,
    RunArchived,
    RunCancelRequested,
    RunDisabled,
    RunFinished,
    RunRejected,
    RunRequested,
    RunStarted,
    SampleCompleted,
)


def fold_batch(events: Iterable[tuple[int, Event]]) -> ChangeSet:
    """Fold events, oldest first, into the row changes of one transaction."""
    changes = ChangeSet()
    for seq, event in events:
        changes.last_seq = max(changes.last_seq, seq)
        problem = key_problem(run_id=event.run_id)
        if problem is None:
            problem = _fold_one(changes, seq, event)
        if problem is not None:
            changes.ignored.append((seq, f"{event.name} of run {event.run_id[:128]!r}: {problem}"))
    return changes


def _fold_one(changes: ChangeSet, seq: int, event: Event) -> str | None:
    """Apply one event to `changes`; return why it cannot be projected, if so."""
    if isinstance(event, SampleCompleted):
        row = evaluation_row(seq, event)
        if isinstance(row, str):
            return row
        # First SampleCompleted per (run, sample, epoch) wins, in the batch as in the table.
        changes.evaluations.setdefault(row.key, row)
    elif isinstance(event, RequestAttemptStarted | RequestAttemptCompleted):
        attempt = attempt_row(seq, event)
        if isinstance(attempt, str):
            return attempt
        earlier = changes.attempts.get(attempt.request_id)
        if earlier is None or (attempt.completed and not earlier.completed):
            changes.attempts[attempt.request_id] = attempt
    patch = changes.runs.get(event.run_id)
    if patch is None:
        patch = RunPatch(run_id=event.run_id, last_seq=seq, updated_at=event.occurred_at)
        changes.runs[event.run_id] = patch
    patch.last_seq = max(patch.last_seq, seq)
    patch.updated_at = event.occurred_at  # the latest event's time, as across batches
    fold_run = _RUN_FOLDS.get(type(event))
    if fold_run is not None:
        fold_run(patch, event)
    return None


def _requested(patch: RunPatch, event: RunRequested) -> None:
    patch.creates = True
    for column, value in request_columns(event).items():
        patch.set(column, value)
    patch.set("created_at", event.occurred_at)
    patch.set("status", "queued")


def _admitted(patch: RunPatch, event: RunAdmitted) -> None:
    patch.set("admitted_at", event.occurred_at)


def _rejected(patch: RunPatch, event: RunRejected) -> None:
    patch.set("finished_at", event.occurred_at)
    patch.set("failure_reason", clip(f"rejected: {event.reason}", FAILURE_REASON_LIMIT))
    patch.set("status", "failed")


def _started(patch: RunPatch, event: RunStarted) -> None:
    patch.set("started_at", event.occurred_at)
    patch.set("expected_questions", fit_uint(event.expected_samples))
    patch.set("total_evaluations", fit_uint(event.total_evaluations))
    patch.set("status", "running")


def _cancel_requested(patch: RunPatch, event: RunCancelRequested) -> None:
    patch.set("cancel_requested_at", event.occurred_at)


def _finished(patch: RunPatch, event: RunFinished) -> None:
    # Columns guarded by "not final yet" go before the status that makes the run final.
    patch.set("finished_at", event.occurred_at)
    patch.set("failure_reason", clip(event.failure_reason, FAILURE_REASON_LIMIT))
    quality = event.accuracy if event.status == "succeeded" else None
    patch.set("quality_score", None if quality is None else round(quality, 8))
    patch.set("total_evaluations", fit_uint(event.counts.total))
    patch.set("status", event.status)


def _disabled(patch: RunPatch, event: RunDisabled) -> None:
    patch.set("disabled", int(event.disabled))


def _artifact_uploaded(patch: RunPatch, event: ArtifactUploaded) -> None:
    # A running count of files could not be merged idempotently; RunArchived carries the
    # archive's file count, so an upload only marks the archive as in progress.
    del event
    patch.set("upload_status", "uploading")


def _archived(patch: RunPatch, event: RunArchived) -> None:
    patch.set("upload_status", "complete")
    patch.set("upload_error", None)
    patch.set("uploaded_at", event.occurred_at)
    patch.set("manifest_key", clip(event.manifest_key, 1024))
    patch.set("spaces_prefix", clip(event.manifest_key.rpartition("/")[0] or None, 1024))
    patch.set("artifacts_uploaded", fit_uint(event.files))


def _archive_failed(patch: RunPatch, event: ArchiveFailed) -> None:
    patch.set("upload_status", "failed")
    patch.set("upload_error", clip(event.error, TEXT_LIMIT))


def _archive_retry_requested(patch: RunPatch, event: ArchiveRetryRequested) -> None:
    del event
    patch.set("upload_status", "pending")


_RUN_FOLDS: dict[type[Event], Callable[[RunPatch, Any], None]] = {
    RunRequested: _requested,
    RunAdmitted: _admitted,
    RunRejected: _rejected,
    RunStarted: _started,
    RunCancelRequested: _cancel_requested,
    RunFinished: _finished,
    RunDisabled: _disabled,
    ArtifactUploaded: _artifact_uploaded,
    RunArchived: _archived,
    ArchiveFailed: _archive_failed,
    ArchiveRetryRequested: _archive_retry_requested,
}
"""Events that change `runs` columns beyond `last_event_seq` and `updated_at`."""
