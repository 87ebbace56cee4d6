"""MySQL settings: TLS modes build the right ssl context, missing settings are named."""

from __future__ import annotations

import datetime
import ssl
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from pydantic import ValidationError

from bench_api.main import SettingsError, load_settings, main
from bench_api.settings import ORIGINAL_MYSQL_PORT, MysqlSettings

BASE: dict[str, Any] = {"host": "db.example", "user": "bench", "database": "bench"}


def test_required_is_tls_without_verification() -> None:
    context = MysqlSettings(**BASE, ssl_mode="required").ssl_context()

    assert context is not None
    assert context.verify_mode == ssl.CERT_NONE
    assert context.check_hostname is False
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2


def test_required_is_the_default_like_the_original() -> None:
    settings = MysqlSettings(**BASE)

    assert settings.ssl_mode == "required"
    assert settings.port == 3306 != ORIGINAL_MYSQL_PORT
    assert settings.connection_limit == 10


def test_disabled_means_no_tls() -> None:
    assert MysqlSettings(**BASE, ssl_mode="DISABLED").ssl_context() is None


def test_verify_ca_checks_the_chain_but_not_the_host_name(tmp_path: Path) -> None:
    ca = tmp_path / "ca.pem"
    ca.write_text(real_ca_pem())
    context = MysqlSettings(**BASE, ssl_mode="verify-ca", ca_cert_path=ca).ssl_context()

    assert context is not None
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname is False
    assert len(context.get_ca_certs()) == 1


def test_verify_ca_needs_a_ca_file(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="MYSQL_CA_CERT_PATH"):
        MysqlSettings(**BASE, ssl_mode="verify-ca")
    with pytest.raises(ValidationError, match="not a readable file"):
        MysqlSettings(**BASE, ssl_mode="verify-ca", ca_cert_path=tmp_path / "missing.pem")


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValidationError):
        MysqlSettings(**BASE, ssl_mode="preferred")


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {
        "MYSQL_HOST": "h", "MYSQL_USER": "u", "MYSQL_DATABASE": "d", "MYSQL_PORT": "25060",
        "MYSQL_SSL_MODE": "disabled", "MYSQL_CONNECTION_LIMIT": "4", "BENCH_API_PORT": "9000",
    }.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    api, mysql, projector = load_settings()

    assert (mysql.host, mysql.port, mysql.connection_limit) == ("h", 25060, 4)
    assert api.port == 9000
    assert api.host == "127.0.0.1"
    assert projector.batch_size == 500


def test_missing_settings_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MYSQL_HOST", "MYSQL_USER", "MYSQL_DATABASE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SettingsError, match="MYSQL_HOST is not set; MYSQL_USER is not set"):
        load_settings()


def real_ca_pem() -> str:
    """A freshly generated self-signed CA certificate in PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bench test CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def test_the_api_refuses_to_start_without_mysql_settings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("MYSQL_HOST", raising=False)
    assert main([]) == 2
    assert "MYSQL_HOST is not set" in capsys.readouterr().err
