"""Runs through the real api, MariaDB and NATS: start, see, list, cancel, disable, the cap,
and a missing scheduler."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench_api.settings import MysqlSettings
from bench_common.bus import last_event
from bench_common.events import RunCancelRequested, RunDisabled, RunRequested
from tests.integration.api.conftest import rows
from tests.integration.api_rest.support import AUTH, AUTH_AND_SECRET, Served, served_api
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration
KEY = "sk-canary-lifecycle-0c4e"


def submission(**execution: Any) -> dict[str, Any]:
    return {
        "triggeredByEmail": "Tester@Example.com",
        "inference": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": KEY, "model": "fake/m"},
        "execution": {"limit": 2, **execution},
    }


async def start(served: Served, **execution: Any) -> dict[str, Any]:
    response = await served.client.post(
        "/runs", json=submission(**execution), headers=AUTH_AND_SECRET
    )
    assert response.status_code == 202, response.text
    body: dict[str, Any] = response.json()
    return body


async def test_a_started_run_is_recorded_listed_cancelled_and_disabled(served: Served) -> None:
    record = await start(served, epochs=1)
    run_id = record["id"]
    assert KEY not in str(record)
    requested = await last_event(served.js, RunRequested, run_id)
    assert requested is not None and requested.config.limit == 2
    assert served.admission.asked[0].credentials["api_key"].get_secret_value() == KEY

    await served.caught_up()
    shown = (await served.client.get(f"/runs/{run_id}", headers=AUTH)).json()
    assert (shown["status"], shown["triggeredByEmail"], shown["epochs"]) == (
        "queued", "tester@example.com", 1,
    )  # fmt: skip
    page = (await served.client.get("/runs?view=page", headers=AUTH)).json()
    assert [r["id"] for r in page["runs"]] == [run_id]
    assert page["summary"] == {"total": 1, "running": 1, "failed": 0}

    cancel = await served.client.post(f"/runs/{run_id}/cancel", headers=AUTH_AND_SECRET)
    assert cancel.status_code == 200
    assert await last_event(served.js, RunCancelRequested, run_id) is not None

    disable = await served.client.post(f"/runs/{run_id}/disable", headers=AUTH)
    assert disable.json()["disabled"] is True
    assert (await last_event(served.js, RunDisabled, run_id)) is not None
    await served.caught_up()
    hidden = (await served.client.get("/runs?view=page", headers=AUTH)).json()
    shown_again = (await served.client.get("/runs?view=page&showDisabled=1", headers=AUTH)).json()
    assert hidden["total"] == 0 and shown_again["total"] == 1
    assert await rows(served.pool, "SELECT disabled FROM runs WHERE id = %s", run_id) == [(1,)]


async def test_a_run_is_visible_before_the_projection_reaches_it(served: Served) -> None:
    await served.projector.close()  # nothing gets projected from now on
    record = await start(served)
    shown = await served.client.get(f"/runs/{record['id']}", headers=AUTH)
    assert shown.status_code == 200
    assert shown.json()["status"] == "queued"


async def test_the_cap_answers_429_with_active_and_max(
    mysql_settings: MysqlSettings, restartable_nats: NatsServer, tmp_path: Path
) -> None:
    async with served_api(mysql_settings, restartable_nats.url, tmp_path, max_active=1) as api:
        await start(api)
        refused = await api.client.post("/runs", json=submission(), headers=AUTH_AND_SECRET)
    assert refused.status_code == 429
    body = refused.json()
    assert (body["active"], body["max"]) == (1, 1)
    assert "cap is reached" in body["error"]


async def test_without_a_scheduler_the_api_answers_503(
    mysql_settings: MysqlSettings, restartable_nats: NatsServer, tmp_path: Path
) -> None:
    async with served_api(
        mysql_settings, restartable_nats.url, tmp_path, admission=False, admission_timeout=0.5
    ) as api:
        response = await api.client.post("/runs", json=submission(), headers=AUTH_AND_SECRET)
    assert response.status_code == 503
    assert "no scheduler answered within 0.5s" in response.json()["error"]
