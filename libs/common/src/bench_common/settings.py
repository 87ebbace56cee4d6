"""The settings base every service's typed settings class derives from.

Secrets that still hold a template value (`replace-me`, `changeme`, `<...>`) are refused at
start-up with a message that names the variable, so a half-configured deployment never runs.
"""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr, ValidationError, model_validator
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
                raise ValueError(
                    f"{self._env_name(name)} holds a placeholder value; set the real secret"
                )
        return self

    @classmethod
    def _env_name(cls, field: str) -> str:
        """The environment variable a field is read from (its alias, else prefix + name)."""
        alias = cls.model_fields[field].validation_alias
        if isinstance(alias, str):
            return alias
        return str(cls.model_config.get("env_prefix") or "") + field.upper()


def settings_problem(exc: ValidationError, prefix: str = "") -> str:
    """Pydantic's report on a settings class as one line naming each environment variable
    (`X is not set`, `X: what is wrong`), never its value: pydantic's own text quotes the
    input, which may be a secret. `prefix` is the class's `env_prefix`, if it has one."""
    lines = []
    for error in exc.errors(include_input=False):
        name = prefix + "_".join(str(p) for p in error["loc"]).upper() if error["loc"] else ""
        if error["type"] == "missing":
            lines.append(f"{name} is not set")
        else:
            message = error["msg"].removeprefix("Value error, ")
            lines.append(f"{name}: {message}" if name else message)
    return "; ".join(lines)
