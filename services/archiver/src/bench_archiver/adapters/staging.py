"""The local staging directory: archives are built here and kept until confirmed.

Layout: `<root>/<run-id>/plan.json` (the `StagedArchive`) and `<root>/<run-id>/files/<path>`.
A run's directory is written under a temporary name and renamed into place, so a directory
with a plan is always complete; leftovers of a crash mid-write are removed on start.
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import structlog

from bench_archiver.bundle import BundleFile
from bench_archiver.manifest import StagedArchive

log = structlog.get_logger("bench_archiver")

PLAN = "plan.json"
FILES = "files"
_TMP = ".tmp-"


class Staging:
    """Staged archives under `root` (created on demand)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def run_dir(self, run_id: str) -> Path:
        """Where the run's archive is staged."""
        return self.root / run_id

    def file(self, run_id: str, path: str) -> Path:
        """The staged copy of the file at `path`."""
        return self.run_dir(run_id) / FILES / path

    def load(self, run_id: str) -> StagedArchive | None:
        """The staged archive of the run, or None.

        A plan that cannot be read, or whose files are missing or of another size, is set
        aside (renamed, for a person to look at) so the archive is rebuilt from the events
        rather than uploaded half.
        """
        plan_path = self.run_dir(run_id) / PLAN
        try:
            plan = StagedArchive.model_validate_json(plan_path.read_bytes())
            for f in plan.files:
                size = self.file(run_id, f.path).stat().st_size
                if size != f.bytes:
                    raise ValueError(f"{f.path} has {size} bytes, the plan says {f.bytes}")
        except FileNotFoundError as exc:
            if not plan_path.exists():
                return None
            self._set_aside(run_id, exc)
            return None
        except (OSError, ValueError) as exc:  # ValidationError is a ValueError
            self._set_aside(run_id, exc)
            return None
        return plan

    def _set_aside(self, run_id: str, problem: Exception) -> None:
        broken = self.root / f"{_TMP}broken-{run_id}-{uuid.uuid4().hex[:8]}"
        log.error("broken staged archive set aside", run_id=run_id, moved_to=str(broken),
                  problem=str(problem)[:300])  # fmt: skip
        os.replace(self.run_dir(run_id), broken)

    def save(self, plan: StagedArchive, files: list[BundleFile]) -> StagedArchive:
        """Stage the files and the plan atomically; an archive already staged wins.

        Raises:
            OSError: the disk refused (full, read-only): the caller reports it.
        """
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f"{_TMP}{plan.run_id}-{uuid.uuid4().hex[:8]}"
        try:
            for f in files:
                target = tmp / FILES / f.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(f.data)
            (tmp / PLAN).write_bytes(plan.model_dump_json(by_alias=True, indent=2).encode())
            _fsync_dir(tmp)
            try:
                os.rename(tmp, self.run_dir(plan.run_id))
            except OSError:
                existing = self.load(plan.run_id)
                if existing is None:
                    raise
                return existing
            return plan
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def write_file(self, run_id: str, path: str, data: bytes) -> Path:
        """Write (or replace) one staged file, e.g. the manifest."""
        target = self.file(run_id, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{_TMP}{target.name}")
        tmp.write_bytes(data)
        os.replace(tmp, target)
        return target

    def remove(self, run_id: str) -> None:
        """Delete the run's staged archive (once the archive is confirmed)."""
        shutil.rmtree(self.run_dir(run_id), ignore_errors=True)

    def staged_runs(self) -> list[str]:
        """Run ids with a staged archive; leftovers of interrupted writes are removed."""
        if not self.root.is_dir():
            return []
        runs = []
        for entry in sorted(self.root.iterdir()):
            if entry.name.startswith(_TMP):
                if "broken-" not in entry.name:  # set-aside archives stay for a person
                    shutil.rmtree(entry, ignore_errors=True)
            elif entry.is_dir() and (entry / PLAN).is_file():
                runs.append(entry.name)
        return runs


def _fsync_dir(path: Path) -> None:
    """Flush the staged files before the rename makes them visible (best effort)."""
    for item in path.rglob("*"):
        if item.is_file():
            with item.open("rb") as handle:
                os.fsync(handle.fileno())
