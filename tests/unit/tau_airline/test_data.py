"""The bundle: located, verified against SOURCE.md, parsed into typed tasks."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bench_runner.benchmarks.tau_airline.data import (
    DATA_DIR_ENV,
    EXPECTED_SHA256,
    AirlineBundle,
    DataError,
    load_bundle,
    locate_bundle,
    read_bundle,
)


def test_pinned_checksums_are_the_ones_source_md_records(bundle: AirlineBundle) -> None:
    source = (bundle.directory / "SOURCE.md").read_text(encoding="utf-8")
    recorded = dict(re.findall(r"^- `([^`]+)`[^`\n]*`([0-9a-f]{64})`", source, flags=re.MULTILINE))
    assert recorded == dict(EXPECTED_SHA256)


def test_bundle_has_fifty_tasks_policy_and_database(bundle: AirlineBundle) -> None:
    assert [t.id for t in bundle.tasks] == [str(n) for n in range(50)]
    assert bundle.policy.startswith("# Airline Agent Policy")
    assert "2024-05-15 15:00:00 EST" in bundle.policy
    sizes = {name: len(table) for name, table in bundle.database.tables.items()}
    assert sizes == {"flights": 300, "users": 500, "reservations": 2000}


def test_tasks_are_typed_with_tau2_defaults(bundle: AirlineBundle) -> None:
    with_actions = [t for t in bundle.tasks if t.gold_actions]
    assert len(with_actions) == 43
    assert all(t.reward_basis == ("DB", "COMMUNICATE") for t in bundle.tasks)
    assert all(a.requestor == "assistant" for t in bundle.tasks for a in t.gold_actions)
    assert bundle.tasks[3].communicate_info == ["4"]


def test_instructions_render_as_tau2_does(bundle: AirlineBundle) -> None:
    rendered = bundle.tasks[0].render_instructions()
    assert rendered.startswith(
        "Domain: airline\nReason for call:\n\tYou want to cancel reservation EHGLP3."
    )
    assert "\nKnown info:\n\tYou are Emma Kim.\n\tYour user id is emma_kim_9957.\n" in rendered
    assert "Unknown info" not in rendered  # null fields are left out
    assert "\nTask instructions:\n\tIf Agent tells you" in rendered


def test_load_bundle_is_parsed_once_per_process(bundle: AirlineBundle) -> None:
    assert load_bundle() is bundle


def copy_bundle(bundle: AirlineBundle, tmp_path: Path) -> Path:
    target = tmp_path / "tau_airline"
    shutil.copytree(bundle.directory, target)
    return target


def test_env_var_points_at_another_copy(bundle: AirlineBundle, tmp_path: Path) -> None:
    target = copy_bundle(bundle, tmp_path)
    assert locate_bundle({DATA_DIR_ENV: str(target)}) == target
    assert len(read_bundle(target).tasks) == 50


def test_an_altered_file_is_refused_with_a_clear_message(
    bundle: AirlineBundle, tmp_path: Path
) -> None:
    target = copy_bundle(bundle, tmp_path)
    policy = target / "policy.md"
    policy.write_text(policy.read_text(encoding="utf-8") + "\nBe generous.\n", encoding="utf-8")
    with pytest.raises(
        DataError, match=r"policy\.md at .* has sha256 [0-9a-f]{64}, but SOURCE\.md records 10dc05"
    ):
        read_bundle(target)


def test_a_missing_file_is_refused(bundle: AirlineBundle, tmp_path: Path) -> None:
    target = copy_bundle(bundle, tmp_path)
    (target / "db.json.gz").unlink()
    with pytest.raises(DataError, match=r"cannot read .*db\.json\.gz"):
        read_bundle(target)


def test_bad_locations_say_what_to_set(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="is not a directory"):
        locate_bundle({DATA_DIR_ENV: str(tmp_path / "nope")})
    with pytest.raises(DataError, match=DATA_DIR_ENV):
        locate_bundle({}, start=tmp_path / "a" / "b.py")


def test_default_location_is_the_repository_bundle() -> None:
    found = locate_bundle({})
    assert found.parts[-2:] == ("datasets", "tau_airline")
