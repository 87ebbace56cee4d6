"""The run record (`run.json`) and the archive manifest (`manifest.json`), format version 1."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from bench_common.events import RunCounts, RunKind, RunStatus, UploadStatus
from bench_common.run_config import RunConfig

RUN_RECORD_VERSION = 1
MANIFEST_VERSION = 1


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, frozen=True)


class RunRecord(_Camel):
    """What is known about one run: config, status, timing, counts, quality, upload state."""

    format_version: int = RUN_RECORD_VERSION
    id: str
    config: RunConfig
    status: RunStatus
    run_kind: RunKind = "benchmark"
    source_run_id: str | None = None
    triggered_by_email: str | None = None
    judge_model: str | None = None
    disabled: bool = False
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cancel_requested_at: datetime | None = None
    counts: RunCounts = RunCounts()
    expected_questions: int | None = None
    completion_percentage: float = 0.0
    quality_score: float | None = None
    failure_reason: str | None = None
    upload_status: UploadStatus = "pending"
    upload_error: str | None = None
    uploaded_at: datetime | None = None
    manifest_key: str | None = None
    results_path: str | None = None


class ManifestFile(_Camel):
    """One archived file: its path under the run prefix, size, digest and content type."""

    path: str
    bytes: int
    sha256: str
    content_type: str


class Manifest(_Camel):
    """The completion marker of an archive, uploaded last."""

    format_version: int = MANIFEST_VERSION
    run_id: str
    benchmark: str
    status: RunStatus
    exit_code: int | None = None
    failure_reason: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    uploaded_at: datetime | None = None
    files: list[ManifestFile] = Field(default_factory=list)
