"""The asyncmy connection pool of the api service (TLS per `MYSQL_SSL_MODE`)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import asyncmy

from bench_api.settings import MysqlSettings

CONNECT_TIMEOUT_S = 5
"""Short, so an unreachable server is reported (and its events NAKed) promptly."""


def silence_driver_notes() -> None:
    """Keep asyncmy from logging server Notes ("table already exists") at WARNING."""
    logging.getLogger("asyncmy").setLevel(logging.ERROR)


async def open_pool(settings: MysqlSettings, *, autocommit: bool = False) -> asyncmy.Pool:
    """A pool that connects lazily: the service starts even while MySQL is down.

    The REST queries use their own pool with `autocommit`, so every read sees the latest
    commit instead of a snapshot left open on a pooled connection.
    """
    silence_driver_notes()
    pool: asyncmy.Pool = await asyncmy.create_pool(
        minsize=0,
        maxsize=settings.connection_limit,
        host=settings.host,
        port=settings.port,
        user=settings.user,
        password=settings.password.get_secret_value(),
        database=settings.database,
        ssl=settings.ssl_context(),
        charset="utf8mb4",
        autocommit=autocommit,
        connect_timeout=CONNECT_TIMEOUT_S,
    )
    return pool


async def close_pool(pool: asyncmy.Pool) -> None:
    """Close every connection of the pool."""
    pool.close()
    await pool.wait_closed()


def sql_param(value: object) -> object:
    """A value in the form the column expects: datetimes as naive UTC, cut to milliseconds.

    DATETIME(3) has no zone, and MySQL rounds extra digits while MariaDB truncates them, so
    cutting here keeps both servers (and a rebuild) byte-for-byte equal.
    """
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.replace(microsecond=value.microsecond // 1000 * 1000)
    return value
