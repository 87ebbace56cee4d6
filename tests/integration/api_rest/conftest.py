"""Fixtures of the REST API's integration tests: a fresh MariaDB database and a private
nats-server per test (the projector's durable consumer must not be shared), and the api
served over them (see `support.served_api`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench_api.settings import MysqlSettings
from tests.integration.api.conftest import mysql_settings
from tests.integration.api_rest.support import Served, served_api
from tests.support.services import NatsServer

__all__ = ["mysql_settings"]  # the fixture, shared with the projection's tests


@pytest.fixture
async def served(
    mysql_settings: MysqlSettings, restartable_nats: NatsServer, tmp_path: Path
) -> AsyncIterator[Served]:
    """The api with the admission and archive roles played in the test."""
    async with served_api(mysql_settings, restartable_nats.url, tmp_path) as api:
        yield api
