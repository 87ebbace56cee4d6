"""The run log: lifecycle lines, milestones, failures, retries and uploads."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Literal

from bench_common.envelope import Event
from bench_common.events import (
    ArchiveFailed,
    ArtifactUploaded,
    RequestAttemptCompleted,
    RequestAttemptStarted,
    RunAdmitted,
    RunArchived,
    RunCounts,
    RunFinished,
    RunRequested,
    RunStarted,
    SampleCompleted,
)
from bench_common.reports import run_log_lines
from bench_common.run_config import RunConfig
from tests.unit.reports.support import T0, attempt_pair, evaluation

RUN = "run-1"


def _run(finished: RunFinished, log_level: int | None = None) -> list[Event]:
    config = RunConfig(
        benchmark="gpqa_diamond", model="m", epochs=1, concurrency=2, log_level=log_level
    )
    events: list[Event] = [
        RunRequested(run_id=RUN, config=config, triggered_by_email="a@digitalocean.com",
                     occurred_at=T0),
        RunAdmitted(run_id=RUN, active=1, max_active=8),
        RunStarted(run_id=RUN, expected_samples=20, total_evaluations=20),
    ]  # fmt: skip
    started, completed = attempt_pair("r1", start_ms=0, duration_ms=5, status=429, ok=False)
    retry, _ = attempt_pair("r2", start_ms=10, duration_ms=5, attempt=2)
    events += [
        RequestAttemptStarted(run_id=RUN, record=started),
        RequestAttemptCompleted(run_id=RUN, record=completed),
        RequestAttemptStarted(run_id=RUN, record=retry),
    ]
    for i in range(20):
        record = (
            evaluation(i, score="S", explanation="Model error after 7 attempt(s): HTTP 503")
            if i == 3
            else evaluation(i)
        )
        events.append(SampleCompleted(run_id=RUN, record=record))
        if i == 5:  # a redelivered duplicate must not advance the progress
            events.append(SampleCompleted(run_id=RUN, record=record))
    events.append(finished)
    return events


def _lines(events: list[Event]) -> list[dict[str, object]]:
    return [json.loads(line) for line in run_log_lines(events)]


def test_lifecycle_and_milestones() -> None:
    finished = RunFinished(run_id=RUN, status="succeeded", counts=RunCounts(total=20),
                           accuracy=0.95)  # fmt: skip
    lines = _lines(_run(finished))
    messages = [str(line["message"]) for line in lines]
    assert messages[:3] == ["Benchmark run accepted", "Benchmark run admitted",
                            "Benchmark run started"]  # fmt: skip
    assert lines[0]["timestamp"] == "2026-03-01T12:00:00.000Z" and lines[0]["runId"] == RUN
    assert lines[0]["model"] == "m" and lines[0]["triggeredByEmail"] == "a@digitalocean.com"
    milestones = [m for m in messages if m.startswith("Progress")]
    assert milestones == [
        f"Progress {p}% ({p // 5}/20 evaluations)" for p in range(10, 100, 10)
    ] + ["Progress 100% (20/20 evaluations); every evaluation is scored"]
    assert messages[-1] == "Benchmark succeeded"


def test_errors_retries_and_failure_reason() -> None:
    finished = RunFinished(run_id=RUN, status="failed", failure_reason="the key was refused",
                           counts=RunCounts(total=20))  # fmt: skip
    lines = _lines(_run(finished, log_level=3))
    by_message = {str(line["message"]): line for line in lines}
    failed_attempt = by_message["Request attempt failed"]
    assert failed_attempt["status"] == 429 and failed_attempt["level"] == "warning"
    assert by_message["Retrying request (attempt 2)"]["previousRequestId"] is None
    evaluation_failed = by_message["Evaluation failed"]
    assert evaluation_failed["sampleId"] == "gpqa_diamond-3" and evaluation_failed["score"] == "S"
    last = lines[-1]
    assert last["message"] == "Benchmark failed: the key was refused" and last["level"] == "error"


def test_upload_lines() -> None:
    later = T0 + timedelta(minutes=5)
    events: list[Event] = [
        ArchiveFailed(run_id=RUN, error="storage down", details={"attempts": 4}, occurred_at=T0),
        ArtifactUploaded(run_id=RUN, key="p/run.json", bytes=10, sha256="ab",
                         content_type="application/json"),
        RunArchived(run_id=RUN, manifest_key="p/manifest.json", files=1, occurred_at=later),
    ]  # fmt: skip
    lines = _lines(events)
    assert [line["message"] for line in lines] == [
        "Archive failed: storage down", "Artifact uploaded", "Run archived",
    ]  # fmt: skip
    assert lines[0]["details"] == {"attempts": 4} and lines[2]["manifestKey"] == "p/manifest.json"


def _messages(
    log_level: int | None, status: Literal["succeeded", "failed"] = "failed"
) -> list[str]:
    finished = RunFinished(run_id=RUN, status=status, failure_reason="the key was refused",
                           counts=RunCounts(total=20))  # fmt: skip
    return [str(line["message"]) for line in _lines(_run(finished, log_level=log_level))]


def test_the_run_log_level_decides_what_is_shown() -> None:
    info = _messages(2)
    assert info == _messages(1)
    assert "Benchmark run started" in info and "Evaluation failed" in info
    assert not [m for m in info if m.startswith(("Request attempt", "Retrying"))]
    assert _messages(0) == ["Evaluation failed", "Benchmark failed: the key was refused"]
    assert _messages(-1) == ["Benchmark failed: the key was refused"]
    assert _messages(-1, status="succeeded") == ["Benchmark succeeded"]
    debug = _messages(3)
    assert debug == _messages(None)  # the default shows failed attempts and retries
    assert [m for m in debug if m not in info] == [
        "Request attempt failed", "Retrying request (attempt 2)",
    ]  # fmt: skip
    assert [m for m in _messages(4) if m not in debug] == []  # the retry never completed
    completed = attempt_pair("r3", start_ms=20, duration_ms=7)[1]
    succeeded = RunFinished(run_id=RUN, status="succeeded", counts=RunCounts(total=20))
    events = _run(succeeded, log_level=4)
    trace = _lines([*events, RequestAttemptCompleted(run_id=RUN, record=completed)])
    assert trace[-1]["message"] == "Request attempt completed" and trace[-1]["durationMs"] == 7
