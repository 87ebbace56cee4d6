"""The event catalogue: names, subjects, round trips."""

from __future__ import annotations

import pytest

from bench_common.envelope import (
    STREAM_EVENTS,
    STREAM_LIVE,
    STREAM_WORK,
    all_event_classes,
    decode_event,
    run_filter,
    subject_for,
)
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RequestAttemptProgressed,
    RunCounts,
    RunFinished,
    RunRequested,
    SampleCompleted,
    SampleDispatched,
    SampleStarted,
)
from bench_common.run_config import RunConfig


def test_every_event_is_past_tense_with_a_docstring() -> None:
    classes = all_event_classes()
    assert len(classes) >= 20
    for cls in classes:
        assert cls.__doc__, cls.__name__
        assert cls.name.endswith(("ed", "_requested")), cls.name


def test_subjects_derive_from_class_and_run() -> None:
    assert subject_for(SampleCompleted, "r-1") == "bench.runs.r-1.sample_completed"
    assert subject_for(SampleDispatched, "r-1") == "bench.runs.r-1.sample_dispatched"
    assert subject_for(SampleDispatched, "r-1", STREAM_WORK) == "bench.work.r-1.sample_dispatched"
    assert subject_for(RequestAttemptProgressed, "r-1").startswith("bench.live.r-1.")
    assert run_filter("r-1") == "bench.runs.r-1.>"
    assert {SampleStarted.stream, RequestAttemptProgressed.stream, RunFinished.stream} == {
        STREAM_LIVE,
        STREAM_EVENTS,
    }


@pytest.mark.parametrize("bad", ["a.b", "a*", "a>", "a b", ""])
def test_run_ids_that_would_break_subjects_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="NATS subject"):
        subject_for(RunFinished, bad)


def test_round_trip_through_json() -> None:
    config = RunConfig(benchmark="gpqa_diamond", model="m", epochs=3, concurrency=3)
    events = [
        RunRequested(run_id="r1", config=config, triggered_by_email="a@digitalocean.com"),
        RunFinished(run_id="r1", status="succeeded", counts=RunCounts(total=3, completed=3)),
        SampleCompleted(
            run_id="r1",
            record=EvaluationRecord(sample_id="s", sample_index=0, epoch=1, score="C"),
        ),
    ]
    for event in events:
        decoded = decode_event(subject_for(type(event), "r1"), event.model_dump_json())
        assert decoded == event


def test_events_are_immutable() -> None:
    event = RunFinished(run_id="r1", status="failed", counts=RunCounts())
    with pytest.raises(ValueError, match="frozen"):
        event.status = "succeeded"  # type: ignore[misc]
