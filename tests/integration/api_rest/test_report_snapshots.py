"""Reports kept in JetStream (`BENCH_REPORTS`) against real nats-servers: larger than a message,
read back whole, never half-written, never from other code, and a server that is gone costs a
rendering, not an error."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import nats
import pytest

from bench_api.adapters.report_snapshots import STREAM, JetStreamSnapshots, open_snapshots
from tests.support.services import private_nats

pytestmark = pytest.mark.integration
KEY = ("run-1", "gpqa-report", 42)


def small_messages(tmp_path: Path) -> str:
    """A server config with a 64 KiB message limit: a report of 1 MB takes 17 chunks."""
    config = tmp_path / "nats.conf"
    config.write_text("max_payload: 65536\n")
    return str(config)


async def test_a_report_is_kept_in_chunks_and_read_back_whole(tmp_path: Path) -> None:
    body = os.urandom(1_000_000)
    with private_nats("-c", small_messages(tmp_path)) as server:
        nc = await nats.connect(server.url)
        snapshots = JetStreamSnapshots(nc)
        await snapshots.ensure()
        await snapshots.ensure()  # idempotent (every api start)
        assert await snapshots.load(KEY) is None
        snapshots.keep(KEY, body)
        snapshots.keep(KEY, body)  # one save per key at a time
        await snapshots.close()
        assert await snapshots.load(KEY) == body
        assert await snapshots.load(("run-1", "gpqa-report", 43)) is None  # a later event
        other_code = JetStreamSnapshots(nc, code="another-version")
        assert await other_code.load(KEY) is None
        info = await nc.jetstream().stream_info(STREAM)
        assert info.state.messages == 18 and info.config.max_msgs_per_subject == 1
        await snapshots.save(KEY, body)  # saved again: replaced, not doubled
        assert (await nc.jetstream().stream_info(STREAM)).state.messages == 18
        assert await snapshots.load(KEY) == body
        await nc.close()


async def test_a_report_missing_a_chunk_or_its_manifest_is_not_used(tmp_path: Path) -> None:
    with private_nats("-c", small_messages(tmp_path)) as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream()
        snapshots = JetStreamSnapshots(nc)
        await snapshots.ensure()
        await snapshots.save(KEY, os.urandom(200_000))
        prefix = snapshots._prefix(KEY)
        await js.purge_stream(STREAM, subject=f"{prefix}.2")
        assert await snapshots.load(KEY) is None
        await snapshots.save(KEY, b"{}")
        assert await snapshots.load(KEY) == b"{}"
        await js.purge_stream(STREAM, subject=f"{prefix}.manifest")
        assert await snapshots.load(KEY) is None
        await nc.close()


async def test_a_server_that_is_gone_costs_a_rendering_not_an_error() -> None:
    with private_nats() as server:
        nc = await nats.connect(server.url, max_reconnect_attempts=1, reconnect_time_wait=0.1)
        snapshots = JetStreamSnapshots(nc)
        await snapshots.ensure()
        server.stop(kill=True)
        started = time.monotonic()
        assert await snapshots.load(KEY) is None
        snapshots.keep(KEY, b"{}")
        await snapshots.close(timeout=5)
        assert time.monotonic() - started < 15
        await asyncio.sleep(0)
        await nc.close()


async def test_a_server_with_no_room_for_the_stream_leaves_the_api_without_snapshots(
    tmp_path: Path,
) -> None:
    config = tmp_path / "nats.conf"
    config.write_text("jetstream { max_file_store: 104857600 }\n")  # 100 MB < the stream's 1 GiB
    with private_nats("-c", str(config)) as server:
        nc = await nats.connect(server.url)
        assert await open_snapshots(nc) is None
        await nc.close()
    with private_nats() as server:
        nc = await nats.connect(server.url)
        assert isinstance(await open_snapshots(nc), JetStreamSnapshots)
        await nc.close()
