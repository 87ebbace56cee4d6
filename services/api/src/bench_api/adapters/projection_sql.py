"""SQL text of the projection's writes, in the form MySQL 8 and MariaDB 10.11 both accept.

Upserts use `ON DUPLICATE KEY UPDATE c = VALUES(c)` (the portable spelling; MySQL's `AS new`
alias is a syntax error on MariaDB). Assignments in one UPDATE run left to right and see the
values already assigned, so columns guarded by the run status come before `status`, and
`last_event_seq`, which guards everything, comes last.
"""

from __future__ import annotations

from collections.abc import Sequence

from bench_api.projection.changes import FINAL_STATUSES, Merge, merge_policy

_FINALS = "(" + ", ".join(f"'{s}'" for s in FINAL_STATUSES) + ")"

EVALUATION_COLUMNS = (
    "run_id", "sample_id", "epoch", "sample_index", "score", "answer", "target", "explanation",
    "latency_ms", "input_tokens", "output_tokens", "total_tokens", "reasoning_tokens",
    "cache_read_tokens", "cost", "generation_time_ms", "metadata_json", "runner_id",
    "completed_at", "event_seq",
)  # fmt: skip

ATTEMPT_IDENTITY_COLUMNS = (
    "request_id", "run_id", "call_id", "attempt", "previous_request_id", "sample_id", "epoch",
    "model", "phase", "started_at", "event_seq",
)  # fmt: skip

ATTEMPT_OUTCOME_COLUMNS = (
    "status", "ok", "duration_ms", "time_to_first_output_ms", "received_bytes", "provider",
    "generation_id", "error_class", "error_message", "failure_stage", "retryable",
    "input_tokens", "output_tokens", "total_tokens", "reasoning_tokens", "cache_read_tokens",
    "cost", "finished_at",
)  # fmt: skip

ATTEMPT_COLUMNS = ATTEMPT_IDENTITY_COLUMNS + ATTEMPT_OUTCOME_COLUMNS

LOCK_POSITION = "SELECT last_seq FROM projection_position WHERE name = %s FOR UPDATE"
READ_POSITION = "SELECT last_seq, updated_at FROM projection_position WHERE name = %s"
STORE_POSITION = (
    "UPDATE projection_position SET last_seq = %s, updated_at = UTC_TIMESTAMP(3) WHERE name = %s"
)


def _placeholders(n: int) -> str:
    return ", ".join(["%s"] * n)


def _insert(table: str, columns: Sequence[str], on_duplicate: str) -> str:
    cols = ", ".join(columns)
    return (
        f"INSERT INTO {table} ({cols}) VALUES ({_placeholders(len(columns))}) "
        f"ON DUPLICATE KEY UPDATE {on_duplicate}"
    )


def insert_first_wins(table: str, columns: Sequence[str]) -> str:
    """Insert rows; a row whose key exists is left as it is (first write wins).

    `ON DUPLICATE KEY UPDATE k = k` rather than `INSERT IGNORE`, which would also turn data
    errors into silent warnings.
    """
    return _insert(table, columns, f"{columns[0]} = {columns[0]}")


def complete_attempts() -> str:
    """Upsert completed attempts; a row already completed is kept (first completion wins)."""
    guarded = [c for c in ATTEMPT_COLUMNS[1:] if c != "phase"]
    updates = [f"{c} = IF(phase = 'completed', {c}, VALUES({c}))" for c in guarded]
    # `phase` guards every other assignment, so it is assigned last.
    on_duplicate = ", ".join([*updates, "phase = 'completed'"])
    return _insert("request_attempts", ATTEMPT_COLUMNS, on_duplicate)


def _merged(column: str, new: str) -> str:
    """The expression storing `new` into `column` under the column's merge policy."""
    policy = merge_policy(column)
    if policy is Merge.FIRST:
        return f"COALESCE({column}, {new})"
    if policy is Merge.UNTIL_FINAL:
        return f"IF(status IN {_FINALS}, {column}, {new})"
    if policy is Merge.STATUS:
        return (
            f"CASE WHEN status IN {_FINALS} THEN status "
            f"WHEN status = 'running' AND {new} = 'queued' THEN status ELSE {new} END"
        )
    return new


def _ordered(columns: Sequence[str]) -> list[str]:
    """Status-guarded columns first, `status` after them."""
    return sorted(columns, key=lambda c: c == "status")


def upsert_run(columns: Sequence[str]) -> tuple[str, list[str]]:
    """Insert a run row (from its RunRequested) or merge into the existing one.

    Returns the statement and the order of its parameters (column names).
    """
    params = ["id", *columns, "updated_at", "last_event_seq"]
    newer = "VALUES(last_event_seq) > last_event_seq"
    updates = [
        f"{c} = IF({newer}, {_merged(c, f'VALUES({c})')}, {c})"
        for c in [*_ordered(columns), "updated_at"]
    ]
    updates.append("last_event_seq = GREATEST(last_event_seq, VALUES(last_event_seq))")
    sql = (
        f"INSERT INTO runs ({', '.join(params)}) VALUES ({_placeholders(len(params))}) "
        f"ON DUPLICATE KEY UPDATE {', '.join(updates)}"
    )
    return sql, params


def update_run(columns: Sequence[str]) -> tuple[str, list[str]]:
    """Merge into an existing run row; a row already past `last_seq` is left alone."""
    params: list[str] = []
    assignments: list[str] = []
    for column in [*_ordered(columns), "updated_at", "last_event_seq"]:
        expr = _merged(column, "%s")
        params.extend([column] * expr.count("%s"))
        assignments.append(f"{column} = {expr}")
    sql = f"UPDATE runs SET {', '.join(assignments)} WHERE id = %s AND last_event_seq < %s"
    return sql, [*params, "id", "last_event_seq"]


def stored_evaluations(sample_count: int) -> str:
    """The stored (sample, epoch, score) of one run's samples."""
    return (
        "SELECT sample_id, epoch, score FROM evaluations "
        f"WHERE run_id = %s AND sample_id IN ({_placeholders(sample_count)})"
    )


_PERCENTAGE = (
    "CASE WHEN total_evaluations > 0 THEN LEAST(100, ROUND("
    "100 * (completed_evaluations + skipped_evaluations{extra}) / total_evaluations, 2)) "
    "ELSE 0 END"
)

ADD_COUNTS = (
    # The percentage comes first and adds the delta itself, so it reads the old counts
    # whether the server assigns left to right or simultaneously.
    f"UPDATE runs SET completion_percentage = {_PERCENTAGE.format(extra=' + %s')}, "
    "completed_evaluations = completed_evaluations + %s, "
    "skipped_evaluations = skipped_evaluations + %s, "
    "correct_evaluations = correct_evaluations + %s, "
    "completed_questions = completed_questions + %s, "
    "skipped_questions = GREATEST(CAST(skipped_questions AS SIGNED) + %s, 0) "
    "WHERE id = %s"
)
"""Parameters: processed, done, skipped, correct, completed questions, skipped questions, id."""


def refresh_lifecycle(run_count: int) -> str:
    """Recompute the completion percentage and duration of runs whose lifecycle changed."""
    return (
        f"UPDATE runs SET completion_percentage = {_PERCENTAGE.format(extra='')}, "
        "duration_ms = CASE WHEN finished_at IS NULL THEN NULL ELSE TIMESTAMPDIFF("
        "MICROSECOND, COALESCE(started_at, created_at), finished_at) DIV 1000 END "
        f"WHERE id IN ({_placeholders(run_count)})"
    )
