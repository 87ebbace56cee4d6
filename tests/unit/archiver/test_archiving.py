"""The archive job: order of uploads and facts, failure, retry, resume."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench_archiver.adapters.staging import Staging
from bench_archiver.archiving import Archiver
from bench_archiver.uploading import UploadPolicy
from bench_common.events import ArchiveFailed, ArtifactUploaded, RunArchived, RunFinished
from tests.support.archive_runs import finished_run
from tests.unit.archiver.fakes import FakeEventLog, FakeObjectStore, FakeRunEvents, unavailable

RUN = "run-a1"
FOLDER = f"benchmark-runs/gpqa/2026/03/01/{RUN}/"
UPLOADED_AT = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        self.stream = FakeRunEvents(finished_run(RUN))
        self.log = FakeEventLog(self.stream)
        self.store = FakeObjectStore()
        self.staging = Staging(tmp_path / "staging")
        self.archiver = Archiver(
            events=self.stream, log=self.log, store=self.store, staging=self.staging,
            prefix="benchmark-runs", policy=UploadPolicy(attempts=3, base_delay_s=0),
            clock=lambda: UPLOADED_AT,
        )  # fmt: skip


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


async def test_files_then_manifest_then_run_archived(setup: Setup) -> None:
    outcome = await setup.archiver.archive(RUN)
    assert outcome.result == "archived" and outcome.manifest_key == FOLDER + "manifest.json"
    assert setup.store.puts[-1] == FOLDER + "manifest.json"
    assert all(key.startswith(FOLDER) for key in setup.store.puts)
    manifest = json.loads(setup.store.objects[FOLDER + "manifest.json"][0])
    assert manifest["formatVersion"] == 1 and manifest["runId"] == RUN
    assert manifest["status"] == "succeeded" and manifest["benchmark"] == "gpqa_diamond"
    assert manifest["uploadedAt"] == "2026-03-02T08:00:00Z"
    for entry in manifest["files"]:
        data = setup.store.objects[FOLDER + entry["path"]][0]
        assert entry["bytes"] == len(data)
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
    assert len(manifest["files"]) == 6
    uploaded = setup.log.of(ArtifactUploaded)
    assert [u.key for u in uploaded] == [FOLDER + f["path"] for f in manifest["files"]]
    assert isinstance(setup.stream.events[-1], RunArchived)
    assert setup.stream.events[-1].files == 6
    assert not setup.staging.run_dir(RUN).exists()  # confirmed: staging removed


async def test_failure_keeps_the_staging_and_a_retry_finishes(setup: Setup) -> None:
    setup.store.down = True
    outcome = await setup.archiver.archive(RUN)
    assert outcome.result == "failed"
    failed = setup.log.of(ArchiveFailed)[-1]
    assert f"bench archive retry {RUN}" in failed.error
    assert failed.details["stage"] == "upload" and failed.details["bucket"] == "bench-fake"
    assert setup.staging.load(RUN) is not None
    assert (setup.staging.run_dir(RUN) / "files" / "run.json").is_file()
    # The run's own status is untouched: the archiver never publishes RunFinished.
    assert [e.status for e in setup.log.of(RunFinished)] == ["succeeded"]

    setup.store.down = False
    assert (await setup.archiver.archive(RUN)).result == "archived"
    assert not setup.staging.run_dir(RUN).exists()


async def test_resume_uploads_only_what_is_missing(setup: Setup) -> None:
    await setup.archiver.archive(RUN)
    first_puts = list(setup.store.puts)
    # Forget the confirmation: as if the process died after uploading, before RunArchived.
    setup.stream.events = [e for e in setup.stream.events if not isinstance(e, RunArchived)]
    del setup.store.objects[FOLDER + "run.json"]
    setup.store.puts.clear()
    assert (await setup.archiver.archive(RUN)).result == "archived"
    assert setup.store.puts == [FOLDER + "run.json"]  # the manifest was already right
    assert len(first_puts) == 7


async def test_retried_uploads_record_their_failed_attempts(setup: Setup) -> None:
    setup.store.failures.extend([unavailable(), unavailable(status=None)])
    assert (await setup.archiver.archive(RUN)).result == "archived"
    first = setup.log.of(ArtifactUploaded)[0]
    assert first.attempts == 3
    assert [f["status"] for f in first.failed_attempts] == [503, None]
    assert first.failed_attempts[0]["requestId"] == "REQ1"
    assert all(u.attempts == 1 for u in setup.log.of(ArtifactUploaded)[1:])


async def test_an_archived_run_is_left_alone(setup: Setup) -> None:
    await setup.archiver.archive(RUN)
    setup.store.puts.clear()
    assert (await setup.archiver.archive(RUN)).result == "already_archived"
    assert setup.store.puts == []
    assert len(setup.log.of(RunArchived)) == 1


async def test_an_unfinished_run_is_not_archived(setup: Setup) -> None:
    setup.stream.events = [e for e in setup.stream.events if not isinstance(e, RunFinished)]
    assert (await setup.archiver.archive(RUN)).result == "not_archivable"
    assert setup.store.puts == [] and not setup.log.of(ArchiveFailed)


async def test_a_staged_archive_is_reused_as_staged(setup: Setup) -> None:
    setup.store.down = True
    await setup.archiver.archive(RUN)
    staged = setup.staging.file(RUN, "run.json")
    staged.write_bytes(staged.read_bytes())  # untouched content, same digest
    setup.stream.events.append(setup.stream.events[0])  # history changes are not re-read
    setup.store.down = False
    await setup.archiver.archive(RUN)
    manifest = json.loads(setup.store.objects[FOLDER + "manifest.json"][0])
    assert len(manifest["files"]) == 6
