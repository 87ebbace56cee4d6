"""An on-disk cache of dataset rows, so a second run needs no network.

One JSON file per cache key under `<cache_dir>/<source>/<dataset>/<config>/<split>/<revision>/`.
Directories are created 0700 and files 0600 (datasets may be gated). Files are written
atomically (temporary file, fsync, rename) and validated before use: format version, key,
row count, row indices and a sha256 of the rows. A file that fails validation is ignored and
replaced by the next successful download.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench_runner.datasets.rows import DatasetRow

FORMAT_VERSION = 1
_FILE_NAME = "rows.json"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CacheKey:
    """What identifies cached rows: where they came from and which revision."""

    source: str
    dataset: str
    config: str
    split: str
    revision: str

    def segments(self) -> list[str]:
        """Path segments, one per field, made safe for any file system."""
        return [_safe_segment(v) for v in (self.source, self.dataset, self.config, self.split)] + [
            _safe_segment(self.revision)
        ]


def _safe_segment(value: str) -> str:
    # "/" becomes "__" (owner/name datasets); other unsafe characters are %-escaped.
    escaped = _UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", value.replace("/", "__"))
    return escaped if escaped not in ("", ".", "..") else f"%{escaped}"


def _rows_digest(rows: list[dict[str, Any]]) -> str:
    canonical = json.dumps(rows, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _encode_row(row: DatasetRow) -> dict[str, Any]:
    encoded: dict[str, Any] = {"row_idx": row.index, "row": dict(row.values)}
    if row.truncated:
        encoded["truncated_cells"] = list(row.truncated)
    return encoded


def _decode_rows(document: Any, key: CacheKey) -> list[DatasetRow]:
    """Rows of a cache document; raises ValueError naming the first problem found."""
    if not isinstance(document, dict) or document.get("format_version") != FORMAT_VERSION:
        raise ValueError("unknown format version")
    if document.get("key") != asdict(key):
        raise ValueError("written for another key")
    rows = document.get("rows")
    if not isinstance(rows, list) or len(rows) != document.get("num_rows"):
        raise ValueError("row count does not match")
    if document.get("rows_sha256") != _rows_digest(rows):
        raise ValueError("checksum does not match")
    decoded: list[DatasetRow] = []
    for position, item in enumerate(rows):
        if not isinstance(item, dict) or item.get("row_idx") != position:
            raise ValueError(f"row {position} is out of order")
        values, truncated = item.get("row"), item.get("truncated_cells", [])
        if not isinstance(values, dict) or not isinstance(truncated, list):
            raise ValueError(f"row {position} is malformed")
        decoded.append(DatasetRow(position, values, tuple(str(c) for c in truncated)))
    return decoded


class DatasetCache:
    """Rows cached under a root directory, one file per `CacheKey`."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path_for(self, key: CacheKey) -> Path:
        """The file that holds (or would hold) the rows for `key`."""
        return self.root.joinpath(*key.segments(), _FILE_NAME)

    def load(self, key: CacheKey) -> list[DatasetRow] | None:
        """The cached rows for `key`, or None if absent or invalid (an invalid file is logged)."""
        path = self.path_for(key)
        try:
            info = path.stat()
        except FileNotFoundError:
            return None
        except OSError as exc:  # e.g. a parent is a file: unusable, but not fatal
            log.warning("ignoring dataset cache %s: %s", path, exc)
            return None
        try:
            if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                raise ValueError("writable by other users")
            document = json.loads(path.read_text(encoding="utf-8"))
            return _decode_rows(document, key)
        except (OSError, ValueError) as exc:
            log.warning("ignoring dataset cache %s: %s", path, exc)
            return None

    def store(self, key: CacheKey, rows: Sequence[DatasetRow]) -> Path:
        """Write `rows` for `key` atomically with owner-only permissions; returns the path.

        Raises:
            OSError: the cache directory cannot be created or written.
            TypeError: a value is not JSON-serialisable.
        """
        path = self.path_for(key)
        make_private_dirs(path.parent)
        encoded = [_encode_row(row) for row in rows]
        document = {
            "format_version": FORMAT_VERSION,
            "key": asdict(key),
            "fetched_at": datetime.now(UTC).isoformat(),
            "num_rows": len(encoded),
            "rows_sha256": _rows_digest(encoded),
            "rows": encoded,
        }
        write_private(path, json.dumps(document, ensure_ascii=False).encode("utf-8"))
        return path


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically (temporary file, fsync, rename), readable by the owner
    only: mkstemp creates the file 0600, so a gated dataset is never readable by others."""
    fd, temp_name = tempfile.mkstemp(prefix=".part-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise


def make_private_dirs(directory: Path) -> None:
    """Create `directory` and missing parents as 0700 (chmod: the umask must not widen them)."""
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        current = current.parent
    for path in reversed(missing):
        path.mkdir(mode=0o700, exist_ok=True)
        path.chmod(0o700)
