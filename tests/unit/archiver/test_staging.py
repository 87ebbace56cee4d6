"""The staging directory: atomic archives, broken ones set aside, leftovers cleaned."""

from __future__ import annotations

from pathlib import Path

from bench_archiver.adapters.staging import Staging
from bench_archiver.bundle import build_bundle, fold_run
from bench_archiver.manifest import stage_plan
from tests.support.archive_runs import finished_run

RUN = "run-s1"


def _stage(staging: Staging) -> None:
    facts = fold_run(RUN, finished_run(RUN))
    files = build_bundle(facts, manifest_key="f/manifest.json")
    staging.save(stage_plan(facts, files, folder="f/"), files)


def test_saved_archives_load_back(tmp_path: Path) -> None:
    staging = Staging(tmp_path)
    _stage(staging)
    plan = staging.load(RUN)
    assert plan is not None and plan.folder == "f/" and len(plan.files) == 6
    assert staging.file(RUN, "run.json").is_file()
    assert staging.staged_runs() == [RUN]


def test_a_damaged_archive_is_set_aside(tmp_path: Path) -> None:
    staging = Staging(tmp_path)
    _stage(staging)
    staging.file(RUN, "logs/run.log").write_bytes(b"truncated")
    assert staging.load(RUN) is None
    assert not staging.run_dir(RUN).exists()
    assert staging.staged_runs() == []  # the set-aside copy is kept, but not resumed
    assert any(p.name.startswith(".tmp-broken-run-s1") for p in tmp_path.iterdir())


def test_leftovers_of_interrupted_writes_are_removed(tmp_path: Path) -> None:
    staging = Staging(tmp_path)
    (tmp_path / ".tmp-run-x-1234").mkdir()
    assert staging.staged_runs() == []
    assert not (tmp_path / ".tmp-run-x-1234").exists()
    assert staging.load("absent") is None
