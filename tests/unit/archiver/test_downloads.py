"""Presigned URLs: only for files of confirmed archives."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_archiver.adapters.staging import Staging
from bench_archiver.archiving import Archiver
from bench_archiver.downloads import ManifestCache, artifact_url
from bench_archiver.uploading import UploadPolicy
from bench_common.commands import ArtifactUrlReply, ArtifactUrlRequest
from tests.support.archive_runs import finished_run
from tests.unit.archiver.fakes import FakeEventLog, FakeObjectStore, FakeRunEvents

RUN = "run-d1"
FOLDER = f"benchmark-runs/gpqa/2026/03/01/{RUN}/"


@pytest.fixture
async def archived(tmp_path: Path) -> tuple[FakeRunEvents, FakeObjectStore]:
    stream = FakeRunEvents(finished_run(RUN))
    store = FakeObjectStore()
    archiver = Archiver(
        events=stream, log=FakeEventLog(stream), store=store,
        staging=Staging(tmp_path), prefix="benchmark-runs", policy=UploadPolicy(),
    )  # fmt: skip
    await archiver.archive(RUN)
    return stream, store


async def _ask(
    setup: tuple[FakeRunEvents, FakeObjectStore], path: str, run_id: str = RUN
) -> ArtifactUrlReply:
    stream, store = setup
    request = ArtifactUrlRequest(run_id=run_id, path=path)
    return await artifact_url(request, events=stream, store=store, manifests=ManifestCache())


async def test_a_listed_file_gets_a_url(archived: tuple[FakeRunEvents, FakeObjectStore]) -> None:
    reply = await _ask(archived, "logs/run.log")
    assert reply.status == 200 and reply.expires_in_s == 300
    assert reply.key == FOLDER + "logs/run.log"
    assert reply.url is not None and FOLDER + "logs/run.log" in reply.url
    assert reply.content_type == "text/plain; charset=utf-8" and reply.bytes
    manifest = await _ask(archived, "manifest.json")
    assert manifest.status == 200 and manifest.content_type == "application/json"


async def test_refusals(archived: tuple[FakeRunEvents, FakeObjectStore]) -> None:
    assert (await _ask(archived, "../secrets")).status == 400
    assert (await _ask(archived, "logs/run.log", run_id="a.b")).status == 400
    missing = await _ask(archived, "logs/other.log")
    assert missing.status == 404 and "no file" in (missing.error or "")
    unknown = await _ask(archived, "logs/run.log", run_id="never-archived")
    assert unknown.status == 404 and "not archived" in (unknown.error or "")


async def test_storage_down_is_503(archived: tuple[FakeRunEvents, FakeObjectStore]) -> None:
    archived[1].down = True
    reply = await _ask(archived, "run.json")
    assert reply.status == 503 and "could not be reached" in (reply.error or "")
