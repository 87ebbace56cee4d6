"""The JetStream plumbing against a real nats-server."""

from __future__ import annotations

import nats
import nats.errors
import pytest

from bench_archiver.adapters.jetstream import JetStreamRunEvents
from bench_common.bus import ensure_streams, last_event, publish, run_history
from bench_common.claim_checks import JetStreamBlobs, claim_checked
from bench_common.envelope import STREAM_WORK
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RunCounts,
    RunFinished,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
)
from tests.support.services import NatsServer

pytestmark = pytest.mark.integration


async def test_streams_publish_dedupe_and_history(nats_server: NatsServer) -> None:
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        await ensure_streams(js)
        await ensure_streams(js)  # idempotent
        started = RunStarted(run_id="bus-1", expected_samples=2, total_evaluations=6)
        seq1 = await publish(js, started)
        assert await publish(js, started) == seq1  # duplicate dropped
        dispatched = SampleDispatched(run_id="bus-1", sample_id="s", sample_index=0, epoch=0)
        await publish(js, dispatched)
        await publish(js, dispatched, stream=STREAM_WORK)
        work = await js.stream_info(STREAM_WORK)
        assert work.state.messages >= 1
        await publish(js, RunFinished(run_id="bus-1", status="succeeded", counts=RunCounts()))
        history = [type(e).__name__ async for _, e in run_history(js, "bus-1")]
        assert history == ["RunStarted", "SampleDispatched", "RunFinished"]
        assert await last_event(js, RunStarted, "bus-1") == started
        assert await last_event(js, RunStarted, "missing") is None
    finally:
        await nc.close()


async def test_a_record_over_the_message_limit_travels_by_claim_check(
    nats_server: NatsServer,
) -> None:
    nc = await nats.connect(nats_server.url)
    js = nc.jetstream()
    try:
        await ensure_streams(js)
        blobs = JetStreamBlobs(js)
        huge = EvaluationRecord(
            sample_id="s1", sample_index=0, epoch=0, score="C", answer="A",
            messages=[{"role": "assistant", "content": "reasoning " * 300_000}],  # ~3 MB
        )  # fmt: skip
        event = SampleCompleted(run_id="bus-claim", record=huge)
        with pytest.raises(nats.errors.MaxPayloadError):
            await publish(js, event)  # what a runner would hit without the claim check
        await publish(js, await claim_checked(event, blobs))
        # read back as the archiver does: the whole record again
        (stored,) = await JetStreamRunEvents(js).history("bus-claim")
        assert isinstance(stored, SampleCompleted)
        assert stored.record == huge
        assert stored.blobs == {}
    finally:
        await nc.close()
