"""One file's upload: skip when stored, retry what is retryable, record every failure."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from bench_archiver.ports import StoreError
from bench_archiver.uploading import UploadFailedError, UploadPolicy, is_retryable, upload_file
from tests.unit.archiver.fakes import FakeObjectStore, unavailable

POLICY = UploadPolicy(attempts=4, base_delay_s=0.5)


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "run.json"
    path.write_bytes(b'{"id": "r"}')
    return path


async def _upload(store: FakeObjectStore, source: Path, delays: list[float]) -> bool:
    async def sleep(seconds: float) -> None:
        delays.append(seconds)

    sha = hashlib.sha256(source.read_bytes()).hexdigest()
    result = await upload_file(
        store, path="run.json", source=source, key="p/run.json", sha256=sha,
        content_type="application/json", policy=POLICY, sleep=sleep,
    )  # fmt: skip
    return result.skipped


@pytest.mark.parametrize("status", [None, 408, 409, 429, 500, 503])
def test_retryable_statuses(status: int | None) -> None:
    assert is_retryable(unavailable(status=status))


@pytest.mark.parametrize("status", [400, 403, 404])
def test_client_errors_are_not_retried(status: int) -> None:
    assert not is_retryable(unavailable(status=status))


async def test_three_503s_then_success(source: Path) -> None:
    store = FakeObjectStore()
    store.failures.extend(unavailable() for _ in range(3))
    delays: list[float] = []
    assert not await _upload(store, source, delays)
    assert delays == [0.5, 1.0, 2.0]
    assert store.objects["p/run.json"][0] == b'{"id": "r"}'


async def test_gives_up_after_the_last_attempt_with_every_failure(source: Path) -> None:
    store = FakeObjectStore()
    store.failures.extend(unavailable() for _ in range(4))
    with pytest.raises(UploadFailedError) as caught:
        await _upload(store, source, [])
    details = caught.value.details()
    assert details["path"] == "run.json" and details["key"] == "p/run.json"
    attempts = details["attempts"]
    assert isinstance(attempts, list) and len(attempts) == 4
    assert attempts[0] == {
        "attempt": 1, "operation": "put", "status": 503, "code": "ServiceUnavailable",
        "message": "slow down", "requestId": "REQ1", "hostId": "HOST1", "cfRay": None,
    }  # fmt: skip
    assert "after 4 attempt(s)" in str(caught.value)


async def test_forbidden_fails_at_once(source: Path) -> None:
    store = FakeObjectStore()
    store.failures.append(StoreError("put", "p/run.json", 403, "AccessDenied", "no"))
    with pytest.raises(UploadFailedError, match="not retryable"):
        await _upload(store, source, [])
    assert store.puts == ["p/run.json"]


async def test_an_identical_object_is_not_sent_again(source: Path) -> None:
    store = FakeObjectStore()
    assert not await _upload(store, source, [])
    assert await _upload(store, source, [])
    assert store.puts == ["p/run.json"]


def test_backoff_is_capped() -> None:
    assert UploadPolicy(base_delay_s=0.5).delay(10) == 8.0
