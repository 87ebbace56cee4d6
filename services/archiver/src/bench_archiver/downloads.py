"""Presigned download URLs for archived files (the api's `X-Artifact-Download-Url`).

Only the archiver holds the storage credentials, so the api asks it over NATS. A URL is given
only for a file the run's manifest lists (or the manifest itself) of a run whose archive is
confirmed (`RunArchived`); the manifest of an archived run never changes, so it is cached.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from bench_archiver.layout import MANIFEST_PATH, content_type, safe_relative_path
from bench_archiver.manifest import parse_manifest
from bench_archiver.ports import ObjectStore, RunEvents, StoreError
from bench_common.commands import ArtifactUrlReply, ArtifactUrlRequest
from bench_common.envelope import check_token
from bench_common.events import RunArchived
from bench_common.run_record import Manifest

URL_LIFETIME_S = 300
MANIFEST_CACHE_SIZE = 1024


@dataclass(frozen=True)
class ArchivedRun:
    """Where a run's archive is and what its manifest lists."""

    folder: str
    manifest: Manifest


class ManifestCache:
    """Archived runs by run id (bounded, least recently used out first)."""

    def __init__(self, size: int = MANIFEST_CACHE_SIZE) -> None:
        self._size = size
        self._items: OrderedDict[str, ArchivedRun] = OrderedDict()

    def get(self, run_id: str) -> ArchivedRun | None:
        """The cached archive, or None."""
        found = self._items.get(run_id)
        if found is not None:
            self._items.move_to_end(run_id)
        return found

    def put(self, run_id: str, archived: ArchivedRun) -> None:
        """Remember an archived run."""
        self._items[run_id] = archived
        self._items.move_to_end(run_id)
        while len(self._items) > self._size:
            self._items.popitem(last=False)


async def _archived_run(
    run_id: str, *, events: RunEvents, store: ObjectStore, manifests: ManifestCache
) -> ArchivedRun | str:
    """The run's archive, or why there is none to serve."""
    cached = manifests.get(run_id)
    if cached is not None:
        return cached
    archived = await events.last(RunArchived, run_id)
    if archived is None:
        return f"run {run_id} is not archived (upload pending or failed)"
    stored = await store.get_bytes(archived.manifest_key)  # StoreError: the caller says 503
    manifest = None if stored is None else parse_manifest(stored)
    if manifest is None:
        return f"the manifest of run {run_id} is missing or unreadable"
    folder = archived.manifest_key[: len(archived.manifest_key) - len(MANIFEST_PATH)]
    found = ArchivedRun(folder=folder, manifest=manifest)
    manifests.put(run_id, found)
    return found


async def artifact_url(
    request: ArtifactUrlRequest,
    *,
    events: RunEvents,
    store: ObjectStore,
    manifests: ManifestCache,
    lifetime_s: int = URL_LIFETIME_S,
) -> ArtifactUrlReply:
    """Answer one request: 200 with a URL, or 400/404/503 with a reason.

    Raises:
        Exception: reading BENCH_EVENTS failed (the caller answers 503).
    """

    def refuse(status: int, error: str) -> ArtifactUrlReply:
        return ArtifactUrlReply(
            run_id=request.run_id, path=request.path, status=status, error=error
        )

    try:
        check_token(request.run_id, "run id")
    except ValueError as exc:
        return refuse(400, str(exc))
    path = safe_relative_path(request.path)
    if path is None:
        return refuse(400, f"{request.path!r} is not a file path inside a run's archive")
    try:
        archived = await _archived_run(
            request.run_id, events=events, store=store, manifests=manifests
        )
        if isinstance(archived, str):
            return refuse(404, archived)
        entry = next((f for f in archived.manifest.files if f.path == path), None)
        if entry is None and path != MANIFEST_PATH:
            return refuse(404, f"the archive of run {request.run_id} has no file {path!r}")
        key = archived.folder + path
        url = await store.presign_get(key, expires_s=lifetime_s)
    except StoreError as exc:
        return refuse(503, f"the storage could not be reached: {exc}")
    return ArtifactUrlReply(
        run_id=request.run_id,
        path=path,
        status=200,
        url=url,
        expires_in_s=lifetime_s,
        key=key,
        bytes=entry.bytes if entry else None,
        content_type=entry.content_type if entry else content_type(path),
    )
