"""The JSONL request log: one object per line, parents created, disabled on write errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bench_common.attempts import AttemptCompleted, AttemptStarted
from bench_runner.inference import JsonlAttemptSink

NOW = datetime(2026, 11, 30, tzinfo=UTC)
IDENTITY = {
    "request_id": "r1",
    "call_id": "c1",
    "session_id": "s",
    "attempt": 1,
    "model": "m",
    "url": "http://x/v1/chat/completions",
    "started_at": NOW,
}


def started() -> AttemptStarted:
    return AttemptStarted.model_validate(
        {**IDENTITY, "request": {"messages": 1}, "request_body": {"a": [1]}}
    )


def completed() -> AttemptCompleted:
    return AttemptCompleted.model_validate(
        {**IDENTITY, "finished_at": NOW, "duration_ms": 5, "ok": True}
    )


async def test_appends_one_json_object_per_line_and_creates_parents(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "deep" / "requests.jsonl"
    sink = JsonlAttemptSink(path)
    await sink.record(started())
    await sink.record(completed())
    # Flushed per line: readable before close.
    lines = path.read_text().splitlines()
    sink.close()
    assert [json.loads(line)["event"] for line in lines] == ["started", "completed"]
    assert json.loads(lines[0]) == started().model_dump(mode="json")
    again = JsonlAttemptSink(path)
    await again.record(completed())
    again.close()
    assert len(path.read_text().splitlines()) == 3


async def test_write_error_disables_the_sink_with_one_warning() -> None:
    warnings: list[str] = []
    sink = JsonlAttemptSink("/dev/full", warn=warnings.append)
    await sink.record(started())  # ENOSPC on flush
    await sink.record(completed())
    await sink.record(completed())
    assert sink.disabled
    assert len(warnings) == 1
    assert "/dev/full" in warnings[0]


async def test_unopenable_path_disables_the_sink(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    warnings: list[str] = []
    sink = JsonlAttemptSink(blocker / "requests.jsonl", warn=warnings.append)
    await sink.record(started())
    await sink.record(started())
    assert sink.disabled
    assert len(warnings) == 1
