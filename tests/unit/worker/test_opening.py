"""Opening a run: live or over, RunRequested, data key, credentials, engine."""

from __future__ import annotations

import base64

import pytest

from bench_common.events import (
    RunAbortRequested,
    RunCancelRequested,
    RunCounts,
    RunFinished,
    RunRequested,
)
from bench_common.secrets_box import new_data_key, seal
from bench_runner.worker.opening import (
    OpenRun,
    RunOpener,
    RunOver,
    RunUnavailable,
    decode_data_key,
    unseal_credentials,
)
from tests.unit.worker.fakes import (
    FakeDataKeys,
    FakeEngine,
    FakeEvents,
    FakePublisher,
    config,
    samples,
)

KEY = new_data_key()


def requested(run_id: str = "r1", **secrets: str) -> RunRequested:
    sealed = {n: seal(v, key=KEY, key_id="k1", run_id=run_id) for n, v in secrets.items()}
    return RunRequested(run_id=run_id, config=config(), credentials=sealed)


def opener(
    events: FakeEvents, keys: FakeDataKeys, engine: FakeEngine
) -> tuple[RunOpener, FakePublisher]:
    publisher = FakePublisher()
    return (
        RunOpener(events=events, keys=keys, engine=engine, publisher=publisher, runner_id="w1"),
        publisher,
    )


async def test_unseals_with_raw_or_base64_key() -> None:
    run = requested(api_key="sk-canary", judge_api_key="judge")
    plain = {"api_key": "sk-canary", "judge_api_key": "judge"}
    assert await unseal_credentials(run, keys=FakeDataKeys({"k1": KEY})) == plain
    b64 = FakeDataKeys({"k1": base64.b64encode(KEY)})
    assert await unseal_credentials(run, keys=b64) == plain


async def test_missing_key_says_credentials_are_gone_and_to_resubmit() -> None:
    with pytest.raises(RunUnavailable, match=r"credentials .* are gone.*Resubmit"):
        await unseal_credentials(requested(api_key="sk"), keys=FakeDataKeys())


async def test_wrong_key_cannot_decrypt() -> None:
    with pytest.raises(RunUnavailable, match="cannot be decrypted"):
        await unseal_credentials(requested(api_key="sk"), keys=FakeDataKeys({"k1": new_data_key()}))


def test_decode_data_key_refuses_other_lengths() -> None:
    with pytest.raises(ValueError, match="32 bytes"):
        decode_data_key(b"short")


async def test_opens_with_api_key_apart_from_other_credentials() -> None:
    engine = FakeEngine(samples(3))
    run_opener, publisher = opener(
        FakeEvents(requested(api_key="sk-canary", simulator_api_key="sim")),
        FakeDataKeys({"k1": KEY}),
        engine,
    )
    run = await run_opener("r1")
    assert isinstance(run, OpenRun)
    assert list(run.samples) == ["s0", "s1", "s2"]
    assert engine.opened == [("r1", "sk-canary", {"simulator_api_key": "sim"})]
    assert publisher.events == []


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (RunFinished(run_id="r1", status="succeeded", counts=RunCounts()), "finished"),
        (RunCancelRequested(run_id="r1"), "cancelled"),
        (RunAbortRequested(run_id="r1", reason="bad key"), "bad key"),
    ],
)
async def test_runs_that_are_over_are_not_opened(
    event: RunFinished | RunCancelRequested | RunAbortRequested, reason: str
) -> None:
    engine = FakeEngine(samples(1))
    run_opener, publisher = opener(
        FakeEvents(requested(api_key="sk"), event), FakeDataKeys({"k1": KEY}), engine
    )
    over = await run_opener("r1")
    assert isinstance(over, RunOver)
    assert reason in over.reason
    assert engine.opened == []
    assert publisher.events == []


@pytest.mark.parametrize(
    ("events", "keys", "engine", "expected"),
    [
        (FakeEvents(), FakeDataKeys({"k1": KEY}), FakeEngine([]), "no RunRequested"),
        (FakeEvents(requested(api_key="sk")), FakeDataKeys(), FakeEngine([]), "are gone"),
        (
            FakeEvents(requested(judge_api_key="j")),
            FakeDataKeys({"k1": KEY}),
            FakeEngine([]),
            "no api_key credential",
        ),
        (
            FakeEvents(requested(api_key="sk")),
            FakeDataKeys({"k1": KEY}),
            FakeEngine([], error=FileNotFoundError("no such dataset file: gpqa.csv")),
            "could not open run r1: no such dataset file",
        ),
    ],
)
async def test_unavailable_runs_publish_one_actionable_abort(
    events: FakeEvents, keys: FakeDataKeys, engine: FakeEngine, expected: str
) -> None:
    run_opener, publisher = opener(events, keys, engine)
    over = await run_opener("r1")
    assert isinstance(over, RunOver)
    (abort,) = publisher.of(RunAbortRequested)
    assert expected in abort.reason
    assert abort.reason == over.reason
    assert abort.runner_id == "w1"
    again, _ = opener(events, keys, engine)
    assert (await again.ended("r1")) is None  # the fake record was not told about the abort


async def test_transient_failures_propagate_without_abort() -> None:
    class Down(FakeEvents):
        async def last(self, event_type, run_id):  # type: ignore[no-untyped-def]
            raise TimeoutError("nats timeout")

    run_opener, publisher = opener(Down(), FakeDataKeys(), FakeEngine([]))
    with pytest.raises(TimeoutError):
        await run_opener("r1")
    assert publisher.events == []
