"""The on-disk rows cache: atomic, private, validated before use."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from bench_runner.datasets import CacheKey, DatasetCache, DatasetRow

KEY = CacheKey("hf-rows", "nmayorga7/gpqa_diamond", "default", "train", "latest")
ROWS = [
    DatasetRow(0, {"Question": "q0", "n": 1}),
    DatasetRow(1, {"Question": "ünïcode $& {}", "n": None}, truncated=("Explanation",)),
]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_round_trip(tmp_path: Path) -> None:
    cache = DatasetCache(tmp_path / "cache")
    path = cache.store(KEY, ROWS)
    assert path == tmp_path / "cache/hf-rows/nmayorga7__gpqa_diamond/default/train/latest/rows.json"
    assert cache.load(KEY) == ROWS


def test_missing_is_none(tmp_path: Path) -> None:
    assert DatasetCache(tmp_path).load(KEY) is None


def test_files_are_private(tmp_path: Path) -> None:
    root = tmp_path / "cache"
    path = DatasetCache(root).store(KEY, ROWS)
    assert _mode(path) == 0o600
    directory = path.parent
    while directory != tmp_path:
        assert _mode(directory) == 0o700, directory
        directory = directory.parent


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    cache = DatasetCache(tmp_path)
    cache.store(KEY, ROWS)
    cache.store(KEY, ROWS[:1])
    assert [p.name for p in cache.path_for(KEY).parent.iterdir()] == ["rows.json"]
    assert cache.load(KEY) == ROWS[:1]


def test_an_unserialisable_value_leaves_nothing_behind(tmp_path: Path) -> None:
    cache = DatasetCache(tmp_path)
    with pytest.raises(TypeError):
        cache.store(KEY, [DatasetRow(0, {"x": object()})])
    assert list(cache.path_for(KEY).parent.iterdir()) == []


def test_key_segments_are_safe(tmp_path: Path) -> None:
    key = CacheKey("hf-rows", "../../etc", "a b", "..", "refs/pr/1")
    path = DatasetCache(tmp_path).path_for(key)
    assert path.is_relative_to(tmp_path)
    assert path.relative_to(tmp_path).parts == (
        "hf-rows",
        "..__..__etc",
        "a%20b",
        "%..",
        "refs__pr__1",
        "rows.json",
    )


def _corrupt(path: Path, change: str) -> None:
    document = json.loads(path.read_text())
    if change == "truncate":
        path.write_text(path.read_text()[:50])
        return
    if change == "version":
        document["format_version"] = 99
    elif change == "key":
        document["key"]["revision"] = "other"
    elif change == "row":
        document["rows"][0]["row"]["Question"] = "tampered"
    elif change == "count":
        document["num_rows"] = 5
    elif change == "order":
        document["rows"].reverse()
    path.write_text(json.dumps(document))


@pytest.mark.parametrize("change", ["truncate", "version", "key", "row", "count", "order"])
def test_invalid_files_are_ignored(
    tmp_path: Path, change: str, caplog: pytest.LogCaptureFixture
) -> None:
    cache = DatasetCache(tmp_path)
    _corrupt(cache.store(KEY, ROWS), change)
    assert cache.load(KEY) is None
    assert "ignoring dataset cache" in caplog.text


def test_a_file_others_can_write_is_ignored(tmp_path: Path) -> None:
    cache = DatasetCache(tmp_path)
    cache.store(KEY, ROWS).chmod(0o666)
    assert cache.load(KEY) is None


def test_other_keys_do_not_collide(tmp_path: Path) -> None:
    cache = DatasetCache(tmp_path)
    pinned = CacheKey(KEY.source, KEY.dataset, KEY.config, KEY.split, "abc123")
    cache.store(KEY, ROWS)
    cache.store(pinned, ROWS[:1])
    assert cache.load(KEY) == ROWS
    assert cache.load(pinned) == ROWS[:1]
