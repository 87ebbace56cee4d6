"""The staged archive (what will be uploaded, with digests) and its manifest (pure).

The manifest (`bench_common.run_record.Manifest`, format version 1) is uploaded last: its
presence is the archive's completion marker. A staged archive remembers everything the
manifest needs, so an archive resumed after a crash, or retried days later, uploads the same
files under the same keys and writes the same manifest.
"""

from __future__ import annotations

import hashlib
from datetime import datetime

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from bench_archiver.bundle import BundleFile, RunFacts
from bench_archiver.layout import MANIFEST_PATH, object_key
from bench_common.events import RunStatus
from bench_common.run_record import Manifest, ManifestFile

STAGED_VERSION = 1


class StagedArchive(BaseModel):
    """A run's archive as staged locally: where it goes and what it holds."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)

    format_version: int = STAGED_VERSION
    run_id: str
    benchmark: str
    status: RunStatus
    failure_reason: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    folder: str
    """The run folder in the bucket, ending in `/`."""
    files: list[ManifestFile]

    @property
    def manifest_key(self) -> str:
        """The key of `manifest.json`."""
        return object_key(self.folder, MANIFEST_PATH)

    def key(self, path: str) -> str:
        """The key of the file at `path`."""
        return object_key(self.folder, path)


def stage_plan(facts: RunFacts, files: list[BundleFile], *, folder: str) -> StagedArchive:
    """Describe the bundle: each file's size and sha256, and the run facts the manifest says."""
    return StagedArchive(
        run_id=facts.run_id,
        benchmark=facts.requested.config.benchmark,
        status=facts.finished.status,
        failure_reason=facts.finished.failure_reason,
        started_at=facts.started.occurred_at if facts.started else None,
        finished_at=facts.finished.occurred_at,
        folder=folder,
        files=[
            ManifestFile(
                path=f.path,
                bytes=len(f.data),
                sha256=hashlib.sha256(f.data).hexdigest(),
                content_type=f.content_type,
            )
            for f in files
        ],
    )


def build_manifest(plan: StagedArchive, *, uploaded_at: datetime) -> Manifest:
    """The manifest of a staged archive, uploaded at `uploaded_at`."""
    return Manifest(
        run_id=plan.run_id,
        benchmark=plan.benchmark,
        status=plan.status,
        failure_reason=plan.failure_reason,
        started_at=plan.started_at,
        finished_at=plan.finished_at,
        uploaded_at=uploaded_at,
        files=plan.files,
    )


def manifest_bytes(manifest: Manifest) -> bytes:
    """The manifest as stored: camelCase JSON, indented."""
    return manifest.model_dump_json(by_alias=True, indent=2).encode()


def parse_manifest(data: bytes) -> Manifest | None:
    """A stored manifest, or None if it is not one (a torn or foreign object)."""
    try:
        return Manifest.model_validate_json(data)
    except ValidationError:
        return None


def matches(manifest: Manifest, plan: StagedArchive) -> bool:
    """Whether a stored manifest already describes exactly this staged archive."""
    return manifest.run_id == plan.run_id and manifest.files == plan.files
