"""Admission is atomic: 50 simultaneous requests against a cap of 8 admit exactly 8."""

from __future__ import annotations

import asyncio

import nats
import pytest

from bench_common.bus import KEYS_BUCKET
from bench_common.events import RunAdmitted, RunRejected
from tests.integration.scheduler.support import admit, history, running_scheduler
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def test_fifty_simultaneous_admissions_admit_exactly_eight(
    restartable_nats: NatsServer,
) -> None:
    # A server of its own: the cap counts every active run on the server.
    nc = await nats.connect(restartable_nats.url)
    js = nc.jetstream()
    try:
        async with running_scheduler(restartable_nats.url, max_runs=20):  # 20 -> capped at 8
            run_ids = [f"cap-{i:02d}" for i in range(50)]
            replies = await asyncio.gather(*(admit(nc, run_id) for run_id in run_ids))
            admitted = [r for r in replies if r.admitted]
            refused = [r for r in replies if not r.admitted]
            assert len(admitted) == 8
            assert sorted(r.active for r in admitted) == list(range(1, 9))
            assert all(r.max_active == 8 and r.active == 8 for r in refused)
            assert all("8 of 8" in (r.reason or "") for r in refused)
            kinds = [type(e) for run_id in run_ids for _, e in await history(js, run_id)]
            assert kinds.count(RunAdmitted) == 8
            assert kinds.count(RunRejected) == 42
            keys = await (await js.key_value(KEYS_BUCKET)).keys()
            assert len(keys) == 8  # one data key per admitted run, none for refused ones
            again = await admit(nc, admitted[0].run_id)
            assert again.admitted  # a retried request for an admitted run is answered, not re-run
    finally:
        await nc.close()
