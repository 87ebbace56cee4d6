"""The scheduler's settings from the environment."""

from __future__ import annotations

import pytest

from bench_scheduler.settings import SchedulerSettings


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("NATS_URL", "BENCH_API_MAX_RUNS"):
        monkeypatch.delenv(name, raising=False)
    settings = SchedulerSettings()
    assert settings.nats_url == "nats://127.0.0.1:4222"
    assert settings.max_active == 8


@pytest.mark.parametrize(("value", "cap"), [("3", 3), ("8", 8), ("100", 8)])
def test_the_cap_is_bench_api_max_runs_but_at_most_8(
    monkeypatch: pytest.MonkeyPatch, value: str, cap: int
) -> None:
    monkeypatch.setenv("BENCH_API_MAX_RUNS", value)
    monkeypatch.setenv("NATS_URL", "nats://nats:4222")
    settings = SchedulerSettings()
    assert (settings.max_active, settings.nats_url) == (cap, "nats://nats:4222")


def test_a_nonsense_cap_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_API_MAX_RUNS", "0")
    with pytest.raises(ValueError, match="bench_api_max_runs"):
        SchedulerSettings()
