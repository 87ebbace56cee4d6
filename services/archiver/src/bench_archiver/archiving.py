"""Archiving one run: stage (or reuse the staged archive), upload what is missing, manifest
last, then `RunArchived`; or `ArchiveFailed` with the staged files kept for a retry.

Every step is idempotent, so a `RunFinished` redelivered after a crash, a restart that resumes
staged archives and `bench archive retry` all run the same code: keys are a function of the
run, files already stored with the same sha256 are skipped, the manifest is reused when it
already lists the same files, and the facts published have deterministic ids.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

import structlog
from pydantic import JsonValue

from bench_archiver.adapters.staging import Staging
from bench_archiver.bundle import NotArchivableError, build_bundle, fold_run
from bench_archiver.layout import MANIFEST_PATH, content_type, object_key, run_prefix
from bench_archiver.manifest import (
    StagedArchive,
    build_manifest,
    manifest_bytes,
    matches,
    parse_manifest,
    stage_plan,
)
from bench_archiver.ports import EventLog, ObjectStore, RunEvents, StoreError
from bench_archiver.uploading import (
    Sleep,
    UploadFailedError,
    UploadPolicy,
    UploadResult,
    upload_file,
)
from bench_common.envelope import deterministic_event_id, utc_now
from bench_common.events import ArchiveFailed, ArtifactUploaded, RunArchived

log = structlog.get_logger("bench_archiver")

Result = Literal["archived", "already_archived", "failed", "not_archivable"]


@dataclass(frozen=True)
class ArchiveOutcome:
    """How one archiving attempt ended."""

    run_id: str
    result: Result
    manifest_key: str | None = None
    error: str | None = None


class Archiver:
    """Archives runs one at a time per run (concurrent requests for a run wait their turn)."""

    def __init__(
        self,
        *,
        events: RunEvents,
        log: EventLog,
        store: ObjectStore,
        staging: Staging,
        prefix: str,
        policy: UploadPolicy,
        clock: Callable[[], datetime] = utc_now,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self._events = events
        self._log = log
        self._store = store
        self._staging = staging
        self._prefix = prefix
        self._policy = policy
        self._clock = clock
        self._sleep = sleep
        self._locks: dict[str, asyncio.Lock] = {}

    async def archive(self, run_id: str) -> ArchiveOutcome:
        """Archive the run unless it already is.

        Raises:
            Exception: reading or publishing events failed (NATS); nothing is lost, the caller
                retries later.
        """
        async with self._locks.setdefault(run_id, asyncio.Lock()):
            return await self._archive(run_id)

    async def _archive(self, run_id: str) -> ArchiveOutcome:
        if await self._events.last(RunArchived, run_id) is not None:
            self._staging.remove(run_id)  # a crash may have left it after confirmation
            return ArchiveOutcome(run_id, "already_archived")
        try:
            plan = self._staging.load(run_id) or await self._stage(run_id)
        except NotArchivableError as exc:
            log.warning("run not archivable", run_id=run_id, reason=str(exc))
            return ArchiveOutcome(run_id, "not_archivable", error=str(exc))
        except OSError as exc:
            error = f"could not stage the archive in {self._staging.root}: {exc}"
            return await self._failed(run_id, error, {"stage": "staging"})
        try:
            await self._upload(plan)
        except UploadFailedError as exc:
            return await self._failed(run_id, str(exc), {"stage": "upload", **exc.details()})
        except StoreError as exc:
            return await self._failed(run_id, str(exc), {"stage": "upload", **exc.to_json()})
        self._staging.remove(run_id)
        return ArchiveOutcome(run_id, "archived", manifest_key=plan.manifest_key)

    async def _stage(self, run_id: str) -> StagedArchive:
        facts = fold_run(run_id, await self._events.history(run_id))
        folder = run_prefix(
            self._prefix, facts.requested.config.benchmark, facts.started_at, run_id
        )
        # Building Parquet and reports is CPU work: off the event loop, which must keep
        # acking long jobs and answering download requests meanwhile.
        files = await asyncio.to_thread(
            build_bundle, facts, manifest_key=object_key(folder, MANIFEST_PATH)
        )
        plan = stage_plan(facts, files, folder=folder)
        staged = await asyncio.to_thread(self._staging.save, plan, files)
        log.info("archive staged", run_id=run_id, folder=folder, files=len(files))
        return staged

    async def _upload(self, plan: StagedArchive) -> None:
        run_id = plan.run_id
        try:
            aborted = await self._store.abort_incomplete_uploads(plan.folder)
            if aborted:
                log.info("aborted unfinished multipart uploads", run_id=run_id, count=aborted)
        except StoreError as exc:  # housekeeping only: the uploads below say what matters
            log.warning("could not list unfinished uploads", run_id=run_id, error=str(exc))
        for f in plan.files:
            result = await self._put(plan, f.path, f.sha256, f.content_type)
            await self._log.publish(
                ArtifactUploaded(
                    event_id=deterministic_event_id(run_id, "artifact_uploaded", f.path, f.sha256),
                    run_id=run_id,
                    key=plan.key(f.path),
                    bytes=f.bytes,
                    sha256=f.sha256,
                    content_type=f.content_type,
                    attempts=result.attempts,
                    failed_attempts=[e.to_json() for e in result.failures],
                )
            )
            log.info("artifact uploaded", run_id=run_id, path=f.path, attempts=result.attempts)
        await self._put_manifest(plan)
        await self._log.publish(
            RunArchived(
                event_id=deterministic_event_id(run_id, "archived"),
                run_id=run_id,
                manifest_key=plan.manifest_key,
                files=len(plan.files),
            )
        )
        log.info("run archived", run_id=run_id, manifest_key=plan.manifest_key)

    async def _put(self, plan: StagedArchive, path: str, sha256: str, kind: str) -> UploadResult:
        return await upload_file(
            self._store,
            path=path,
            source=self._staging.file(plan.run_id, path),
            key=plan.key(path),
            sha256=sha256,
            content_type=kind,
            policy=self._policy,
            sleep=self._sleep,
        )

    async def _put_manifest(self, plan: StagedArchive) -> None:
        """Upload the manifest last; one already listing these files is kept as it is."""
        stored = await self._store.get_bytes(plan.manifest_key)
        existing = None if stored is None else parse_manifest(stored)
        if existing is not None and matches(existing, plan):
            data = stored or b""
        else:
            data = manifest_bytes(build_manifest(plan, uploaded_at=self._clock()))
        await asyncio.to_thread(self._staging.write_file, plan.run_id, MANIFEST_PATH, data)
        digest = hashlib.sha256(data).hexdigest()
        await self._put(plan, MANIFEST_PATH, digest, content_type(MANIFEST_PATH))

    async def _failed(
        self, run_id: str, error: str, details: dict[str, JsonValue]
    ) -> ArchiveOutcome:
        staged = self._staging.run_dir(run_id)
        message = (
            f"archive of run {run_id} failed: {error}. The artifacts stay staged in {staged}; "
            f"run `bench archive retry {run_id}` once the storage is reachable"
        )
        details = {**details, "bucket": self._store.bucket, "stagingDir": str(staged)}
        log.error("archive failed", run_id=run_id, error=error[:1000])
        await self._log.publish(ArchiveFailed(run_id=run_id, error=message, details=details))
        return ArchiveOutcome(run_id, "failed", error=message)
