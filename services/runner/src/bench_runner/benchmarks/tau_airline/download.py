"""Downloading the airline data instead of using the bundled copy (an option, as the original
harness fetches it at run time): for installs without the repository's `datasets/` folder.

`BENCH_TAU_AIRLINE_DATA_URL=pinned` fetches `tasks.json`, `policy.md` and `db.json` from
amazon-agi/tau2-bench-verified at the commit SOURCE.md names (GitHub raw); any other http(s)
URL is a base URL serving the same three files (a mirror, an internal server). Each file must
have the sha256 SOURCE.md records, so a download can never change what runs are scored against.
Files are cached under `<dataset cache>/tau_airline/<hash of the URL>/` (directories 0700,
files 0600, written atomically) and verified again on every use; transient failures (transport
errors, 408, 429, 5xx) are retried with jittered backoff that honours `Retry-After`.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import structlog

from bench_runner.benchmarks.tau_airline.data import EXPECTED_SHA256, DataError, read_bundle
from bench_runner.datasets.cache import make_private_dirs, write_private
from bench_runner.datasets.hf_rows import RetryPolicy

DATA_URL_ENV = "BENCH_TAU_AIRLINE_DATA_URL"
PINNED_COMMIT = "9d0d5ae0a5a80007ec15083448350bb9f8f1cc00"
PINNED_BASE_URL = (
    "https://raw.githubusercontent.com/amazon-agi/tau2-bench-verified/"
    f"{PINNED_COMMIT}/data/tau2/domains/airline"
)
FILES = ("tasks.json", "policy.md", "db.json")
_RETRYABLE = frozenset({408, 429})

log = structlog.get_logger("bench_runner.tau_airline")


def resolve_data_url(value: str) -> str:
    """The base URL a `BENCH_TAU_AIRLINE_DATA_URL` value names.

    Raises:
        DataError: a value that is neither `pinned` nor an http(s) URL.
    """
    value = value.strip()
    if value.lower() in {"pinned", "github"}:
        return PINNED_BASE_URL
    if not value.startswith(("http://", "https://")):
        raise DataError(
            f"{DATA_URL_ENV}={value!r}: use `pinned` (amazon-agi/tau2-bench-verified at "
            f"{PINNED_COMMIT[:7]}) or the http(s) base URL of a copy of tasks.json, policy.md "
            "and db.json"
        )
    return value.rstrip("/")


def cache_directory(cache_dir: Path, base_url: str) -> Path:
    """Where the files of `base_url` are cached."""
    return cache_dir / "tau_airline" / hashlib.sha256(base_url.encode()).hexdigest()[:16]


class _TransientError(Exception):
    def __init__(self, reason: str, retry_after_s: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class BundleDownloader:
    """Fetches and caches the three files. Tests inject `retry`, `sleep` and `jitter`."""

    retry: RetryPolicy = field(default_factory=RetryPolicy)
    timeout_s: float = 120.0
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, repr=False)
    jitter: Callable[[], float] = field(default=random.random, repr=False)

    async def fetch(self, base_url: str, cache_dir: Path | None) -> Path:
        """A directory holding verified `tasks.json`, `policy.md` and `db.json` of `base_url`:
        the cached copy when intact, else a fresh download (into a private temporary
        directory when `cache_dir` is None, i.e. the cache is disabled).

        Raises:
            DataError: retries exhausted, access refused, a file with the wrong sha256, or a
                cache directory that cannot be written.
        """
        if cache_dir is not None:
            directory = cache_directory(cache_dir, base_url)
            if all((directory / name).is_file() for name in FILES):
                try:
                    await asyncio.to_thread(read_bundle, directory)
                    return directory
                except DataError as exc:
                    log.warning("tau airline cache invalid; downloading again", error=str(exc))
        files = await self._download(base_url)
        try:
            if cache_dir is None:
                directory = Path(tempfile.mkdtemp(prefix="bench-tau-airline-"))
            else:
                await asyncio.to_thread(make_private_dirs, directory)
            for name, data in files.items():
                await asyncio.to_thread(write_private, directory / name, data)
        except OSError as exc:
            raise DataError(f"cannot write the downloaded TAU airline data: {exc}") from exc
        log.info("tau airline data downloaded", base_url=base_url, directory=str(directory))
        return directory

    async def _download(self, base_url: str) -> dict[str, bytes]:
        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        found: dict[str, bytes] = {}
        async with aiohttp.ClientSession(timeout=timeout) as session:
            for name in FILES:
                url = f"{base_url}/{name}"
                data = await self._with_retries(session, url)
                actual = hashlib.sha256(data).hexdigest()
                if actual != EXPECTED_SHA256[name]:
                    raise DataError(
                        f"{url} has sha256 {actual}, but SOURCE.md records "
                        f"{EXPECTED_SHA256[name]}: that copy is another version of the data. "
                        f"Use {DATA_URL_ENV}=pinned or the bundled datasets/tau_airline."
                    )
                found[name] = data
        return found

    async def _with_retries(self, session: aiohttp.ClientSession, url: str) -> bytes:
        for attempt in range(self.retry.retries + 1):
            try:
                return await self._get(session, url)
            except _TransientError as exc:
                if attempt == self.retry.retries:
                    raise DataError(
                        f"could not download {url} after {attempt + 1} attempts: {exc}"
                    ) from exc
                await self.sleep(
                    self.retry.delay(attempt, retry_after_s=exc.retry_after_s, jitter=self.jitter())
                )
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _get(self, session: aiohttp.ClientSession, url: str) -> bytes:
        try:
            async with session.get(url) as response:
                body = await response.read()
                status = response.status
                retry_after = _retry_after(response.headers.get("Retry-After"))
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _TransientError(f"{type(exc).__name__}: {exc}") from exc
        if status in _RETRYABLE or status >= 500:
            raise _TransientError(f"HTTP {status}", retry_after)
        if status != 200:
            raise DataError(f"{url} answered HTTP {status}: {body[:200]!r}")
        return body


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value or ""))
    except ValueError:
        return None
