"""`python -m bench_api` as a real process: serves /health, projects, stops on SIGTERM; and
`bench projection rebuild` as a command."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import asyncmy
import pytest
from nats.js import JetStreamContext

from bench_api.settings import MysqlSettings
from tests.integration.api.conftest import publish_all, rows, snapshot
from tests.support.projection_events import synthetic_run
from tests.support.services import NatsServer, free_port
from tests.support.stack import API_EXTRA_ENV

pytestmark = pytest.mark.integration


def service_env(mysql: MysqlSettings, nats_url: str, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "MYSQL_HOST": mysql.host,
        "MYSQL_PORT": str(mysql.port),
        "MYSQL_USER": mysql.user,
        "MYSQL_PASSWORD": mysql.password.get_secret_value(),
        "MYSQL_DATABASE": mysql.database,
        "MYSQL_SSL_MODE": "disabled",
        "NATS_URL": nats_url,
        "BENCH_API_PORT": str(port),
        "BENCH_PROJECTOR_IDLE_WAIT_S": "0.5",
        # The REST API refuses to start without its secrets and the archive's storage.
        **API_EXTRA_ENV,
    }


def get_health(port: int) -> tuple[int, dict[str, Any]] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
            return int(response.status), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    except OSError:
        return None


async def wait_for_position(port: int, seq: int, timeout: float = 30.0) -> dict[str, Any]:
    deadline = asyncio.get_running_loop().time() + timeout
    last: tuple[int, dict[str, Any]] | None = None
    while asyncio.get_running_loop().time() < deadline:
        last = await asyncio.to_thread(get_health, port)
        if last is not None and last[0] == 200 and last[1]["projection"]["position"] >= seq:
            return last[1]
        await asyncio.sleep(0.1)
    raise AssertionError(f"position {seq} not reached; last health: {last}")


async def test_the_api_process_serves_health_and_projects(
    js: JetStreamContext,
    pool: asyncmy.Pool,
    mysql_settings: MysqlSettings,
    restartable_nats: NatsServer,
) -> None:
    port = free_port()
    env = service_env(mysql_settings, restartable_nats.url, port)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench_api", env=env, stderr=subprocess.PIPE
    )
    try:
        await wait_for_position(port, 0)
        last = await publish_all(js, synthetic_run("run-svc"))
        body = await wait_for_position(port, last)
        assert body["ok"] is True
        assert body["projection"]["eventsFolded"] == last
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), timeout=15)
    assert process.returncode == 0, stderr.decode()[-2000:]
    live = await snapshot(pool)
    assert [r[0] for r in live["runs"]] == ["run-svc"]

    rebuild = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "bench_cli.main", "projection", "rebuild"),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(rebuild.communicate(), timeout=60)
    assert rebuild.returncode == 0, err.decode()[-2000:]
    report = json.loads(out.decode().strip().splitlines()[-1])
    assert report["rebuilt"] is True
    assert report["position"] == last
    assert await snapshot(pool) == live
    assert await rows(pool, "SELECT last_seq FROM projection_position") == [(last,)]
