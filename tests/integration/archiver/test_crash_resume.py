"""An archiver killed mid-upload finishes the archive after a restart: every file present
once, each matching the manifest, nothing left half-uploaded."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import sys
import time
from pathlib import Path

import nats
import pytest

from bench_common.events import ArtifactUploaded, RunArchived
from tests.integration.archiver.support import (
    environment,
    folder,
    history,
    objects,
    publish_run,
    running_archiver,
    s3_client,
    settings_for,
    wait_for,
)
from tests.support.s3 import S3Server
from tests.support.s3_faults import FaultProxy
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def _uploaded(js: nats.js.JetStreamContext, run_id: str) -> int:
    return sum(isinstance(e, ArtifactUploaded) for e in await history(js, run_id))


async def test_killed_mid_upload_then_restarted(
    restartable_nats: NatsServer, seaweed: S3Server, bucket: str, fault_proxy: FaultProxy,
    tmp_path: Path,
) -> None:  # fmt: skip
    run_id = "arch-crash"
    fault_proxy.put_delay_s = 0.4  # slow PUTs: the kill lands between two files
    settings = settings_for(
        restartable_nats.url, seaweed.with_port(fault_proxy.port), bucket, tmp_path / "staging"
    )
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    log = (tmp_path / "archiver.log").open("wb")  # its log, for when this test fails
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench_archiver",
        env={**os.environ, **environment(settings)},
        stdout=log,
        stderr=log,
    )  # fmt: skip
    try:
        await publish_run(js, run_id)
        deadline = time.monotonic() + 60
        while await _uploaded(js, run_id) < 2:
            assert process.returncode is None, "the archiver exited early"
            assert time.monotonic() < deadline, "the archiver uploaded nothing"
            await asyncio.sleep(0.05)
        process.kill()  # SIGKILL: no clean-up of any kind
        await asyncio.wait_for(process.wait(), 10)
        assert await _uploaded(js, run_id) < 6
        assert (tmp_path / "staging" / run_id / "plan.json").is_file()

        fault_proxy.put_delay_s = 0
        async with running_archiver(settings):  # resumes the staged archive at start
            archived = await wait_for(js, RunArchived, run_id)
        assert isinstance(archived, RunArchived)

        stored = await objects(seaweed, bucket)
        prefix = folder(run_id)
        manifest = json.loads(stored[prefix + "manifest.json"])
        listed = sorted(prefix + f["path"] for f in manifest["files"])
        # None missing, none extra (no second Parquet, no stray part), manifest included.
        assert sorted(stored) == sorted([*listed, prefix + "manifest.json"])
        for entry in manifest["files"]:
            assert hashlib.sha256(stored[prefix + entry["path"]]).hexdigest() == entry["sha256"]
        async with s3_client(seaweed) as client:
            pending = await client.list_multipart_uploads(Bucket=bucket, Prefix=prefix)
        assert pending.get("Uploads", []) == []
        events = await history(js, run_id)
        assert sum(isinstance(e, RunArchived) for e in events) == 1
        assert {e.key for e in events if isinstance(e, ArtifactUploaded)} == set(listed)
        assert not (tmp_path / "staging" / run_id).exists()
    finally:
        if process.returncode is None:
            process.kill()
            await asyncio.wait_for(process.wait(), 10)
        log.close()
        await nc.close()
