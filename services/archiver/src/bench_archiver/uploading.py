"""Uploading one file: skip it when already stored, else retry retryable failures.

The policy is the original's (§6.6): retry on no status (the connection failed), 408, 409, 429
and 5xx, each attempt from a fresh stream, 500 ms x 2^(n-1) apart; every failed attempt is
recorded with its status and request ids. A file whose object already carries the same sha256
is not sent again, which makes a resumed archive upload only what is missing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import structlog
from pydantic import JsonValue

from bench_archiver.ports import ObjectStore, StoreError

log = structlog.get_logger("bench_archiver")

RETRYABLE_STATUSES = frozenset({408, 409, 429})
MAX_DELAY_S = 8.0

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True)
class UploadPolicy:
    """How hard to try. `attempts` counts the first try."""

    attempts: int = 4
    base_delay_s: float = 0.5

    def delay(self, failed_attempts: int) -> float:
        """The pause after the n-th failed attempt (n >= 1)."""
        return min(MAX_DELAY_S, self.base_delay_s * 2.0 ** (failed_attempts - 1))


def is_retryable(error: StoreError) -> bool:
    """No status (network), 408, 409, 429 and 5xx are worth another attempt."""
    return error.status is None or error.status in RETRYABLE_STATUSES or error.status >= 500


@dataclass(frozen=True)
class UploadResult:
    """What happened to one file: found already stored (`skipped`) or uploaded, and the
    failed attempts on the way."""

    key: str
    skipped: bool
    failures: list[StoreError] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        """Uploads tried (0 when the object was already there)."""
        return len(self.failures) + (0 if self.skipped else 1)


class UploadFailedError(Exception):
    """A file could not be uploaded; `failures` holds every attempt's error."""

    def __init__(self, path: str, key: str, failures: list[StoreError]) -> None:
        last = failures[-1]
        kind = "retryable" if is_retryable(last) else "not retryable"
        super().__init__(
            f"uploading {path} to {key} failed after {len(failures)} attempt(s); "
            f"last error ({kind}): {last}"
        )
        self.path = path
        self.key = key
        self.failures = failures

    def details(self) -> dict[str, JsonValue]:
        """`ArchiveFailed.details`: the file, the key and every attempt."""
        attempts: list[JsonValue] = [
            {"attempt": n, **f.to_json()} for n, f in enumerate(self.failures, start=1)
        ]
        return {"path": self.path, "key": self.key, "attempts": attempts}


async def upload_file(
    store: ObjectStore,
    *,
    path: str,
    source: Path,
    key: str,
    sha256: str,
    content_type: str,
    policy: UploadPolicy,
    sleep: Sleep = asyncio.sleep,
) -> UploadResult:
    """Make `key` hold the file `source` (staged as `path`), uploading only if needed.

    Raises:
        UploadFailedError: a non-retryable error, or retryable ones on every attempt.
    """
    failures: list[StoreError] = []
    while True:
        try:
            if await store.stored_sha256(key) == sha256:
                return UploadResult(key, skipped=True, failures=failures)
            await store.put_file(key, source, sha256=sha256, content_type=content_type)
            return UploadResult(key, skipped=False, failures=failures)
        except StoreError as error:
            failures.append(error)
            if not is_retryable(error) or len(failures) >= policy.attempts:
                raise UploadFailedError(path, key, failures) from error
            delay = policy.delay(len(failures))
            log.warning(
                "upload attempt failed; retrying",
                path=path,
                attempt=len(failures),
                retry_in_s=delay,
                **{k: v for k, v in error.to_json().items() if v is not None},
            )
            await sleep(delay)
