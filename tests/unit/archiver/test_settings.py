"""The archiver refuses to start without its storage settings, naming what is missing."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bench_archiver.settings import ArchiverSettings
from bench_common.settings import settings_problem

FULL = {
    "SPACES_ENDPOINT": "https://nyc3.digitaloceanspaces.com",
    "SPACES_REGION": "nyc3",
    "SPACES_BUCKET": "bench",
    "SPACES_ACCESS_KEY_ID": "DO00KEY",
    "SPACES_SECRET_ACCESS_KEY": "real-secret-value",
}


def _load(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> ArchiverSettings:
    for name in (*FULL, "SPACES_PREFIX", "SPACES_FORCE_PATH_STYLE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return ArchiverSettings()


def test_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _load(monkeypatch, FULL)
    assert settings.spaces_prefix == "benchmark-runs"
    assert settings.spaces_force_path_style is False
    assert settings.bench_archiver_part_size_mb == 8


def test_missing_settings_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {k: v for k, v in FULL.items() if k not in {"SPACES_BUCKET", "SPACES_REGION"}}
    with pytest.raises(ValidationError) as caught:
        _load(monkeypatch, env)
    assert settings_problem(caught.value) == "SPACES_REGION is not set; SPACES_BUCKET is not set"


def test_placeholder_secret_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError) as caught:
        _load(monkeypatch, {**FULL, "SPACES_SECRET_ACCESS_KEY": "replace-me"})
    assert settings_problem(caught.value) == (
        "SPACES_SECRET_ACCESS_KEY holds a placeholder value; set the real secret"
    )


def test_path_style_and_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _load(
        monkeypatch, {**FULL, "SPACES_FORCE_PATH_STYLE": "1", "SPACES_PREFIX": "/runs/"}
    )
    assert settings.spaces_force_path_style is True and settings.spaces_prefix == "runs"
