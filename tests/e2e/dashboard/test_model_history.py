"""The "Model history" drawer in real headless Chromium against the whole stack (issue 5, the
original's runs list, reference §7): the runs of one model on one benchmark, full suite only,
canary runs only by default, with each run's quality change against the previous run.

The runs go to a fake model of the test's own whose answer depends on the base URL's path,
so runs of the same model over the same questions get different quality scores (the stack's
fake answers every run alike); the answers are deterministic, and so are the scores. Its own
module, so its own stack: the other dashboard tests count the runs they see.
"""

from __future__ import annotations

import re
import zlib

import pytest
from playwright.async_api import Page, expect
from pydantic import SecretStr

from bench_cli.submit import request_admission
from bench_common.commands import AdmissionRequest
from bench_common.ids import new_id
from bench_runner.fake_model import FakeModelServer, RecordedRequest, Reply
from tests.e2e.dashboard.conftest import screenshot
from tests.e2e.dashboard.test_dashboard import PageFixture, sign_in, unnamed_controls
from tests.support.stack import API_KEY, ManagedStack

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(150)]

MODEL = "fake/history-model"
CANARY = "genai-temporal-worker@digitalocean.com"
PERSON = "e2e@example.com"
_SALT = re.compile(r"/salt-(\d+)/")


def salted_answer(request: RecordedRequest) -> Reply:
    """A fixed letter per prompt and per `/salt-N/` of the base URL, so each salt scores
    differently on the same questions."""
    match = _SALT.search(request.path)
    salt = match.group(1) if match else "0"
    letter = "ABCD"[zlib.crc32(f"{salt}:{request.last_user_text}".encode()) % 4]
    return Reply(content=["think ", f"\n\nAnswer: {letter}"])


async def finished_run(
    stack: ManagedStack, model: FakeModelServer, salt: int, email: str, **extra: int
) -> tuple[str, float | None]:
    """Admit a run of MODEL through the scheduler as `email`, wait for it; (id, accuracy)."""
    base_url = model.base_url.replace("/v1", f"/salt-{salt}/v1")
    config = stack.run_config(epochs=1, concurrency=16, model=MODEL, base_url=base_url, **extra)
    request = AdmissionRequest(
        run_id=new_id(),
        config=config,
        credentials={"api_key": SecretStr(API_KEY)},
        triggered_by_email=email,
    )
    assert stack.nc is not None
    reply = await request_admission(stack.nc, request, timeout=20)
    assert reply.admitted, reply.reason
    finished = await stack.wait_finished(request.run_id)
    assert finished.status == "succeeded", finished.failure_reason
    return request.run_id, finished.accuracy


def points(text: str) -> float:
    """`+2.5 pp` / `−1.0 pp` / `±0.0 pp` -> 2.5 / -1.0 / 0.0."""
    return float(text.replace("pp", "").strip().lstrip("+±").replace("−", "-"))


async def shown_runs(page: Page) -> list[str]:
    ids: list[str] = await page.locator("#history-body tr").evaluate_all(
        "rows => rows.map(r => r.dataset.runId)"
    )
    return ids


async def test_model_history_drawer_by_keyboard(stack: ManagedStack, page: PageFixture) -> None:
    tab, _ = page
    async with FakeModelServer(salted_answer, api_key=API_KEY) as model:
        first, q1 = await finished_run(stack, model, 11, CANARY)
        person, q2 = await finished_run(stack, model, 12, PERSON)
        second, q3 = await finished_run(stack, model, 13, CANARY)
        partial, _ = await finished_run(stack, model, 14, CANARY, limit=6)  # not the full suite
        third, q5 = await finished_run(stack, model, 15, CANARY)
    quality = {first: q1, person: q2, second: q3, third: q5}
    assert None not in quality.values()

    await sign_in(tab, stack)
    # Canary runs are hidden from the list by default: the person's run is the one shown.
    row = tab.locator(f'#runs-body tr[data-run-id="{person}"]')
    await expect(row).to_be_visible(timeout=15_000)
    opener = row.get_by_role("button", name=f"Model history: {MODEL} on GPQA", exact=False)
    await opener.focus()
    await tab.keyboard.press("Enter")

    drawer = tab.get_by_role("dialog", name="Model history")
    await expect(drawer).to_be_visible()
    await expect(drawer.get_by_role("button", name="Close model history")).to_be_focused()
    toggle = drawer.get_by_role("checkbox", name="Canary runs only")
    await expect(toggle).to_be_checked()
    # Canary only, full suite only, newest first: not the person's run, not the partial one.
    await expect(tab.locator("#history-body tr")).to_have_count(3)
    assert await shown_runs(tab) == [third, second, first]
    await expect(tab.locator("#history-status")).to_have_text("3 of 3 full-suite canary runs.")
    await check_deltas(tab, [third, second, first], quality)
    assert await unnamed_controls(tab) == []
    await screenshot(tab, "08-model-history")

    # The toggle, by keyboard: every full-suite run, the deltas now against the person's too.
    await tab.keyboard.press("Tab")
    await expect(toggle).to_be_focused()
    await tab.keyboard.press("Space")
    await expect(toggle).not_to_be_checked()
    await expect(tab.locator("#history-body tr")).to_have_count(4)
    assert await shown_runs(tab) == [third, second, person, first]
    await check_deltas(tab, [third, second, person, first], quality)
    await expect(tab.locator("#history-status")).to_have_text("4 of 4 full-suite runs.")
    # These salts score 28.3%, 21.7%, 28.3%, 25.0% (oldest first): a rise and two falls.
    await expect(tab.locator("#history-body td.delta.up")).to_have_count(1)
    await expect(tab.locator("#history-body td.delta.down")).to_have_count(2)
    await screenshot(tab, "09-model-history-all-runs")

    # Escape closes it and the focus goes back to the model that opened it.
    await tab.keyboard.press("Escape")
    await expect(drawer).to_be_hidden()
    await expect(opener).to_be_focused()
    assert partial not in await shown_runs(tab)


async def check_deltas(page: Page, order: list[str], quality: dict[str, float | None]) -> None:
    """Each row shows its quality and its change against the next (older) row; the oldest
    has no change to show."""
    for newer, older in zip(order, [*order[1:], None], strict=True):
        cells = page.locator(f'#history-body tr[data-run-id="{newer}"] td')
        q_newer = quality[newer]
        assert q_newer is not None
        await expect(cells.nth(3)).to_have_text(f"{q_newer * 100:.1f}%")
        # The cell's text, then "(against run …)" for screen readers.
        change = (await cells.nth(4).inner_text()).split("(")[0].strip()
        if older is None:
            assert change == "–"
            continue
        q_older = quality[older]
        assert q_older is not None
        assert abs(points(change) - (q_newer - q_older) * 100) <= 0.051, (change, q_newer, q_older)
