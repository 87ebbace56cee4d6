"""`bench archive retry` as the operator runs it: the request is recorded even when no
archiver is up, and the archiver handles it once it starts."""

from __future__ import annotations

import asyncio
from pathlib import Path

import nats
import pytest

from bench_archiver.retry_command import main
from bench_common.events import ArchiveRetryRequested, RunArchived
from tests.integration.archiver.support import (
    history,
    publish_run,
    running_archiver,
    settings_for,
    wait_for,
)
from tests.support.s3 import S3Server
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def test_retry_without_an_archiver_is_kept_for_later(
    restartable_nats: NatsServer, seaweed: S3Server, bucket: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    run_id = "arch-cli"
    monkeypatch.setenv("NATS_URL", restartable_nats.url)
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    try:
        assert await asyncio.to_thread(main, ["retry", "never-ran"]) == 1
        assert "has not finished" in capsys.readouterr().err
        await publish_run(js, run_id)
        assert await asyncio.to_thread(main, ["retry", run_id, "--timeout", "0.3"]) == 1
        assert "is `bench archiver` running?" in capsys.readouterr().err
        assert any(isinstance(e, ArchiveRetryRequested) for e in await history(js, run_id))

        async with running_archiver(settings_for(restartable_nats.url, seaweed, bucket, tmp_path)):
            await wait_for(js, RunArchived, run_id)
        assert await asyncio.to_thread(main, ["retry", run_id]) == 0
        assert '"result": "already_archived"' in capsys.readouterr().out
    finally:
        await nc.close()
