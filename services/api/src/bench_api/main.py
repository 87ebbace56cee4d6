"""Composition root of the api service: settings, MySQL pool, NATS, projector, HTTP server.

`bench api` and `python -m bench_api` start it. It is the only module that builds real
adapters; everything else receives them as keyword arguments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Generator

import nats
import structlog
import uvicorn
from pydantic import ValidationError

from bench_api.adapters.event_source import JetStreamGaps, ProjectorConsumer
from bench_api.adapters.migrations import apply_migrations
from bench_api.adapters.mysql import close_pool, open_pool
from bench_api.adapters.projection_store import MysqlProjectionStore
from bench_api.app import create_app
from bench_api.projector import Projector
from bench_api.settings import ApiSettings, MysqlSettings, ProjectorSettings
from bench_common.bus import ensure_streams
from bench_common.logging import configure_logging

log = structlog.get_logger("bench_api")


class _Server(uvicorn.Server):
    """uvicorn's server without its re-raise of SIGTERM/SIGINT after shutdown, which would end
    the process before the projector is stopped and the connections are closed."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        try:
            yield
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)


class SettingsError(Exception):
    """The environment does not configure the service; the message names the variables."""


def settings_error(exc: ValidationError, prefix: str) -> SettingsError:
    """Turn pydantic's report into one line per environment variable."""
    lines = []
    for error in exc.errors():
        name = prefix + "_".join(str(p) for p in error["loc"]).upper() if error["loc"] else ""
        if error["type"] == "missing":
            lines.append(f"{name} is not set")
        else:
            lines.append(f"{name}: {error['msg']}".strip(": "))
    return SettingsError("; ".join(lines))


def load_settings() -> tuple[ApiSettings, MysqlSettings, ProjectorSettings]:
    """Every setting the service needs, or a `SettingsError` saying what is missing."""
    try:
        mysql = MysqlSettings()
    except ValidationError as exc:
        raise settings_error(exc, "MYSQL_") from exc
    try:
        return ApiSettings(), mysql, ProjectorSettings()
    except ValidationError as exc:
        raise settings_error(exc, "") from exc


async def serve(api: ApiSettings, mysql: MysqlSettings, projection: ProjectorSettings) -> None:
    """Run the projector and the HTTP server until SIGINT/SIGTERM."""
    pool = await open_pool(mysql)
    nc = await nats.connect(api.nats_url, max_reconnect_attempts=-1, reconnect_time_wait=1)
    js = nc.jetstream()
    await ensure_streams(js)
    consumer = ProjectorConsumer(js, batch_size=projection.batch_size)
    projector = Projector(
        events=consumer,
        store=MysqlProjectionStore(pool),
        gaps=JetStreamGaps(js),
        prepare=lambda: apply_migrations(pool),
        settings=projection,
        pending=lambda: consumer.pending,
    )
    app = create_app(projector=projector.status)
    server = _Server(
        uvicorn.Config(app, host=api.host, port=api.port, log_config=None, access_log=False)
    )
    stop = asyncio.Event()
    folding = asyncio.create_task(projector.run(stop), name="projector")
    log.info("api.started", host=api.host, port=api.port, nats=api.nats_url)
    try:
        await server.serve()
    finally:
        stop.set()
        # An interrupted batch is rolled back and redelivered; nothing is acked early.
        folding.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await folding
        await consumer.close()
        await nc.close()
        await close_pool(pool)
        log.info("api.stopped")


def main(argv: list[str] | None = None) -> int:
    """`bench api`: serve the api (for now `GET /health`) and keep MySQL projected."""
    parser = argparse.ArgumentParser(
        prog="bench api",
        description=(
            "Serve the api on BENCH_API_HOST:BENCH_API_PORT (default 127.0.0.1:8080) and fold "
            "BENCH_EVENTS (NATS_URL) into MySQL (MYSQL_HOST, MYSQL_PORT, MYSQL_USER, "
            "MYSQL_PASSWORD, MYSQL_DATABASE, MYSQL_SSL_MODE, MYSQL_CA_CERT_PATH, "
            "MYSQL_CONNECTION_LIMIT)."
        ),
    )
    parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        settings = load_settings()
    except SettingsError as exc:
        sys.stderr.write(f"bench api: {exc}\n")
        return 2
    configure_logging(json_output=True)
    asyncio.run(serve(*settings))
    return 0
