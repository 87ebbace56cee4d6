"""Where a run's archive lives in the bucket, and what each file is (original harness §6.6).

`<SPACES_PREFIX>/<folder>/<YYYY>/<MM>/<DD>/<run-id>/<path>`: the folder is `gpqa` for GPQA
Diamond and the benchmark id otherwise; the date is the run's UTC start date. Keys are a pure
function of the run, so an archive uploaded twice lands on the same objects.
"""

from __future__ import annotations

import posixpath
from datetime import UTC, datetime

MANIFEST_PATH = "manifest.json"
FOLDERS = {"gpqa_diamond": "gpqa"}
"""Benchmarks whose archive folder is not their id."""

CONTENT_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/x-ndjson",
    ".log": "text/plain; charset=utf-8",
    ".parquet": "application/vnd.apache.parquet",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"


def archive_folder(benchmark: str) -> str:
    """The folder of a benchmark's runs (`gpqa` for `gpqa_diamond`, else the id)."""
    return FOLDERS.get(benchmark, benchmark)


def run_prefix(prefix: str, benchmark: str, started_at: datetime, run_id: str) -> str:
    """The run's folder, ending in `/` (no leading `/`; an empty prefix is left out).

    Example: `benchmark-runs/gpqa/2026/03/01/<run-id>/`.
    """
    day = started_at.astimezone(UTC)
    parts = [prefix.strip("/"), archive_folder(benchmark), f"{day:%Y}", f"{day:%m}", f"{day:%d}"]
    return "/".join(p for p in parts if p) + f"/{run_id}/"


def object_key(folder: str, path: str) -> str:
    """The key of the file at `path` (relative) inside the run folder `folder`."""
    return folder + path


def content_type(path: str) -> str:
    """The content type a file is stored with, from its extension."""
    return CONTENT_TYPES.get(posixpath.splitext(path)[1], DEFAULT_CONTENT_TYPE)


def safe_relative_path(path: str) -> str | None:
    """`path` if it can only name a file inside a run folder, else None.

    Refused: empty, absolute, backslashes, `.`/`..` segments, empty segments, control chars.
    """
    if not path or len(path) > 512 or path.startswith("/") or "\\" in path:
        return None
    if any(ord(c) < 32 or ord(c) == 127 for c in path):
        return None
    segments = path.split("/")
    if any(s in {"", ".", ".."} for s in segments):
        return None
    return path
