"""The S3 adapter's contract, run against SeaweedFS (the real protocol, signatures checked)
and moto (fast): the same behaviour from both."""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench_archiver.adapters.s3 import MIB, S3ObjectStore, open_store
from bench_archiver.ports import StoreError
from tests.support.s3 import S3Server, create_bucket, new_bucket_name

pytestmark = pytest.mark.integration


@pytest.fixture(params=["seaweed", "moto"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[S3ObjectStore]:
    server: S3Server = request.getfixturevalue(request.param)
    name = new_bucket_name()
    await create_bucket(server, name)
    async with open_store(
        endpoint=server.endpoint, region=server.region, bucket=name,
        access_key_id=server.access_key, secret_access_key=server.secret_key,
        path_style=True, part_size=5 * MIB,
    ) as opened:  # fmt: skip
        yield opened


async def test_put_head_get(store: S3ObjectStore, tmp_path: Path) -> None:
    source = tmp_path / "run.json"
    source.write_bytes(b'{"id": 1}')
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    assert await store.stored_sha256("r/run.json") is None
    assert await store.get_bytes("r/run.json") is None
    await store.put_file("r/run.json", source, sha256=digest, content_type="application/json")
    assert await store.stored_sha256("r/run.json") == digest
    assert await store.get_bytes("r/run.json") == b'{"id": 1}'


async def test_large_files_go_in_parts(store: S3ObjectStore, tmp_path: Path) -> None:
    source = tmp_path / "big.parquet"
    source.write_bytes(os.urandom(11 * MIB + 123))  # three parts of at most 5 MiB
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    await store.put_file("r/big.parquet", source, sha256=digest, content_type="x/y")
    assert await store.stored_sha256("r/big.parquet") == digest
    assert await store.get_bytes("r/big.parquet") == source.read_bytes()
    assert await store.abort_incomplete_uploads("r/") == 0


async def test_unfinished_multipart_uploads_are_aborted(store: S3ObjectStore) -> None:
    client = store._client  # start an upload the way a killed archiver leaves it
    created = await client.create_multipart_upload(Bucket=store.bucket, Key="r/half.bin")
    await client.upload_part(
        Bucket=store.bucket, Key="r/half.bin", UploadId=created["UploadId"], PartNumber=1,
        Body=b"x" * 100,
    )  # fmt: skip
    assert await store.abort_incomplete_uploads("r/") == 1
    assert await store.abort_incomplete_uploads("r/") == 0


async def test_errors_carry_status_and_code(seaweed: S3Server, tmp_path: Path) -> None:
    source = tmp_path / "f"
    source.write_bytes(b"x")
    async with open_store(
        endpoint=seaweed.endpoint, region=seaweed.region, bucket="bench-missing-bucket",
        access_key_id=seaweed.access_key, secret_access_key="wrong-secret", path_style=True,
    ) as wrong:  # fmt: skip
        with pytest.raises(StoreError) as caught:
            await wrong.put_file("k", source, sha256="00", content_type="x/y")
    assert caught.value.status == 403 and caught.value.code == "SignatureDoesNotMatch"
    assert caught.value.request_id
