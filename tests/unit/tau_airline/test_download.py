"""Downloading the airline data (`BENCH_TAU_AIRLINE_DATA_URL`) from a local HTTP server that
serves the bundled files as upstream does (`db.json` uncompressed), with scripted faults."""

from __future__ import annotations

import gzip
import stat
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from bench_runner.benchmarks.base import DatasetContext
from bench_runner.benchmarks.tau_airline.benchmark import TauAirline
from bench_runner.benchmarks.tau_airline.data import DataError, locate_bundle
from bench_runner.benchmarks.tau_airline.download import (
    PINNED_BASE_URL,
    BundleDownloader,
    cache_directory,
    resolve_data_url,
)
from bench_runner.benchmarks.tau_airline.settings import TauAirlineOptions
from bench_runner.datasets.hf_rows import RetryPolicy


class DataServer:
    """`GET /airline/<name>`: the upstream files; `faults` are answered first, in order."""

    def __init__(self) -> None:
        bundle = locate_bundle()
        self.files = {
            "tasks.json": (bundle / "tasks.json").read_bytes(),
            "policy.md": (bundle / "policy.md").read_bytes(),
            "db.json": gzip.decompress((bundle / "db.json.gz").read_bytes()),
        }
        self.faults: deque[web.Response] = deque()
        self.requests: list[str] = []
        self.base_url = ""

    async def handle(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        self.requests.append(name)
        if self.faults:
            return self.faults.popleft()
        if name not in self.files:
            return web.Response(status=404, text="no such file")
        return web.Response(body=self.files[name])


@pytest.fixture
async def server() -> AsyncIterator[DataServer]:
    data = DataServer()
    app = web.Application()
    app.router.add_get("/airline/{name}", data.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    data.base_url = f"http://127.0.0.1:{port}/airline"
    yield data
    await runner.cleanup()


async def no_sleep(_seconds: float) -> None:
    return None


def downloader(retries: int = 3) -> BundleDownloader:
    return BundleDownloader(retry=RetryPolicy(retries=retries), sleep=no_sleep, jitter=lambda: 0.0)


async def test_download_verifies_caches_privately_and_is_reused(
    server: DataServer, tmp_path: Path
) -> None:
    directory = await downloader().fetch(server.base_url, tmp_path)
    assert directory == cache_directory(tmp_path, server.base_url)
    assert sorted(server.requests) == ["db.json", "policy.md", "tasks.json"]
    for name in ("tasks.json", "policy.md", "db.json"):
        assert (directory / name).read_bytes() == server.files[name]
        assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700

    server.requests.clear()
    assert await downloader().fetch(server.base_url, tmp_path) == directory
    assert server.requests == []  # verified from the cache, no network


async def test_a_damaged_cache_is_downloaded_again(server: DataServer, tmp_path: Path) -> None:
    directory = await downloader().fetch(server.base_url, tmp_path)
    (directory / "policy.md").write_text("tampered")
    server.requests.clear()
    await downloader().fetch(server.base_url, tmp_path)
    assert "policy.md" in server.requests
    assert (directory / "policy.md").read_bytes() == server.files["policy.md"]


async def test_transient_failures_are_retried(server: DataServer, tmp_path: Path) -> None:
    server.faults.extend(
        [web.Response(status=503), web.Response(status=429, headers={"Retry-After": "0"})]
    )
    directory = await downloader().fetch(server.base_url, tmp_path)
    assert (directory / "tasks.json").is_file()
    assert server.requests[:3] == ["tasks.json"] * 3


async def test_exhausted_retries_and_refusals_say_what_failed(
    server: DataServer, tmp_path: Path
) -> None:
    server.faults.extend(web.Response(status=502) for _ in range(3))
    with pytest.raises(DataError, match=r"tasks\.json after 3 attempts: HTTP 502"):
        await downloader(retries=2).fetch(server.base_url, tmp_path)
    with pytest.raises(DataError, match="HTTP 404"):
        await downloader().fetch(server.base_url + "/missing", tmp_path)


async def test_another_version_of_the_data_is_refused(server: DataServer, tmp_path: Path) -> None:
    server.files["tasks.json"] = server.files["tasks.json"].replace(b'"id"', b'"id" ', 1)
    with pytest.raises(DataError, match="another version of the data"):
        await downloader().fetch(server.base_url, tmp_path)
    assert not cache_directory(tmp_path, server.base_url).exists()  # nothing half-written


async def test_without_a_cache_the_files_go_to_a_private_temporary_directory(
    server: DataServer,
) -> None:
    directory = await downloader().fetch(server.base_url, None)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert (directory / "db.json").read_bytes() == server.files["db.json"]


async def test_a_run_loads_its_tasks_from_the_download(server: DataServer, tmp_path: Path) -> None:
    context = DatasetContext(cache_dir=tmp_path, data_url=server.base_url)
    samples = await TauAirline().load_samples(context, TauAirlineOptions())
    assert len(samples) == 50
    assert (cache_directory(tmp_path, server.base_url) / "db.json").is_file()


def test_data_url_values() -> None:
    assert resolve_data_url("pinned") == PINNED_BASE_URL
    assert resolve_data_url(" https://mirror.example/airline/ ") == "https://mirror.example/airline"
    assert "9d0d5ae0a5a80007ec15083448350bb9f8f1cc00" in PINNED_BASE_URL
    with pytest.raises(DataError, match="pinned"):
        resolve_data_url("/srv/airline")
