"""The all-runs stream's per-run state: absolute, idempotent, exact from the first frame."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from bench_api.live.tally import RunTally, TallyBook


def msg(run: str, name: str, **body: Any) -> tuple[str, bytes]:
    body.setdefault("occurred_at", "2026-11-30T12:00:00Z")
    return f"bench.runs.{run}.{name}", json.dumps({"run_id": run, **body}).encode()


def completed(run: str, sample: str, epoch: int, score: str) -> tuple[str, bytes]:
    record = {"sample_id": sample, "epoch": epoch, "score": score, "sample_index": 0}
    return msg(run, "sample_completed", record=record)


class Stream:
    """A fake BENCH_EVENTS: (seq, subject, data), and a loader over it."""

    def __init__(self) -> None:
        self.messages: list[tuple[int, str, bytes]] = []
        self.loaded: list[tuple[str, int]] = []

    def add(self, item: tuple[str, bytes]) -> int:
        seq = len(self.messages) + 1
        self.messages.append((seq, *item))
        return seq

    async def load(self, run_id: str, before: int) -> AsyncIterator[tuple[int, str, bytes]]:
        self.loaded.append((run_id, before))
        for seq, subject, data in self.messages:
            if seq < before and subject.split(".")[2] == run_id:
                yield seq, subject, data


async def fold_all(book: TallyBook, stream: Stream, start: int = 1) -> list[dict[str, Any]]:
    frames = []
    for seq, subject, data in stream.messages[start - 1 :]:
        item = await book.fold(seq, subject, data)
        if item is not None:
            text = item.body.decode()
            assert text.startswith("event: run\ndata: ")
            frames.append(json.loads(text.split("data: ", 1)[1]))
    return frames


async def test_a_run_from_request_to_success_with_absolute_counts() -> None:
    stream = Stream()
    for item in (
        msg("r1", "run_requested"),
        msg("r1", "run_admitted", active=1, max_active=8),
        msg("r1", "run_started", expected_samples=2, total_evaluations=4),
        msg("r1", "sample_dispatched", sample_id="a", sample_index=0, epoch=0),
        completed("r1", "a", 0, "C"),
        completed("r1", "a", 0, "I"),  # a duplicate result: first wins, no frame
        completed("r1", "b", 0, "S"),
        completed("r1", "a", 1, "I"),
        completed("r1", "b", 1, "C"),
        msg("r1", "run_finished", status="succeeded", counts={"total": 4}, accuracy=0.5),
        msg("r1", "run_archived", manifest_key="k/manifest.json", files=3),
    ):
        stream.add(item)
    book = TallyBook(loader=stream.load)
    frames = await fold_all(book, stream)
    assert [f["event"] for f in frames] == [
        "run_requested", "run_admitted", "run_started", "sample_completed", "sample_completed",
        "sample_completed", "sample_completed", "run_finished", "run_archived",
    ]  # fmt: skip
    last = frames[-1]["run"]
    assert last["status"] == "succeeded"
    assert (last["completedEvaluations"], last["skippedEvaluations"]) == (3, 1)
    assert last["correctEvaluations"] == 2
    assert last["completionPercentage"] == 100.0
    assert last["qualityScore"] == 0.5
    assert last["uploadStatus"] == "complete"
    assert frames[4]["run"]["completionPercentage"] == 50.0
    assert stream.loaded == []  # a run seen from its request needs no history


async def test_a_run_first_seen_mid_way_is_folded_from_its_history() -> None:
    stream = Stream()
    stream.add(msg("r1", "run_requested"))
    stream.add(msg("r1", "run_started", expected_samples=3, total_evaluations=3))
    stream.add(completed("r1", "a", 0, "C"))
    stream.add(msg("r2", "run_requested"))
    start = stream.add(completed("r1", "b", 0, "I"))
    stream.add(msg("r1", "run_cancel_requested"))
    stream.add(msg("r1", "run_finished", status="cancelled", counts={"total": 3}))
    book = TallyBook(loader=stream.load)
    frames = await fold_all(book, stream, start=start)
    assert stream.loaded == [("r1", start)] and book.loads == 1
    first = frames[0]["run"]
    assert first["status"] == "running" and first["completedEvaluations"] == 2
    assert first["totalEvaluations"] == 3
    assert frames[-1]["run"]["status"] == "cancelled"
    assert frames[-1]["run"]["qualityScore"] is None
    assert frames[-1]["run"]["cancelRequestedAt"] is not None


async def test_events_that_do_not_change_the_list_make_no_frame_and_are_not_parsed() -> None:
    stream = Stream()
    stream.add(("bench.runs.r1.request_attempt_started", b"not even json"))
    stream.add(("bench.runs.r1.sample_started", b"{}"))
    book = TallyBook(loader=stream.load)
    assert await fold_all(book, stream) == []
    assert stream.loaded == []


def test_a_final_status_is_never_replaced_and_running_never_returns_to_queued() -> None:
    tally = RunTally("r1")
    tally.apply(1, "run_started", {"total_evaluations": 2})
    tally.apply(2, "run_requested", {})
    assert tally.status == "running"
    tally.apply(3, "run_finished", {"status": "failed", "failure_reason": "bad key", "counts": {}})
    assert tally.apply(4, "run_finished", {"status": "succeeded", "counts": {}}) is False
    tally.apply(5, "run_rejected", {"reason": "cap"})
    assert tally.status == "failed" and tally.failure_reason == "bad key"


def test_rejected_disabled_and_archive_failures_show_in_the_snapshot() -> None:
    tally = RunTally("r1")
    tally.apply(1, "run_requested", {})
    tally.apply(2, "run_rejected", {"reason": "8 runs active"})
    tally.apply(3, "run_disabled", {"disabled": True})
    tally.apply(4, "archive_failed", {"error": "403 from storage"})
    snap = tally.snapshot()
    assert snap["status"] == "failed"
    assert snap["failureReason"] == "rejected: 8 runs active"
    assert snap["disabled"] is True
    assert (snap["uploadStatus"], snap["uploadError"]) == ("failed", "403 from storage")
    tally.apply(5, "run_disabled", {"disabled": False})
    tally.apply(6, "run_archived", {})
    snap = tally.snapshot()
    assert snap["disabled"] is False and snap["uploadStatus"] == "complete"
    assert snap["uploadError"] is None and snap["lastEventSeq"] == 6


async def test_the_book_forgets_the_least_recently_changed_runs() -> None:
    stream = Stream()
    for run in ("r1", "r2", "r3"):
        stream.add(msg(run, "run_requested"))
    book = TallyBook(loader=stream.load, max_runs=2)
    await fold_all(book, stream)
    seq = stream.add(msg("r1", "run_disabled", disabled=True))
    item = await book.fold(seq, *stream.messages[-1][1:])
    assert item is not None and book.loads == 1  # r1 was dropped and folded again
    frame_data = json.loads(item.body.decode().split("data: ", 1)[1])
    assert frame_data["run"]["status"] == "queued" and frame_data["run"]["disabled"] is True
