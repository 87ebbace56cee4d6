"""Presigned download URLs over NATS request/reply: fetched with httpx, refused by SeaweedFS
when tampered with."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import httpx
import nats
import pytest
from nats.aio.client import Client
from nats.errors import NoRespondersError

from bench_common.commands import ArtifactUrlReply, ArtifactUrlRequest
from bench_common.envelope import SUBJECT_ARTIFACT_URL
from bench_common.events import RunArchived
from tests.integration.archiver.support import (
    objects,
    publish_run,
    running_archiver,
    settings_for,
    wait_for,
)
from tests.support.s3 import S3Server
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def _ask(nc: Client, run_id: str, path: str) -> ArtifactUrlReply:
    request = ArtifactUrlRequest(run_id=run_id, path=path).model_dump_json().encode()
    # The archiver subscribes after it starts; on a loaded machine the first question can
    # arrive before anyone listens (no responders), so ask again for a little while.
    for _ in range(100):
        try:
            reply = await nc.request(SUBJECT_ARTIFACT_URL, request, timeout=10)
            return ArtifactUrlReply.model_validate_json(reply.data)
        except NoRespondersError:
            await asyncio.sleep(0.1)
    raise AssertionError("the archiver never answered artifact URL requests")


async def test_presigned_urls(
    restartable_nats: NatsServer, seaweed: S3Server, bucket: str, tmp_path: Path
) -> None:
    run_id = "arch-urls"
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    settings = settings_for(restartable_nats.url, seaweed, bucket, tmp_path)
    try:
        async with running_archiver(settings):
            not_yet = await _ask(nc, run_id, "run.json")
            assert not_yet.status == 404 and "not archived" in (not_yet.error or "")
            await publish_run(js, run_id)
            await wait_for(js, RunArchived, run_id)

            reply = await _ask(nc, run_id, "logs/run.log")
            assert reply.status == 200 and reply.url and reply.expires_in_s == 300
            manifest_reply = await _ask(nc, run_id, "manifest.json")
            assert manifest_reply.status == 200 and manifest_reply.url
            assert (await _ask(nc, run_id, "logs/none.log")).status == 404
            assert (await _ask(nc, run_id, "../../etc/passwd")).status == 400
            garbage = await nc.request(SUBJECT_ARTIFACT_URL, b"{not json", timeout=10)
            assert ArtifactUrlReply.model_validate_json(garbage.data).status == 400

        async with httpx.AsyncClient() as http:
            manifest = json.loads((await http.get(manifest_reply.url)).content)
            entry = next(f for f in manifest["files"] if f["path"] == "logs/run.log")
            fetched = await http.get(reply.url)
            assert fetched.status_code == 200
            assert hashlib.sha256(fetched.content).hexdigest() == entry["sha256"]
            assert reply.bytes == entry["bytes"] == len(fetched.content)

            signature = reply.url.rsplit("X-Amz-Signature=", 1)[1]
            flipped = ("0" if signature[0] != "0" else "1") + signature[1:]
            tampered = reply.url.replace(signature, flipped)
            assert (await http.get(tampered)).status_code == 403
            other_key = reply.url.replace("logs/run.log", "run.json")
            assert (await http.get(other_key)).status_code == 403
        assert len(await objects(seaweed, bucket)) == 7
    finally:
        await nc.close()
