"""A managed TAU airline run, end to end through the REST API (issue 6, "as managed runs").

`POST /runs` with a `simulatorApiKey`; the api is deployed with its simulated customer at the
fake model (`TAU_AIRLINE_USER_SIMULATOR_BASE_URL` / `_MODEL`), which answers both sides of each
conversation (`bench_runner.fake_model.tau_responder`: the oracle agent and a scripted customer).
The scheduler admits the run, a runner process plays every conversation with the CLI's engine,
the api projects it, and `GET /runs/{id}/summary` and `/tau-airline-report` describe it: reward
1 on every task, the simulator's tokens apart from the candidate's, and no key anywhere.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench_common.envelope import STREAM_EVENTS
from tests.e2e.managed.checks import assert_counted_once, assert_mysql_matches
from tests.support.stack import API_EXTRA_ENV, API_KEY, ManagedStack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(150)]

TASKS = 6
EPOCHS = 2
SIMULATOR_MODEL = "fake/customer"


async def wait_status(
    client: httpx.AsyncClient, run_id: str, timeout: float = 90
) -> dict[str, Any]:
    """The run's record once its status is final (polling, as a simple client would)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = await client.get(f"/runs/{run_id}")
        if response.status_code == 200 and response.json()["status"] in {
            "succeeded", "failed", "cancelled",
        }:  # fmt: skip
            return dict(response.json())
        await asyncio.sleep(0.3)
    raise AssertionError(f"run {run_id} did not end within {timeout}s")


async def all_event_bytes(stack: ManagedStack) -> bytes:
    """Every stored event of the stack's BENCH_EVENTS, concatenated (to search for keys)."""
    sub = await stack.js.subscribe(">", ordered_consumer=True, stream=STREAM_EVENTS)
    chunks: list[bytes] = []
    try:
        while True:
            msg = await sub.next_msg(timeout=2.0)
            chunks.append(msg.data)
            if msg.metadata.num_pending == 0:
                return b"".join(chunks)
    finally:
        await sub.unsubscribe()


async def test_a_managed_tau_run_scores_the_oracle_and_counts_the_simulator_apart(
    tmp_path: Path,
) -> None:
    stack = ManagedStack(workdir=tmp_path, runners=1, fake_delay_s=0.02)
    stack.api_env = {
        "TAU_AIRLINE_USER_SIMULATOR_BASE_URL": stack.model_url,
        "TAU_AIRLINE_USER_SIMULATOR_MODEL": SIMULATOR_MODEL,
    }
    async with stack:
        headers = {
            "Authorization": f"Bearer {API_EXTRA_ENV['BENCH_API_TOKEN']}",
            "X-Bench-Run-Secret": API_EXTRA_ENV["BENCH_RUN_TRIGGER_SECRET"],
        }
        async with httpx.AsyncClient(base_url=stack.api_url, headers=headers, timeout=30) as client:
            started = await client.post(
                "/runs",
                json={
                    "benchmark": "tau_bench_verified_airline",
                    "triggeredByEmail": "tester@example.com",
                    "simulatorApiKey": API_KEY,
                    "inference": {"baseUrl": stack.model_url, "apiKey": API_KEY,
                                  "model": "fake/agent"},
                    "execution": {"epochs": EPOCHS, "concurrency": 3, "limit": TASKS},
                },
            )  # fmt: skip
            assert started.status_code == 202, started.text
            run_id = started.json()["id"]

            run = await wait_status(client, run_id)
            assert run["status"] == "succeeded", run.get("failureReason")
            assert run["qualityScore"] == pytest.approx(1.0)

            summary = (await client.get(f"/runs/{run_id}/summary")).json()
            report = (await client.get(f"/runs/{run_id}/tau-airline-report")).json()
            wrong_kind = await client.get(f"/runs/{run_id}/gpqa-report")
            state = (await client.get(f"/runs/{run_id}/state")).json()

        # the run recorded whom its customer was, from the deployment's settings
        options = state["config"]["benchmark_options"]
        assert options == {"userBaseUrl": stack.model_url, "userModel": SIMULATOR_MODEL}

        assert summary["accuracy"] == 1.0
        assert summary["evaluations"] == TASKS * EPOCHS
        simulator = summary["auxiliaryUsage"]["simulator"]
        assert simulator["inputTokens"] > 0
        assert summary["inputTokens"] > 0  # the candidate's own, counted apart

        assert report["evaluations"] == TASKS * EPOCHS
        assert report["passHatK"] == {"1": 1.0, "2": 1.0}
        assert set(report["terminationReasons"]) <= {"user_stop", "agent_stop"}
        first = report["items"][0]
        assert first["reward"] == 1.0
        assert first["conversation"][0]["role"] in {"system", "assistant", "user"}
        assert wrong_kind.status_code == 409

        # each evaluation counted once, MySQL equal to the events
        finished = await stack.wait_finished(run_id)
        counted = await assert_counted_once(stack, run_id, finished, expected=TASKS * EPOCHS)
        await assert_mysql_matches(stack, run_id, counted)
        # every conversation was a real exchange: tools called and results observed
        messages = [m for _, e in counted.first.values() for m in e.record.messages]
        assert any(m.get("role") == "tool" for m in messages), "no task made a tool call"
        # neither key ever reached the system of record in the clear
        assert API_KEY.encode() not in await all_event_bytes(stack)
