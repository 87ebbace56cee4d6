"""What the all-runs stream says: after each event that changes a run's row in the list, the
run's whole live state (status, counts, completion, quality, failure, upload, disabled).

Absolute values rather than deltas, so a client applies any frame without knowing what it
had before, and a page that loaded the list over REST can take the next frame as it comes.
The fold mirrors the projection's rules (first result per sample and epoch wins, a final
status is never replaced, `running` never returns to `queued`). A run first seen in the
middle of its life (the stream was opened after it started) is folded from its history
first, through `HistoryLoader`, so its counts are exact from the first frame.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from bench_api.live.frames import Frame, frame
from bench_api.live.wire import event_name, run_id_of
from bench_common.envelope import STREAM_EVENTS

FINAL = frozenset({"succeeded", "failed", "cancelled"})
TALLIED = frozenset(
    {
        "run_requested", "run_admitted", "run_rejected", "run_started", "run_cancel_requested",
        "run_finished", "run_disabled", "sample_completed", "artifact_uploaded",
        "run_archived", "archive_failed",
    }
)  # fmt: skip
"""Events that change what the run list shows; every other event is skipped unread."""
MAX_RUNS = 5000


HistoryLoader = Callable[[str, int], AsyncIterator[tuple[int, str, bytes]]]
"""`(run_id, before)` -> one run's BENCH_EVENTS messages with a sequence below `before`, oldest
first, as (sequence, subject, JSON body)."""


@dataclass
class RunTally:
    """The live state of one run, folded from its events."""

    run_id: str
    seq: int = 0
    status: str | None = None
    total: int = 0
    expected_questions: int | None = None
    completed: int = 0
    skipped: int = 0
    correct: int = 0
    quality_score: float | None = None
    failure_reason: str | None = None
    upload_status: str = "pending"
    upload_error: str | None = None
    disabled: bool = False
    created_at: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    cancel_requested_at: str | None = None
    scored: set[tuple[str, int]] = field(default_factory=set)

    def _status(self, status: str) -> None:
        if self.status in FINAL or (status == "queued" and self.status == "running"):
            return
        self.status = status

    def apply(self, seq: int, name: str, body: dict[str, Any]) -> bool:
        """Fold one event; False when it changes nothing (a duplicate result, say)."""
        self.seq = max(self.seq, seq)
        at = body.get("occurred_at")
        if name == "sample_completed":
            record = body.get("record") or {}
            key = (str(record.get("sample_id")), int(record.get("epoch") or 0))
            if key in self.scored:
                return False
            self.scored.add(key)
            score = record.get("score")
            if score == "S":
                self.skipped += 1
            else:
                self.completed += 1
                self.correct += int(score == "C")
        elif name == "run_requested":
            self.created_at = self.created_at or at
            self._status("queued")
        elif name == "run_rejected":
            self.finished_at = self.finished_at or at
            if self.status not in FINAL:
                self.failure_reason = f"rejected: {body.get('reason')}"
            self._status("failed")
        elif name == "run_started":
            self.started_at = self.started_at or at
            self.expected_questions = body.get("expected_samples")
            self.total = int(body.get("total_evaluations") or 0)
            self._status("running")
        elif name == "run_cancel_requested":
            self.cancel_requested_at = self.cancel_requested_at or at
        elif name == "run_finished":
            if self.status in FINAL:
                return False
            self.finished_at = at
            self.failure_reason = body.get("failure_reason")
            counts = body.get("counts") or {}
            self.total = int(counts.get("total") or self.total)
            accuracy = body.get("accuracy")
            succeeded = body.get("status") == "succeeded"
            self.quality_score = accuracy if succeeded and accuracy is not None else None
            self._status(str(body.get("status")))
        elif name == "run_disabled":
            self.disabled = bool(body.get("disabled", True))
        elif name == "artifact_uploaded":
            self.upload_status = "uploading"
        elif name == "run_archived":
            self.upload_status, self.upload_error = "complete", None
        elif name == "archive_failed":
            self.upload_status, self.upload_error = "failed", body.get("error")
        return True

    def snapshot(self) -> dict[str, Any]:
        """The run's state in the REST record's field names."""
        processed = self.completed + self.skipped
        percentage = min(100.0, round(100 * processed / self.total, 2)) if self.total else 0.0
        return {
            "id": self.run_id,
            "status": self.status,
            "totalEvaluations": self.total,
            "completedEvaluations": self.completed,
            "skippedEvaluations": self.skipped,
            "correctEvaluations": self.correct,
            "expectedQuestions": self.expected_questions,
            "completionPercentage": percentage,
            "qualityScore": self.quality_score,
            "failureReason": self.failure_reason,
            "uploadStatus": self.upload_status,
            "uploadError": self.upload_error,
            "disabled": self.disabled,
            "createdAt": self.created_at,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "cancelRequestedAt": self.cancel_requested_at,
            "lastEventSeq": self.seq,
        }


class TallyBook:
    """The tallies of the runs one all-runs feed has seen (least recently changed dropped)."""

    def __init__(self, *, loader: HistoryLoader, max_runs: int = MAX_RUNS) -> None:
        self._loader = loader
        self._max_runs = max_runs
        self._runs: OrderedDict[str, RunTally] = OrderedDict()
        self.loads = 0
        """Runs folded from their history (seen first in the middle of their life)."""

    async def _tally(self, run_id: str, seq: int, name: str) -> RunTally:
        tally = self._runs.get(run_id)
        if tally is not None:
            self._runs.move_to_end(run_id)
            return tally
        tally = RunTally(run_id)
        if name != "run_requested":  # a run's first event needs no history
            self.loads += 1
            async for old_seq, subject, data in self._loader(run_id, seq):
                old_name = event_name(subject)
                if old_name in TALLIED:
                    tally.apply(old_seq, old_name, json.loads(data))
        self._runs[run_id] = tally
        while len(self._runs) > self._max_runs:
            self._runs.popitem(last=False)
        return tally

    async def fold(self, seq: int, subject: str, data: bytes) -> Frame | None:
        """The all-runs frame of one BENCH_EVENTS message, or None if the list is unchanged."""
        name = event_name(subject)
        if name not in TALLIED:
            return None
        try:
            body = json.loads(data)
        except ValueError:
            return None
        if not isinstance(body, dict):
            return None
        tally = await self._tally(run_id_of(subject), seq, name)
        if seq <= tally.seq or not tally.apply(seq, name, body):
            return None
        data_out = {
            "event": name,
            "seq": seq,
            "at": body.get("occurred_at"),
            "run": tally.snapshot(),
        }
        return frame(STREAM_EVENTS, seq, "run", data_out)
