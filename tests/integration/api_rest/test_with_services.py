"""The api with the real services as processes.

- `python -m bench_scheduler` answers the api's admissions: credentials are sealed before they
  reach a stream, the cap (BENCH_API_MAX_RUNS=1) answers 429, a cancel frees the slot.
- The whole managed stack (fake model, scheduler, runner, `python -m bench_api`) runs a GPQA
  run submitted over HTTP with a canary API key; afterwards the key is found nowhere: not in
  any NATS stream or KV bucket, any MySQL table, any service's log (the fake model's aside:
  it is the endpoint the key is for) or any HTTP response.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from nats.js import JetStreamContext
from nats.js.api import AckPolicy, ConsumerConfig, DeliverPolicy

from bench_api.settings import MysqlSettings
from bench_common.bus import KEYS_BUCKET, last_event
from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, STREAM_WORK
from bench_common.events import RunFinished, RunRequested
from tests.integration.api_rest.support import AUTH, AUTH_AND_SECRET, served_api
from tests.support.processes import ServiceProcess
from tests.support.services import NatsServer
from tests.support.stack import API_EXTRA_ENV, API_KEY, ManagedStack

pytestmark = pytest.mark.integration
CANARY = "sk-canary-scheduler-5d0e93b1"


def submission(key: str, base_url: str, *, email: str = "tester@example.com") -> dict[str, Any]:
    return {
        "triggeredByEmail": email,
        "inference": {"baseUrl": base_url, "apiKey": key, "model": "fake/model"},
        "execution": {"limit": 3, "epochs": 1, "maxRetries": 0},
    }


async def until(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"not reached within {timeout}s")


async def test_the_scheduler_process_seals_keys_enforces_the_cap_and_frees_slots(
    mysql_settings: MysqlSettings, restartable_nats: NatsServer, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCH_")}
    env |= {"NATS_URL": restartable_nats.url, "BENCH_API_MAX_RUNS": "1"}
    scheduler = ServiceProcess(
        "scheduler", [sys.executable, "-m", "bench_scheduler"], env,
        tmp_path / "scheduler.log", "scheduler ready",
    )  # fmt: skip
    await scheduler.start()
    try:
        async with served_api(
            mysql_settings, restartable_nats.url, tmp_path, admission=False
        ) as api:
            first = await api.client.post(
                "/runs", json=submission(CANARY, "http://127.0.0.1:9/v1"), headers=AUTH_AND_SECRET
            )
            assert first.status_code == 202, first.text
            run_id = first.json()["id"]
            requested = await last_event(api.js, RunRequested, run_id)
            assert requested is not None
            assert set(requested.credentials) == {"api_key"}
            assert CANARY not in requested.model_dump_json()

            second = await api.client.post(
                "/runs", json=submission(CANARY, "http://127.0.0.1:9/v1"), headers=AUTH_AND_SECRET
            )
            assert second.status_code == 429
            assert (second.json()["active"], second.json()["max"]) == (1, 1)

            cancel = await api.client.post(f"/runs/{run_id}/cancel", headers=AUTH_AND_SECRET)
            assert cancel.status_code == 200
            finished = await until(lambda: last_event(api.js, RunFinished, run_id))
            assert finished.status == "cancelled"
            await api.caught_up()
            record = (await api.client.get(f"/runs/{run_id}", headers=AUTH)).json()
            assert record["status"] == "cancelled" and record["cancelRequestedAt"]

            third = await api.client.post(
                "/runs", json=submission(CANARY, "http://127.0.0.1:9/v1"), headers=AUTH_AND_SECRET
            )
            assert third.status_code == 202
    finally:
        assert await scheduler.stop() == 0
    assert CANARY not in scheduler.log_text()


async def stream_bytes(js: JetStreamContext, stream: str) -> bytes:
    """Every stored message of a stream, subjects, headers and bodies."""
    info = await js.stream_info(stream)
    if not info.state.messages:
        return b""
    config = ConsumerConfig(ack_policy=AckPolicy.NONE, deliver_policy=DeliverPolicy.ALL)
    sub = await js.pull_subscribe(
        ">" if stream != STREAM_EVENTS else "bench.runs.>", stream=stream, config=config
    )
    chunks: list[bytes] = []
    try:
        while len(chunks) < info.state.messages:
            for msg in await sub.fetch(500, timeout=5):
                chunks.append(msg.subject.encode() + repr(msg.headers).encode() + msg.data)
    finally:
        await sub.unsubscribe()
    return b"\n".join(chunks)


async def test_a_canary_key_sent_through_a_whole_run_is_found_nowhere(tmp_path: Path) -> None:
    async with ManagedStack(
        workdir=tmp_path, runners=1, dataset_rows=6, fake_delay_s=0.02
    ) as stack:
        base = f"http://127.0.0.1:{stack.api_port}"
        token = {"Authorization": f"Bearer {API_EXTRA_ENV['BENCH_API_TOKEN']}"}
        secret = {**token, "X-Bench-Run-Secret": API_EXTRA_ENV["BENCH_RUN_TRIGGER_SECRET"]}
        seen: list[bytes] = []
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:

            async def call(method: str, path: str, **kwargs: Any) -> httpx.Response:
                response = await client.request(method, path, **kwargs)
                seen.append(repr(response.headers).encode() + response.content)
                return response

            model_url = f"http://127.0.0.1:{stack.model_port}/v1"
            started = await call(
                "POST", "/runs", json=submission(API_KEY, model_url), headers=secret
            )
            assert started.status_code == 202, started.text
            run_id = started.json()["id"]
            finished = await stack.wait_finished(run_id)
            assert finished.status == "succeeded", finished.failure_reason
            await stack.wait_projected(await stack.last_seq())
            rejected = await call(
                "POST",
                "/runs",
                json=submission(API_KEY, model_url, email="a@b.org"),
                headers=secret,
            )
            assert rejected.status_code == 400
            for path in (
                f"/runs/{run_id}", f"/runs/{run_id}/logs", f"/runs/{run_id}/logs?download=1",
                f"/runs/{run_id}/state", f"/runs/{run_id}/request-records",
                f"/runs/{run_id}/request-records?download=1", f"/runs/{run_id}/parquet",
                f"/runs/{run_id}/results", f"/runs/{run_id}/summary",
                f"/runs/{run_id}/gpqa-report", "/runs", "/runs?view=page", "/results",
                "/summary", "/openapi.json",
            ):  # fmt: skip
                response = await call("GET", path, headers=token)
                assert response.status_code == 200, (path, response.text[:300])
            records = (await call("GET", f"/runs/{run_id}/request-records", headers=token)).text
            assert '"status":200' in records.replace(" ", "")

        needle = API_KEY.encode()
        assert not [r for r in seen if needle in r], "an HTTP response holds the key"
        for stream in (STREAM_EVENTS, STREAM_WORK, STREAM_LIVE, f"KV_{KEYS_BUCKET}"):
            assert needle not in await stream_bytes(stack.js, stream), stream
        tables = [r[0] for r in await stack.sql("SHOW TABLES")]
        for table in tables:
            assert needle not in repr(await stack.sql(f"SELECT * FROM {table}")).encode(), table
        for name, service in stack.services.items():
            if name != "fake-model":  # the endpoint the key is meant for
                assert API_KEY not in service.log_text(), name
        assert stack.service("api").log_events("run.admitted")
