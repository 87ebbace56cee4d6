"""The worker's settings from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from bench_common.envelope import any_run_subject
from bench_common.events import RunAdmitted, RunCancelRequested
from bench_runner.worker.settings import WorkerSettings


def test_reads_the_documented_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NATS_URL", "nats://example:4333")
    monkeypatch.setenv("BENCH_RUNNER_ID", "runner-a")
    monkeypatch.setenv("BENCH_RUNNER_MAX_IN_FLIGHT", "64")
    monkeypatch.setenv("BENCH_DATASET_CACHE_DIR", "/cache")
    monkeypatch.setenv("BENCH_GPQA_DATASET_FILE", "/data/gpqa.csv")
    monkeypatch.setenv("BENCH_RUNNER_ACK_WAIT_S", "3")
    s = WorkerSettings()
    assert (s.nats_url, s.runner_id, s.max_in_flight) == ("nats://example:4333", "runner-a", 64)
    assert s.in_progress_interval_s == 1.0
    gpqa = s.dataset_context("gpqa_diamond")
    assert gpqa.cache_dir == Path("/cache")
    assert gpqa.dataset_file == Path("/data/gpqa.csv")
    assert s.dataset_context("tau_bench_verified_airline").dataset_file is None


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "NATS_URL",
        "BENCH_RUNNER_ID",
        "BENCH_RUNNER_MAX_IN_FLIGHT",
        "BENCH_RUNNER_ACK_WAIT_S",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BENCH_GPQA_DATASET_FILE", "")  # empty means unset
    s = WorkerSettings()
    assert s.nats_url == "nats://127.0.0.1:4222"
    assert s.max_in_flight == 512
    assert s.ack_wait_s == 60.0
    assert s.in_progress_interval_s == 20.0
    assert s.gpqa_dataset_file is None
    assert s.runner_id


def test_refuses_placeholder_token_and_bad_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_TOKEN", "replace-me")
    with pytest.raises(ValidationError, match="placeholder"):
        WorkerSettings()
    monkeypatch.delenv("HF_TOKEN")
    monkeypatch.setenv("BENCH_RUNNER_MAX_IN_FLIGHT", "0")
    with pytest.raises(ValidationError):
        WorkerSettings()


def test_subject_filters_across_runs() -> None:
    assert any_run_subject(RunAdmitted) == "bench.runs.*.run_admitted"
    assert any_run_subject(RunCancelRequested) == "bench.runs.*.run_cancel_requested"
