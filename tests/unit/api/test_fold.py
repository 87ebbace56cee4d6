"""The projection's pure fold: events -> row changes, with no database."""

from __future__ import annotations

import json
from collections.abc import Sequence

from bench_api.projection.changes import RunPatch
from bench_api.projection.fold import fold_batch
from bench_common.envelope import Event
from bench_common.events import (
    RunCancelRequested,
    RunCounts,
    RunDisabled,
    RunFinished,
    RunStarted,
    SampleCompleted,
)
from tests.support.projection_events import Clock, completed, request, synthetic_run


def numbered(events: Sequence[Event]) -> list[tuple[int, Event]]:
    return list(enumerate(events, start=1))


def test_a_whole_run_folds_into_one_run_row_evaluations_and_attempts() -> None:
    events = synthetic_run("run-1", samples=3, epochs=2)
    changes = fold_batch(numbered(events))

    assert changes.last_seq == len(events)
    assert changes.ignored == []
    patch = changes.runs["run-1"]
    assert patch.creates
    assert patch.last_seq == len(events)
    cols = patch.columns
    assert cols["status"] == "succeeded"
    assert cols["benchmark"] == "gpqa_diamond"
    assert cols["model"] == "openai/gpt-test"
    assert cols["epochs"] == 2
    assert cols["row_limit"] == 3
    assert cols["provider_only"] == '["do"]'
    assert cols["is_canary"] == 1
    assert cols["full_suite"] == 0  # limited to 3 questions
    assert cols["expected_questions"] == 3
    assert cols["total_evaluations"] == 6
    assert cols["quality_score"] == 0.5
    assert cols["failure_reason"] is None
    assert cols["started_at"] is not None
    assert cols["finished_at"] is not None
    assert "api_key" not in cols["config_json"]  # type: ignore[operator]


def test_first_sample_completed_per_sample_and_epoch_wins() -> None:
    changes = fold_batch(numbered(synthetic_run("run-1")))

    assert len(changes.evaluations) == 6
    first = changes.evaluations[("run-1", "s0", 0)]
    assert first.values["answer"] == "A"  # the later duplicate said "DUPLICATE"
    assert {r.values["score"] for r in changes.evaluations.values()} == {"C", "I", "S"}


def test_attempts_keep_their_outcome_and_retry_lineage() -> None:
    changes = fold_batch(numbered(synthetic_run("run-1")))

    assert len(changes.attempts) == 7  # 6 calls, the first retried once
    assert all(a.completed for a in changes.attempts.values())
    retry = changes.attempts["req-run-1-s0-0-2"].values
    assert retry["previous_request_id"] == "req-run-1-s0-0-1"
    assert retry["attempt"] == 2
    assert retry["status"] == 200
    assert retry["ok"] == 1
    failed = changes.attempts["req-run-1-s0-0-1"].values
    assert failed["status"] == 429
    assert failed["error_class"] == "RateLimitError"
    assert failed["failure_stage"] == "http"
    assert failed["ok"] == 0


def test_events_of_a_run_without_its_request_only_update() -> None:
    events = synthetic_run("run-1")[1:]  # RunRequested was in an earlier batch
    changes = fold_batch(numbered(events))

    assert not changes.runs["run-1"].creates
    assert "benchmark" not in changes.runs["run-1"].columns


def test_a_final_status_is_never_replaced() -> None:
    clock = Clock()
    counts = RunCounts(total=2)
    events = [
        RunFinished(
            run_id="r",
            occurred_at=clock.tick(),
            status="cancelled",
            counts=counts,
            failure_reason="cancelled by someone",
        ),
        RunStarted(run_id="r", occurred_at=clock.tick(), expected_samples=1, total_evaluations=2),
        RunFinished(
            run_id="r",
            occurred_at=clock.tick(),
            status="failed",
            counts=counts,
            failure_reason="later",
        ),
    ]
    cols = fold_batch(numbered(events)).runs["r"].columns

    assert cols["status"] == "cancelled"
    assert cols["failure_reason"] == "cancelled by someone"
    assert cols["finished_at"] == events[0].occurred_at


def test_merge_policies() -> None:
    patch = RunPatch(run_id="r", last_seq=1, updated_at=Clock().tick())
    patch.set("status", "running")
    patch.set("status", "queued")
    assert patch.columns["status"] == "running"
    patch.set("started_at", 1)
    patch.set("started_at", 2)
    assert patch.columns["started_at"] == 1
    patch.set("disabled", 1)
    patch.set("disabled", 0)
    assert patch.columns["disabled"] == 0


def test_lifecycle_columns_of_cancel_and_disable() -> None:
    clock = Clock()
    events = [
        RunCancelRequested(run_id="r", occurred_at=clock.tick()),
        RunDisabled(run_id="r", occurred_at=clock.tick()),
        RunDisabled(run_id="r", occurred_at=clock.tick(), disabled=False),
    ]
    cols = fold_batch(numbered(events)).runs["r"].columns

    assert cols["cancel_requested_at"] == events[0].occurred_at
    assert cols["disabled"] == 0


def test_events_whose_keys_cannot_be_stored_are_reported_not_folded() -> None:
    clock = Clock()
    long_sample = completed("r", clock, 0, 0).record.model_copy(update={"sample_id": "x" * 300})
    events = [
        SampleCompleted(run_id="r", occurred_at=clock.tick(), record=long_sample),
        RunDisabled(run_id="y" * 200, occurred_at=clock.tick()),
    ]
    changes = fold_batch(numbered(events))

    assert changes.evaluations == {}
    assert [seq for seq, _ in changes.ignored] == [1, 2]
    assert "sample_id must be 1 to 255 characters" in changes.ignored[0][1]
    assert changes.last_seq == 2


def test_long_text_is_clipped_to_fit_its_column() -> None:
    clock = Clock()
    reason = "x" * 20_000
    event = RunFinished(
        run_id="r",
        occurred_at=clock.tick(),
        status="failed",
        counts=RunCounts(),
        failure_reason=reason,
    )
    cols = fold_batch([(1, event)]).runs["r"].columns

    assert cols["failure_reason"] == reason[:16_000]
    assert cols["quality_score"] is None  # quality is kept for succeeded runs only


def test_numbers_beyond_their_column_are_held_within_it() -> None:
    event = request("r", Clock(), samples=3, epochs=1)
    inference = event.config.inference.model_copy(update={"timeout_ms": 10**12})
    config = event.config.model_copy(update={"inference": inference})
    cols = fold_batch([(1, event.model_copy(update={"config": config}))]).runs["r"].columns

    assert cols["timeout_ms"] == 4_294_967_295
    assert json.loads(str(cols["config_json"]))["inference"]["timeout_ms"] == 10**12


def test_upload_status_follows_the_archive_and_its_retries() -> None:
    from bench_common.events import ArchiveFailed, ArchiveRetryRequested, RunArchived

    failed = fold_batch(numbered([ArchiveFailed(run_id="run-1", error="S3 down")]))
    assert failed.runs["run-1"].columns["upload_status"] == "failed"
    retry = fold_batch(numbered([ArchiveRetryRequested(run_id="run-1")]))
    assert retry.runs["run-1"].columns["upload_status"] == "pending"
    archived = fold_batch(
        numbered([RunArchived(run_id="run-1", manifest_key="p/run-1/manifest.json", files=7)])
    )
    cols = archived.runs["run-1"].columns
    assert cols["upload_status"] == "complete"
    assert cols["artifacts_uploaded"] == 7
