"""Row changes: what folding a batch of events asks the database to do.

Plain data, no SQL. Each `runs` column has a merge policy so that merging several events of
one batch in memory and applying them over an existing row give the same result as applying
the events one by one, and so that a replayed event never regresses a row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from typing import TypeAlias

SqlValue: TypeAlias = str | int | float | datetime | None

FINAL_STATUSES = ("succeeded", "failed", "cancelled")


class Merge(Enum):
    """How a new value for a `runs` column combines with the stored one."""

    LATEST = "latest"
    """The newer event's value wins (config, upload state, disabled)."""
    FIRST = "first"
    """The first value ever set stays (timestamps of one-off facts, expected counts)."""
    UNTIL_FINAL = "until_final"
    """Set only while the run has no final status (finish time, failure reason, quality)."""
    STATUS = "status"
    """The run status: a final status is never replaced and `running` never goes back to
    `queued`."""


RUN_COLUMN_MERGE: dict[str, Merge] = {
    "created_at": Merge.FIRST,
    "admitted_at": Merge.FIRST,
    "started_at": Merge.FIRST,
    "cancel_requested_at": Merge.FIRST,
    "expected_questions": Merge.FIRST,
    "total_evaluations": Merge.FIRST,
    "finished_at": Merge.UNTIL_FINAL,
    "failure_reason": Merge.UNTIL_FINAL,
    "quality_score": Merge.UNTIL_FINAL,
    "status": Merge.STATUS,
}
"""Columns whose policy is not `LATEST` (the default)."""


def merge_policy(column: str) -> Merge:
    """The merge policy of a `runs` column."""
    return RUN_COLUMN_MERGE.get(column, Merge.LATEST)


def status_rank(status: str | None) -> int:
    """Order of run statuses: none < queued < running < final."""
    if status is None:
        return -1
    if status in FINAL_STATUSES:
        return 2
    return 1 if status == "running" else 0


@dataclass
class RunPatch:
    """Changes to one `runs` row from the events of one batch.

    Attributes:
        creates: the batch holds the run's `RunRequested`, so the row may be inserted; without
            it the patch only updates an existing row (events of unknown runs change nothing).
        columns: column -> value, merged under each column's policy.
        last_seq: the newest stream sequence folded in; the row stores it as `last_event_seq`
            and a patch whose `last_seq` is not newer than the row's is ignored.
    """

    run_id: str
    last_seq: int
    updated_at: datetime
    creates: bool = False
    columns: dict[str, SqlValue] = field(default_factory=dict)

    def set(self, column: str, value: SqlValue) -> None:
        """Merge `value` into the patch under the column's policy (later events come later)."""
        policy = merge_policy(column)
        if policy is Merge.LATEST:
            self.columns[column] = value
        elif policy is Merge.FIRST:
            self.columns.setdefault(column, value)
        elif policy is Merge.UNTIL_FINAL:
            # Callers set these before the final status, like the SQL assigns them first.
            if self.columns.get("status") not in FINAL_STATUSES:
                self.columns[column] = value
        else:
            current = self.columns.get(column)
            if status_rank(str(value)) > status_rank(None if current is None else str(current)):
                self.columns[column] = value


@dataclass(frozen=True)
class EvaluationRow:
    """One `evaluations` row (inserted once: the first SampleCompleted wins)."""

    values: dict[str, SqlValue]

    @property
    def key(self) -> tuple[str, str, int]:
        """(run id, sample id, epoch)."""
        return (str(self.values["run_id"]), str(self.values["sample_id"]), int(self.epoch))

    @property
    def epoch(self) -> int:
        """The epoch of the evaluation."""
        value = self.values["epoch"]
        assert isinstance(value, int)
        return value


@dataclass(frozen=True)
class AttemptRow:
    """One `request_attempts` row: `completed` rows overwrite a `started` row once."""

    request_id: str
    completed: bool
    values: dict[str, SqlValue]


@dataclass
class ChangeSet:
    """Everything one batch changes, plus the events it could not project and why."""

    runs: dict[str, RunPatch] = field(default_factory=dict)
    evaluations: dict[tuple[str, str, int], EvaluationRow] = field(default_factory=dict)
    attempts: dict[str, AttemptRow] = field(default_factory=dict)
    ignored: list[tuple[int, str]] = field(default_factory=list)
    last_seq: int = 0
