"""Helpers of the archiver integration tests: settings, an in-process archiver, the synthetic
run, waiting for facts, reading the bucket."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import nats.errors
from aiobotocore.session import get_session
from nats.js import JetStreamContext

from bench_archiver.main import serve
from bench_archiver.settings import ArchiverSettings
from bench_common.bus import ensure_streams, last_event, publish, run_history
from bench_common.envelope import Event
from tests.support.archive_runs import finished_run
from tests.support.s3 import S3Server

PREFIX = "benchmark-runs"


def folder(run_id: str) -> str:
    """Where the synthetic GPQA run (started 2026-03-01 UTC) is archived."""
    return f"{PREFIX}/gpqa/2026/03/01/{run_id}/"


def settings_for(
    nats_url: str, server: S3Server, bucket: str, staging: Path, **overrides: Any
) -> ArchiverSettings:
    """Archiver settings for a test (fast retries, short ack wait)."""
    values: dict[str, Any] = {
        "nats_url": nats_url,
        "spaces_endpoint": server.endpoint,
        "spaces_region": server.region,
        "spaces_bucket": bucket,
        "spaces_access_key_id": server.access_key,
        "spaces_secret_access_key": server.secret_key,
        "spaces_prefix": PREFIX,
        "spaces_force_path_style": True,
        "bench_archive_staging_dir": staging,
        "bench_archiver_ack_wait_s": 3.0,
        "bench_archiver_retry_base_s": 0.05,
        **overrides,
    }
    return ArchiverSettings(**values)


def environment(settings: ArchiverSettings) -> dict[str, str]:
    """The same settings as environment variables, for an archiver subprocess."""
    return {
        "NATS_URL": settings.nats_url,
        "SPACES_ENDPOINT": settings.spaces_endpoint,
        "SPACES_REGION": settings.spaces_region,
        "SPACES_BUCKET": settings.spaces_bucket,
        "SPACES_ACCESS_KEY_ID": settings.spaces_access_key_id.get_secret_value(),
        "SPACES_SECRET_ACCESS_KEY": settings.spaces_secret_access_key.get_secret_value(),
        "SPACES_PREFIX": settings.spaces_prefix,
        "SPACES_FORCE_PATH_STYLE": "1" if settings.spaces_force_path_style else "0",
        "BENCH_ARCHIVE_STAGING_DIR": str(settings.bench_archive_staging_dir),
        "BENCH_ARCHIVER_ACK_WAIT_S": str(settings.bench_archiver_ack_wait_s),
        "BENCH_ARCHIVER_RETRY_BASE_S": str(settings.bench_archiver_retry_base_s),
    }


@contextlib.asynccontextmanager
async def running_archiver(settings: ArchiverSettings) -> AsyncIterator[None]:
    """`bench archiver` in this event loop, ready when the block starts, stopped at its end."""
    stop, ready = asyncio.Event(), asyncio.Event()
    task = asyncio.create_task(serve(settings, stop=stop, ready=ready))
    waiting = asyncio.create_task(ready.wait())
    await asyncio.wait({task, waiting}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if task.done():
        task.result()  # it stopped before being ready: show why
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, 20)


async def publish_run(js: JetStreamContext, run_id: str) -> list[Event]:
    """Publish the synthetic finished run; return its events."""
    await ensure_streams(js)
    events = finished_run(run_id)
    for event in events:
        await publish(js, event)
    return events


async def wait_for(
    js: JetStreamContext, event_type: type[Event], run_id: str, timeout: float = 30
) -> Event:
    """Poll until the run has an event of `event_type`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(nats.errors.Error, TimeoutError):
            found = await last_event(js, event_type, run_id)
            if found is not None:
                return found
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {event_type.__name__} for run {run_id} within {timeout}s")


async def history(js: JetStreamContext, run_id: str) -> list[Event]:
    """The run's events, oldest first."""
    return [event async for _, event in run_history(js, run_id)]


@contextlib.asynccontextmanager
async def s3_client(server: S3Server) -> AsyncIterator[Any]:
    """A plain aiobotocore client on `server`."""
    async with get_session().create_client(
        "s3",
        endpoint_url=server.endpoint,
        region_name=server.region,
        aws_access_key_id=server.access_key,
        aws_secret_access_key=server.secret_key,
    ) as client:
        yield client


async def objects(server: S3Server, bucket: str, prefix: str = "") -> dict[str, bytes]:
    """Every object under `prefix`: key -> content."""
    found: dict[str, bytes] = {}
    async with s3_client(server) as client:
        listed = await client.list_objects_v2(Bucket=bucket, Prefix=prefix)
        for item in listed.get("Contents", []):
            response = await client.get_object(Bucket=bucket, Key=item["Key"])
            async with response["Body"] as body:
                found[item["Key"]] = await body.read()
    return found
