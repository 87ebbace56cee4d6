"""Keys, folders and content types of the archive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bench_archiver.layout import archive_folder, content_type, run_prefix, safe_relative_path


def test_gpqa_goes_to_the_gpqa_folder_others_to_their_id() -> None:
    assert archive_folder("gpqa_diamond") == "gpqa"
    assert archive_folder("tau_bench_verified_airline") == "tau_bench_verified_airline"


def test_prefix_uses_the_utc_start_date() -> None:
    # 23:30 in UTC-5 is the next day in UTC.
    started = datetime(2026, 3, 1, 23, 30, tzinfo=timezone(timedelta(hours=-5)))
    assert run_prefix("benchmark-runs", "gpqa_diamond", started, "r1") == (
        "benchmark-runs/gpqa/2026/03/02/r1/"
    )
    assert run_prefix("/a/b/", "deep_swe", datetime(2026, 1, 9, tzinfo=UTC), "r2") == (
        "a/b/deep_swe/2026/01/09/r2/"
    )
    assert run_prefix("", "deep_swe", datetime(2026, 1, 9, tzinfo=UTC), "r2") == (
        "deep_swe/2026/01/09/r2/"
    )


def test_content_types() -> None:
    assert content_type("results/x.parquet") == "application/vnd.apache.parquet"
    assert content_type("requests/requests.jsonl") == "application/x-ndjson"
    assert content_type("logs/run.log").startswith("text/plain")
    assert content_type("run.json") == "application/json"
    assert content_type("blob.bin") == "application/octet-stream"


@pytest.mark.parametrize(
    "bad", ["", "/etc/passwd", "../x", "a/../b", "a//b", "./a", "a\\b", "a\x00", "x" * 513]
)
def test_unsafe_paths_are_refused(bad: str) -> None:
    assert safe_relative_path(bad) is None


def test_safe_paths_pass() -> None:
    assert safe_relative_path("results/a-b_c.parquet") == "results/a-b_c.parquet"
