"""Versioned schema migrations: numbered `.sql` files applied in order, tracked in
`schema_migrations(version, applied_at)` like the original harness.

Every file must hold only SQL that MySQL 8 and MariaDB 10.11 both accept (no `->>`, no
`AS new` upsert alias, no `CREATE INDEX IF NOT EXISTS` / `ADD COLUMN IF NOT EXISTS`, no
`RETURNING`). DDL commits implicitly, so a file that failed half way is re-run from the top:
write table creations as `CREATE TABLE IF NOT EXISTS` with their indexes inline, and guard a
future `ALTER TABLE` with a look at `information_schema`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import asyncmy

MIGRATIONS_PACKAGE = "bench_api"
MIGRATIONS_FOLDER = "migrations"
LOCK_NAME = "bench_api.migrations"
LOCK_TIMEOUT_S = 60

PROJECTION_TABLES = ("request_attempts", "evaluations", "runs", "projection_position")
"""Every table the migrations create (all of them derived from BENCH_EVENTS)."""

_FILE_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")
_TRACKING_TABLE = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "version VARCHAR(255) NOT NULL PRIMARY KEY, applied_at DATETIME(3) NOT NULL"
    ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4"
)


@dataclass(frozen=True)
class Migration:
    """One numbered file: its version (the file name without `.sql`) and statements."""

    version: str
    statements: tuple[str, ...]


def split_statements(text: str) -> list[str]:
    """Statements of a migration file: `--` comment lines dropped, split at a `;` that ends a
    line (the files keep semicolons out of string literals)."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("--")]
    chunks = re.split(r";\s*$", "\n".join(lines), flags=re.MULTILINE)
    return [chunk.strip() for chunk in chunks if chunk.strip()]


def load_migrations() -> list[Migration]:
    """The migration files shipped in the package, oldest first."""
    folder = resources.files(MIGRATIONS_PACKAGE).joinpath(MIGRATIONS_FOLDER)
    found = []
    for entry in folder.iterdir():
        if _FILE_NAME.match(entry.name):
            statements = tuple(split_statements(entry.read_text(encoding="utf-8")))
            found.append(Migration(version=entry.name.removesuffix(".sql"), statements=statements))
    return sorted(found, key=lambda m: m.version)


async def apply_migrations(pool: asyncmy.Pool) -> list[str]:
    """Apply the migrations not yet recorded; return the versions applied now.

    A named lock (`GET_LOCK`) keeps two api replicas starting together from racing.
    """
    applied_now: list[str] = []
    async with pool.acquire() as conn, conn.cursor() as cursor:
        await cursor.execute("SELECT GET_LOCK(%s, %s)", (LOCK_NAME, LOCK_TIMEOUT_S))
        got = await cursor.fetchone()
        if got is None or got[0] != 1:
            raise RuntimeError(f"another process held the migration lock for {LOCK_TIMEOUT_S}s")
        try:
            await cursor.execute(_TRACKING_TABLE)
            await cursor.execute("SELECT version FROM schema_migrations")
            done = {str(row[0]) for row in await cursor.fetchall()}
            for migration in load_migrations():
                if migration.version in done:
                    continue
                for statement in migration.statements:
                    await cursor.execute(statement)
                await cursor.execute(
                    "INSERT INTO schema_migrations (version, applied_at) "
                    "VALUES (%s, UTC_TIMESTAMP(3))",
                    (migration.version,),
                )
                await conn.commit()
                applied_now.append(migration.version)
        finally:
            await cursor.execute("SELECT RELEASE_LOCK(%s)", (LOCK_NAME,))
            await cursor.fetchall()
            await conn.commit()
    return applied_now


async def drop_projection(pool: asyncmy.Pool) -> None:
    """Drop every projection table and the migration record (for a rebuild from events)."""
    async with pool.acquire() as conn, conn.cursor() as cursor:
        await cursor.execute(f"DROP TABLE IF EXISTS {', '.join(PROJECTION_TABLES)}")
        await cursor.execute("DROP TABLE IF EXISTS schema_migrations")
        await conn.commit()
