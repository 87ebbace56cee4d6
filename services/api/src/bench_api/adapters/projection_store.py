"""The projection's tables over asyncmy: one transaction per batch, position included."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import asyncmy
from asyncmy.cursors import Cursor

from bench_api.adapters import projection_sql as sql
from bench_api.adapters.mysql import sql_param
from bench_api.projection.changes import ChangeSet, EvaluationRow, RunPatch, SqlValue
from bench_api.projection.counts import CountDelta, new_evaluations

PROJECTOR = "projector"
"""Name of the projector's row in `projection_position`."""

_LIFECYCLE_INPUTS = frozenset({"created_at", "started_at", "finished_at", "total_evaluations"})
"""Columns the completion percentage and the duration derive from."""


class MysqlProjectionTransaction:
    """Writes one batch's changes inside an open transaction."""

    def __init__(self, cursor: Cursor, *, name: str) -> None:
        self._cursor = cursor
        self._name = name

    async def locked_position(self) -> int:
        """The stored position, row-locked until commit."""
        await self._cursor.execute(sql.LOCK_POSITION, (self._name,))
        row = await self._cursor.fetchone()
        if row is None:
            raise RuntimeError(
                f"projection_position has no row {self._name!r}: apply the migrations first"
            )
        return int(row[0])

    async def apply(self, changes: ChangeSet) -> None:
        """Runs first (a run row exists before its counts move), then evaluations and the
        counts they add, lifecycle-derived columns, attempts, and the position."""
        await self._write_runs(list(changes.runs.values()))
        await self._write_evaluations(changes)
        lifecycle = sorted(
            p.run_id for p in changes.runs.values() if _LIFECYCLE_INPUTS & p.columns.keys()
        )
        if lifecycle:
            await self._cursor.execute(sql.refresh_lifecycle(len(lifecycle)), lifecycle)
        started = [a for a in changes.attempts.values() if not a.completed]
        completed = [a for a in changes.attempts.values() if a.completed]
        if started:
            await self._cursor.executemany(
                sql.insert_first_wins("request_attempts", sql.ATTEMPT_COLUMNS),
                [_row(a.values, sql.ATTEMPT_COLUMNS) for a in started],
            )
        if completed:
            await self._cursor.executemany(
                sql.complete_attempts(), [_row(a.values, sql.ATTEMPT_COLUMNS) for a in completed]
            )
        await self._cursor.execute(sql.STORE_POSITION, (changes.last_seq, self._name))

    async def _write_evaluations(self, changes: ChangeSet) -> None:
        by_run: dict[str, list[EvaluationRow]] = defaultdict(list)
        for row in changes.evaluations.values():
            by_run[str(row.values["run_id"])].append(row)
        fresh: list[EvaluationRow] = []
        deltas: list[tuple[str, CountDelta]] = []
        for run_id, candidates in by_run.items():
            samples = sorted({str(r.values["sample_id"]) for r in candidates})
            await self._cursor.execute(sql.stored_evaluations(len(samples)), [run_id, *samples])
            stored = [(str(s), int(e), str(c)) for s, e, c in await self._cursor.fetchall()]
            rows, delta = new_evaluations(stored, candidates)
            fresh += rows
            if rows:
                deltas.append((run_id, delta))
        if fresh:
            await self._cursor.executemany(
                sql.insert_first_wins("evaluations", sql.EVALUATION_COLUMNS),
                [_row(r.values, sql.EVALUATION_COLUMNS) for r in fresh],
            )
        for run_id, d in deltas:
            await self._cursor.execute(
                sql.ADD_COUNTS,
                (
                    d.processed, d.done, d.skipped, d.correct,
                    d.completed_questions, d.skipped_questions, run_id,
                ),
            )  # fmt: skip

    async def _write_runs(self, patches: list[RunPatch]) -> None:
        # Patches with the same columns share one statement (and one executemany).
        groups: dict[tuple[bool, tuple[str, ...]], list[RunPatch]] = defaultdict(list)
        for patch in patches:
            groups[(patch.creates, tuple(sorted(patch.columns)))].append(patch)
        for (creates, columns), group in groups.items():
            statement, params = (sql.upsert_run if creates else sql.update_run)(columns)
            rows = [_row(_run_values(p), params) for p in group]
            if creates:
                await self._cursor.executemany(statement, rows)
            else:
                # Non-INSERT executemany runs row by row anyway; say so.
                for row in rows:
                    await self._cursor.execute(statement, row)


class MysqlProjectionStore:
    """The projection store over an asyncmy pool."""

    def __init__(self, pool: asyncmy.Pool, *, name: str = PROJECTOR) -> None:
        self._pool = pool
        self._name = name

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[MysqlProjectionTransaction]:
        """Commit on success; on any error roll back and drop the connection, which may be
        broken (MySQL restarted, network cut) and must not go back to the pool."""
        async with self._pool.acquire() as conn:
            try:
                await conn.begin()
                async with conn.cursor() as cursor:
                    yield MysqlProjectionTransaction(cursor, name=self._name)
                await conn.commit()
            except BaseException:
                conn.close()
                raise

    async def position(self) -> int:
        """The stored position (0 before anything was projected)."""
        async with self._pool.acquire() as conn:
            try:
                async with conn.cursor() as cursor:
                    await cursor.execute(sql.READ_POSITION, (self._name,))
                    row = await cursor.fetchone()
                await conn.commit()
            except BaseException:
                conn.close()
                raise
        return 0 if row is None else int(row[0])


def _run_values(patch: RunPatch) -> dict[str, SqlValue]:
    return {
        **patch.columns,
        "id": patch.run_id,
        "updated_at": patch.updated_at,
        "last_event_seq": patch.last_seq,
    }


def _row(values: dict[str, SqlValue], columns: Sequence[str]) -> list[object]:
    return [sql_param(values.get(c)) for c in columns]
