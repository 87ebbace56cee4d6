"""Fixtures of the archiver's integration tests: S3 servers, a bucket per test, a fault
proxy in front of SeaweedFS."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from tests.support.s3 import S3Server, create_bucket, moto_server, new_bucket_name, seaweed_server
from tests.support.s3_faults import FaultProxy
from tests.support.services import free_port


@pytest.fixture(scope="session")
def seaweed() -> Iterator[S3Server]:
    """SeaweedFS `weed mini`, once per session."""
    with seaweed_server() as server:
        yield server


@pytest.fixture(scope="session")
def moto() -> Iterator[S3Server]:
    """moto's in-process S3 server, once per session."""
    with moto_server() as server:
        yield server


@pytest.fixture
async def bucket(seaweed: S3Server) -> str:
    """A new, empty bucket on SeaweedFS."""
    name = new_bucket_name()
    await create_bucket(seaweed, name)
    return name


@pytest.fixture
async def fault_proxy(seaweed: S3Server) -> AsyncIterator[FaultProxy]:
    """An HTTP proxy in front of SeaweedFS that injects faults on demand."""
    proxy = FaultProxy(upstream_port=seaweed.port, port=free_port())
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.stop()
