"""The bundled airline data: where it lives, that it is intact, and one parsed copy per process.

The bundle is `datasets/tau_airline/` of the repository (tasks, policy, gzipped database; see its
SOURCE.md). `BENCH_TAU_AIRLINE_DATA_DIR` points elsewhere; `download` fetches a copy instead
(`BENCH_TAU_AIRLINE_DATA_URL`), whose database is the upstream, uncompressed `db.json`.
Every file is checked against the sha256 recorded in SOURCE.md (pinned below; a unit test
keeps the two in step) before use, so a run never scores against data that silently changed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from bench_runner.benchmarks.tau_airline.db import BaseDatabase
from bench_runner.benchmarks.tau_airline.task_model import Task
from bench_runner.datasets.errors import DatasetError

DATA_DIR_ENV = "BENCH_TAU_AIRLINE_DATA_DIR"
BUNDLE_PARTS = ("datasets", "tau_airline")

EXPECTED_SHA256: Mapping[str, str] = {
    "tasks.json": "202f0cdb1cf4bc20b8a3284f00e212882a8dda8eaab81d1d69a5dd9676911ebe",
    "policy.md": "10dc0525421521208be39cee235bba84a16e2bcba9899eb93d92cd81d2f62fc4",
    "db.json.gz": "f6a5de39aa14428e330895306aa6cbd6eff31f3475106bf147985e3f2c7d168a",
    "db.json": "1af9fea6e03ca7ca15a22bb3fcaf3e351393e3fc9070b6777947da8996f7531b",
}
"""sha256 of each file as SOURCE.md lists it (`db.json` is the decompressed database)."""

_TASKS = TypeAdapter(list[Task])


class DataError(DatasetError, RuntimeError):
    """The bundle is missing, altered or malformed; the message says which file and what to do.

    A `DatasetError`, so the CLI and the runner report it like any unavailable dataset."""


@dataclass(frozen=True)
class AirlineBundle:
    """Tasks in file order, the agent policy, and the initial database (shared, read-only)."""

    directory: Path
    tasks: tuple[Task, ...]
    policy: str
    database: BaseDatabase


def locate_bundle(env: Mapping[str, str] | None = None, *, start: Path | None = None) -> Path:
    """`$BENCH_TAU_AIRLINE_DATA_DIR`, else the first `datasets/tau_airline/` above this module.

    Raises:
        DataError: no bundle directory was found.
    """
    environ = os.environ if env is None else env
    explicit = environ.get(DATA_DIR_ENV)
    if explicit:
        path = Path(explicit)
        if not path.is_dir():
            raise DataError(f"{DATA_DIR_ENV}={explicit} is not a directory")
        return path
    origin = (start or Path(__file__)).resolve()
    for parent in origin.parents:
        candidate = parent.joinpath(*BUNDLE_PARTS)
        if candidate.is_dir():
            return candidate
    raise DataError(
        f"cannot find {'/'.join(BUNDLE_PARTS)}/ above {origin}; "
        f"set {DATA_DIR_ENV} to the directory holding tasks.json, policy.md and db.json.gz"
    )


def read_bundle(directory: Path) -> AirlineBundle:
    """Read, verify and parse a bundle directory (no caching; see `load_bundle`).

    Raises:
        DataError: a file is missing, its sha256 differs from SOURCE.md, or it does not parse.
    """
    tasks_bytes = _verified(directory, "tasks.json")
    policy_bytes = _verified(directory, "policy.md")
    if (directory / "db.json.gz").exists() or not (directory / "db.json").exists():
        db_bytes = gzip.decompress(_verified(directory, "db.json.gz"))
        _check_digest(directory / "db.json.gz", "db.json", db_bytes, what="decompressed db.json")
    else:  # a downloaded copy keeps upstream's uncompressed file
        db_bytes = _verified(directory, "db.json")
    try:
        tasks = tuple(_TASKS.validate_json(tasks_bytes))
    except ValidationError as error:
        raise DataError(f"{directory / 'tasks.json'} is not a list of τ² tasks: {error}") from None
    raw = json.loads(db_bytes)
    return AirlineBundle(
        directory=directory,
        tasks=tasks,
        policy=policy_bytes.decode("utf-8"),
        database=BaseDatabase.from_json(raw),
    )


_cache: dict[Path, AirlineBundle] = {}
_cache_lock = threading.Lock()


def load_bundle(env: Mapping[str, str] | None = None) -> AirlineBundle:
    """The verified bundle, parsed once per process and directory.

    Raises:
        DataError: as `locate_bundle` and `read_bundle`.
    """
    return load_bundle_at(locate_bundle(env))


def load_bundle_at(directory: Path) -> AirlineBundle:
    """The verified bundle in `directory`, parsed once per process.

    Raises:
        DataError: as `read_bundle`.
    """
    directory = directory.resolve()
    with _cache_lock:
        bundle = _cache.get(directory)
        if bundle is None:
            bundle = read_bundle(directory)
            _cache[directory] = bundle
        return bundle


def _verified(directory: Path, name: str) -> bytes:
    path = directory / name
    try:
        data = path.read_bytes()
    except OSError as error:
        raise DataError(f"cannot read {path}: {error.strerror or error}") from None
    _check_digest(path, name, data, what=name)
    return data


def _check_digest(path: Path, name: str, data: bytes, *, what: str) -> None:
    actual = hashlib.sha256(data).hexdigest()
    expected = EXPECTED_SHA256[name]
    if actual != expected:
        raise DataError(
            f"{what} at {path} has sha256 {actual}, but SOURCE.md records {expected}. "
            "The TAU airline data was altered or is a different version; restore the bundled "
            f"files (git checkout datasets/tau_airline) or point {DATA_DIR_ENV} at an intact copy."
        )
