"""The managed stack of the fault tests: two runners, the fake model, scheduler and api."""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator
from pathlib import Path

import pytest

from tests.support.stack import ManagedStack

ROWS, EPOCHS = 198, 3
EVALUATIONS = ROWS * EPOCHS
CONCURRENCY = 64
FAKE_DELAY_S = 0.15
FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember whether the test itself failed, for the `stack` fixture's teardown."""
    report = yield
    if report.when == "call":
        item.stash[FAILED] = report.failed
    return report


@pytest.fixture
async def stack(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[ManagedStack]:
    """A fresh stack per test (every test breaks something in it); the tail of each service's
    log is printed when the test fails (the whole logs stay in `tmp_path`)."""
    async with ManagedStack(
        workdir=tmp_path, runners=2, dataset_rows=ROWS, fake_delay_s=FAKE_DELAY_S
    ) as started:
        yield started
        if request.node.stash.get(FAILED, False):
            started.dump_logs()
