"""The dashboard in Debian's Firefox (issue 5: "works in current Chromium and Firefox").

A smoke test over WebDriver BiDi (see `bidi.py` for why not Playwright): sign in, see the
all-runs stream go live (SSE read with `fetch`), a run started elsewhere appear and finish
without a reload, the model-history drawer open and close with Escape (focus back on the
model), and the run view replay the run's history. No script error may be logged.

Firefox is required like Chromium: missing, the test is skipped locally and fails under
`CI=true` (`scripts/services.sh` must install `firefox-esr`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from tests.e2e.dashboard.bidi import FIREFOX, Firefox
from tests.e2e.dashboard.conftest import ARTIFACTS, TOKEN
from tests.support.services import unavailable
from tests.support.stack import ManagedStack

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(150)]
ESCAPE = "\ue00c"


@pytest_asyncio.fixture(loop_scope="module")
async def firefox() -> AsyncIterator[Firefox]:
    """Headless Debian Firefox with a fresh profile."""
    if not os.path.exists(FIREFOX):
        unavailable(f"{FIREFOX} is not installed (apt-get install firefox-esr)")
    browser = await Firefox().start()
    try:
        yield browser
    finally:
        await browser.close()


async def until(browser: Firefox, expression: str, timeout: float = 30.0) -> Any:
    """Poll a script until it gives a truthy value; that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = await browser.evaluate(expression)
        if value:
            return value
        assert time.monotonic() < deadline, f"never true in Firefox: {expression}"
        await asyncio.sleep(0.2)


def row(run_id: str) -> str:
    return f"document.querySelector('#runs-body tr[data-run-id={json.dumps(run_id)}]')"


async def test_the_dashboard_works_in_firefox(stack: ManagedStack, firefox: Firefox) -> None:
    await firefox.goto(stack.api_url + "/")
    assert await firefox.evaluate("location.pathname") == "/gpqa-benchmarks"
    await until(firefox, "document.activeElement && document.activeElement.id === 'token-input'")
    await firefox.evaluate(
        f"document.getElementById('token-input').value = {json.dumps(TOKEN)};"
        "document.getElementById('login-form').requestSubmit()"
    )
    await until(firefox, "document.getElementById('live-status').dataset.state === 'live'")
    assert await firefox.evaluate("sessionStorage.getItem('benchApiToken')") == TOKEN

    # A run started elsewhere appears and finishes in the list, pushed over the stream.
    run_id = await stack.submit(stack.run_config(epochs=1, concurrency=8, limit=8))
    await until(firefox, f"{row(run_id)} !== null", timeout=15)
    badge = f"{row(run_id)}.querySelector('.badge').textContent"
    await until(firefox, f"{badge} === 'succeeded'", timeout=40)
    await until(firefox, f"{row(run_id)}.querySelector('.quality').textContent !== '–'")
    await firefox.screenshot(ARTIFACTS / "firefox-01-runs-live.png")

    # The model-history drawer: opens, loads, Escape closes it, the focus is back.
    await firefox.evaluate(f"{row(run_id)}.querySelector('button.model-history').focus()")
    await firefox.evaluate("document.activeElement.click()")
    await until(firefox, "document.getElementById('history-dialog').open")
    await until(firefox, "document.getElementById('history-status').textContent.length > 0")
    await firefox.screenshot(ARTIFACTS / "firefox-02-model-history.png")
    await firefox.press(ESCAPE)
    await until(firefox, "!document.getElementById('history-dialog').open")
    assert await firefox.evaluate("document.activeElement.classList.contains('model-history')")

    # The run view replays the run's history: every attempt, then `ready`.
    await firefox.evaluate(f"{row(run_id)}.querySelector('a').click()")
    await until(firefox, "document.getElementById('run-view').dataset.ready === '1'", timeout=20)
    attempts = "document.querySelectorAll('#attempts-body tr[data-request-id]').length"
    assert await until(firefox, f"{attempts} === 8")
    await until(firefox, "document.getElementById('requests-note').textContent === ''")
    await firefox.screenshot(ARTIFACTS / "firefox-03-run-view.png")
    assert firefox.errors() == []
