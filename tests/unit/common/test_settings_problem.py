"""Settings errors name the environment variable and never quote its value."""

from __future__ import annotations

import pytest
from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import SettingsConfigDict

from bench_common.settings import ServiceSettings, settings_problem


class Example(ServiceSettings):
    model_config = SettingsConfigDict(env_prefix="EX_", extra="ignore", frozen=True)

    host: str
    port: int = Field(default=1, ge=1)
    token: SecretStr = SecretStr("x")


def test_each_problem_names_its_variable_and_no_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EX_PORT", "not-a-port-4471")
    with pytest.raises(ValidationError) as caught:
        Example()
    text = settings_problem(caught.value, "EX_")
    assert "EX_HOST is not set" in text
    assert "EX_PORT: " in text
    assert "not-a-port-4471" not in text  # pydantic's own message would quote it
    assert "not-a-port-4471" in str(caught.value)


def test_a_placeholder_secret_is_named_not_quoted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EX_HOST", "h")
    monkeypatch.setenv("EX_TOKEN", "changeme")
    with pytest.raises(ValidationError) as caught:
        Example()
    assert settings_problem(caught.value, "EX_") == (
        "EX_TOKEN holds a placeholder value; set the real secret"
    )
