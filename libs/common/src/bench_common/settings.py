"""The settings base every service's typed settings class derives from.

Secrets that still hold a template value (`replace-me`, `changeme`, `<...>`) are refused at
start-up with a message that names the variable, so a half-configured deployment never runs.
"""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PLACEHOLDERS = frozenset(
    {"replace-me", "replaceme", "changeme", "change-me", "todo", "xxx", "secret"}
)


def is_placeholder(value: str) -> bool:
    """True for values that are obviously a template rather than a real secret."""
    v = value.strip().lower()
    return v in PLACEHOLDERS or (v.startswith("<") and v.endswith(">"))


class ServiceSettings(BaseSettings):
    """Environment-driven settings; secret fields must not be placeholders."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    @model_validator(mode="after")
    def _refuse_placeholders(self) -> Any:
        for name, value in self:
            if isinstance(value, SecretStr) and is_placeholder(value.get_secret_value()):
                env = name.upper()
                raise ValueError(f"{env} holds a placeholder value; set the real secret")
        return self
