"""Claim checks: which fields leave the event, and getting the whole record back."""

from __future__ import annotations

import hashlib

import pytest

from bench_common.claim_checks import (
    ClaimCheckError,
    claim_checked,
    full_record,
    merge_record,
    split_record,
    with_full_records,
)
from bench_common.evaluation import EvaluationRecord
from bench_common.events import RunCounts, RunFinished, SampleCompleted
from bench_common.usage import Usage
from tests.support.blobs import MemoryBlobs


def record(text_bytes: int, *, metadata_bytes: int = 0) -> EvaluationRecord:
    return EvaluationRecord(
        sample_id="s1", sample_index=1, epoch=0, score="I", answer="B", target="A",
        explanation="wrong letter", input="Q? " * 10, usage=Usage(input_tokens=9, cost=0.1),
        latency_ms=1234, messages=[{"role": "assistant", "content": "x" * text_bytes}],
        metadata={"subdomain": "Physics", "blob": "m" * metadata_bytes},
        scorer_trajectory=[{"step": 1}], request_body={"model": "m"},
    )  # fmt: skip


def test_a_record_that_fits_is_left_alone() -> None:
    small = record(100)
    assert split_record(small, threshold=10_000) == (small, b"")


def test_bulky_fields_leave_and_come_back_unchanged() -> None:
    big = record(50_000)
    kept, part = split_record(big, threshold=10_000)
    assert kept.messages == [] and kept.input is None and kept.scorer_trajectory is None
    # what counting, MySQL rows and summaries read stays in the event
    assert (kept.score, kept.answer, kept.usage, kept.latency_ms) == ("I", "B", big.usage, 1234)
    assert kept.metadata == big.metadata
    assert merge_record(kept, part) == big


def test_metadata_leaves_too_when_the_rest_was_not_enough() -> None:
    big = record(100, metadata_bytes=50_000)
    kept, part = split_record(big, threshold=10_000)
    assert kept.metadata == {}
    assert merge_record(kept, part) == big


async def test_the_event_names_its_object_by_content() -> None:
    blobs = MemoryBlobs()
    event = SampleCompleted(run_id="r1", record=record(50_000), runner_id="w1")
    checked = await claim_checked(event, blobs, threshold=10_000)
    ref = checked.blobs["record"]
    assert ref.name == f"r1/{ref.sha256}"
    assert hashlib.sha256(blobs.objects[ref.name]).hexdigest() == ref.sha256
    assert len(checked.model_dump_json()) < 10_000
    assert checked.event_id == event.event_id  # still the same fact for de-duplication
    assert await full_record(checked, blobs) == event.record
    # a small event needs no object
    assert await claim_checked(event, blobs, threshold=1_000_000) is event


async def test_an_altered_or_missing_object_is_refused_and_reported() -> None:
    blobs = MemoryBlobs()
    event = SampleCompleted(run_id="r1", record=record(50_000))
    checked = await claim_checked(event, blobs, threshold=10_000)
    name = checked.blobs["record"].name
    blobs.objects[name] = blobs.objects[name].replace(b"xxxx", b"yyyy", 1)
    with pytest.raises(ClaimCheckError, match="sha256"):
        await full_record(checked, blobs)
    with pytest.raises(ClaimCheckError, match="no object store"):
        await full_record(checked, None)

    finished = RunFinished(run_id="r1", status="succeeded", counts=RunCounts())
    resolved = await with_full_records([checked, finished], blobs)
    assert resolved[1] is finished
    damaged = resolved[0]
    assert isinstance(damaged, SampleCompleted)
    assert "sha256" in str(damaged.record.metadata["claim_check_error"])
    assert damaged.record.score == "I"  # still counted, and says what is missing


async def test_a_missing_object_is_reported_not_raised_by_readers() -> None:
    blobs = MemoryBlobs()
    checked = await claim_checked(
        SampleCompleted(run_id="r1", record=record(50_000)), blobs, threshold=10_000
    )
    blobs.objects.clear()
    with pytest.raises(ClaimCheckError, match="missing"):
        await full_record(checked, blobs)
    (resolved,) = await with_full_records([checked], blobs)
    assert "missing" in str(resolved.record.metadata["claim_check_error"])
