"""The HTTP session's pool follows the run's concurrency."""

from __future__ import annotations

import aiohttp

from bench_runner.inference import create_client_session
from bench_runner.inference.session import POOL_HEADROOM


async def test_pool_is_sized_to_the_concurrency() -> None:
    async with create_client_session(512) as session:
        connector = session.connector
        assert isinstance(connector, aiohttp.TCPConnector)
        assert connector.limit == 512 + POOL_HEADROOM
        assert connector.limit_per_host == 0
        assert session.timeout.total is None
