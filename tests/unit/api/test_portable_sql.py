"""Every statement the api sends must be accepted by MySQL 8 and MariaDB 10.11 alike."""

from __future__ import annotations

import re

import pytest

from bench_api.adapters import projection_sql as sql
from bench_api.adapters.migrations import load_migrations, split_statements
from bench_api.projection.changes import RUN_COLUMN_MERGE

# Constructs one of the two servers refuses (reference: stack-notes §3).
NOT_PORTABLE = {
    "->> / -> JSON operators (MariaDB)": re.compile(r"-\>\>?"),
    "INSERT ... AS alias upsert (MariaDB)": re.compile(r"\)\s+AS\s+\w+\s+ON\s+DUPLICATE", re.I),
    "CREATE INDEX IF NOT EXISTS (MySQL)": re.compile(r"CREATE\s+INDEX\s+IF\s+NOT", re.I),
    "ADD COLUMN IF NOT EXISTS (MySQL)": re.compile(r"ADD\s+COLUMN\s+IF\s+NOT", re.I),
    "RETURNING (MySQL)": re.compile(r"\bRETURNING\b", re.I),
}


def generated_statements() -> list[str]:
    columns = [*sorted(RUN_COLUMN_MERGE), "benchmark", "disabled"]
    return [
        sql.insert_first_wins("evaluations", sql.EVALUATION_COLUMNS),
        sql.insert_first_wins("request_attempts", sql.ATTEMPT_COLUMNS),
        sql.complete_attempts(),
        sql.upsert_run(columns)[0],
        sql.update_run(columns)[0],
        sql.stored_evaluations(3),
        sql.ADD_COUNTS,
        sql.refresh_lifecycle(3),
        sql.LOCK_POSITION,
        sql.STORE_POSITION,
    ]


def migration_statements() -> list[str]:
    return [s for m in load_migrations() for s in m.statements]


@pytest.mark.parametrize("name", sorted(NOT_PORTABLE))
def test_no_statement_uses_a_construct_one_server_refuses(name: str) -> None:
    for statement in migration_statements() + generated_statements():
        assert not NOT_PORTABLE[name].search(statement), f"{name} in: {statement[:200]}"


def test_migrations_are_numbered_and_create_every_table() -> None:
    versions = [m.version for m in load_migrations()]
    assert versions == sorted(versions)
    assert versions[0].startswith("001_")
    text = " ".join(migration_statements())
    for table in ("runs", "evaluations", "request_attempts", "projection_position"):
        assert f"CREATE TABLE IF NOT EXISTS {table} (" in text


def test_statements_are_split_at_line_ending_semicolons() -> None:
    text = "-- a comment; not a statement\nCREATE TABLE a (x INT);\n\nINSERT INTO a VALUES (1) ;\n"
    assert split_statements(text) == ["CREATE TABLE a (x INT)", "INSERT INTO a VALUES (1)"]


def test_status_guarded_columns_are_assigned_before_status_and_the_guard_last() -> None:
    statement, params = sql.update_run(["status", "finished_at", "failure_reason", "model"])
    set_clause = statement.split(" SET ", 1)[1]
    order = [part.split(" = ", 1)[0] for part in re.split(r", (?=\w+ = )", set_clause)]
    assert order.index("status") > order.index("finished_at")
    assert order.index("status") > order.index("failure_reason")
    assert order[-1].startswith("last_event_seq")
    assert statement.count("%s") == len(params)


def test_run_upsert_guards_every_column_by_event_sequence() -> None:
    statement, params = sql.upsert_run(["status", "model"])
    assert statement.count("%s") == len(params) == 5
    assert "last_event_seq = GREATEST(last_event_seq, VALUES(last_event_seq))" in statement
    assert statement.rstrip().endswith("VALUES(last_event_seq))")
