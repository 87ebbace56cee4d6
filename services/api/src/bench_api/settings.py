"""Typed settings of the api service, read from the environment.

MySQL variables keep the original harness's names (`MYSQL_HOST`, `MYSQL_PORT`, `MYSQL_USER`,
`MYSQL_PASSWORD`, `MYSQL_DATABASE`, `MYSQL_SSL_MODE`, `MYSQL_CA_CERT_PATH`,
`MYSQL_CONNECTION_LIMIT`). The original defaults `MYSQL_PORT` to 25060 (DigitalOcean managed
MySQL); here it defaults to 3306, the port of a local MySQL or MariaDB, so set 25060 explicitly
for a managed cluster. `MYSQL_SSL_MODE` defaults to `required`, as the original: set
`disabled` for a local server without TLS.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import SettingsConfigDict

from bench_common.settings import ServiceSettings

SslMode = Literal["required", "verify-ca", "disabled"]

ORIGINAL_MYSQL_PORT = 25060
"""The original harness's default port (DigitalOcean managed MySQL)."""


class MysqlSettings(ServiceSettings):
    """Where the projection's database is and how to reach it.

    Attributes:
        ssl_mode: `required` = TLS without certificate verification; `verify-ca` = TLS with
            the chain verified against `ca_cert_path` but not the host name (managed clusters
            are reached by names their certificate does not carry); `disabled` = plain TCP.
        connection_limit: the pool's maximum number of connections.
    """

    model_config = SettingsConfigDict(env_prefix="MYSQL_", extra="ignore", frozen=True)

    host: str
    port: int = Field(default=3306, ge=1, le=65535)
    user: str
    password: SecretStr = SecretStr("")
    database: str
    ssl_mode: SslMode = "required"
    ca_cert_path: Path | None = None
    connection_limit: int = Field(default=10, ge=1, le=1000)

    @field_validator("ssl_mode", mode="before")
    @classmethod
    def _normalise_mode(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @model_validator(mode="after")
    def _ca_for_verify_ca(self) -> MysqlSettings:
        if self.ssl_mode == "verify-ca":
            if self.ca_cert_path is None:
                raise ValueError("MYSQL_SSL_MODE=verify-ca needs MYSQL_CA_CERT_PATH (a PEM file)")
            if not self.ca_cert_path.is_file():
                raise ValueError(f"MYSQL_CA_CERT_PATH {self.ca_cert_path} is not a readable file")
        return self

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context asyncmy should use, or None when TLS is disabled."""
        if self.ssl_mode == "disabled":
            return None
        if self.ssl_mode == "verify-ca":
            context = ssl.create_default_context(cafile=str(self.ca_cert_path))
            # Verify the chain but not the name, like libmysqlclient's VERIFY_CA.
            context.check_hostname = False
            context.verify_mode = ssl.CERT_REQUIRED
        else:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            # `required` encrypts without authenticating the server, as the original does.
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        return context


class ProjectorSettings(ServiceSettings):
    """How the projector consumes BENCH_EVENTS."""

    model_config = SettingsConfigDict(env_prefix="BENCH_PROJECTOR_", extra="ignore", frozen=True)

    batch_size: int = Field(default=500, ge=1, le=10_000)
    idle_wait_s: float = Field(default=5.0, gt=0)
    retry_delay_s: float = Field(default=2.0, gt=0)


class ApiSettings(ServiceSettings):
    """The api process: where it listens and which NATS it uses."""

    model_config = SettingsConfigDict(extra="ignore", frozen=True)

    nats_url: str = Field(default="nats://127.0.0.1:4222", validation_alias="NATS_URL")
    host: str = Field(default="127.0.0.1", validation_alias="BENCH_API_HOST")
    port: int = Field(default=8080, ge=0, le=65535, validation_alias="BENCH_API_PORT")
