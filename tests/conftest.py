"""Shared fixtures for every test tier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.services import NatsServer, private_nats


@pytest.fixture(scope="session")
def nats_server() -> Iterator[NatsServer]:
    """A private nats-server (JetStream, temp store) shared by the session's tests."""
    with private_nats() as server:
        yield server


@pytest.fixture
def restartable_nats() -> Iterator[NatsServer]:
    """A private nats-server only this test uses (it may stop and restart it)."""
    with private_nats() as server:
        yield server
