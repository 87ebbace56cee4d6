"""The shared HTTP session, with a connection pool sized to the run's concurrency."""

from __future__ import annotations

import aiohttp

POOL_HEADROOM = 4
"""Connections beyond the concurrency, for auxiliary calls (simulated users, judges)."""


def create_client_session(
    concurrency: int, *, headroom: int = POOL_HEADROOM
) -> aiohttp.ClientSession:
    """An aiohttp session whose pool holds `concurrency + headroom` connections.

    aiohttp (like httpx) defaults to 100 connections; a pool smaller than the number of calls
    in flight silently queues requests and caps throughput, so the limit follows the run.
    There is no session-wide timeout: the client applies `timeoutMs` and `completionTimeoutMs`
    per attempt, and a default total timeout would cut long reasoning streams.

    Must be called with an event loop running; close it with `await session.close()` (or
    use it as an async context manager).
    """
    connector = aiohttp.TCPConnector(
        limit=max(concurrency, 1) + headroom,
        limit_per_host=0,
        ttl_dns_cache=300,
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
    )
