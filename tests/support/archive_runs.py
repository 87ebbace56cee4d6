"""A synthetic finished managed run, as the services publish it, for the archiver's tests.

GPQA-shaped: `samples` questions x `epochs`, every 4th evaluation wrong, one skipped after a
503, each evaluation's model call recorded as attempts (the first call retried after a 429),
a redelivered duplicate `SampleCompleted` with another score (the first one must win), and a
`RunFinished` with the scheduler's counts.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench_common.attempts import AttemptCompleted, AttemptStarted
from bench_common.envelope import Event
from bench_common.evaluation import EvaluationRecord
from bench_common.events import (
    RequestAttemptCompleted,
    RequestAttemptStarted,
    RunAdmitted,
    RunCounts,
    RunFinished,
    RunRequested,
    RunStarted,
    SampleCompleted,
)
from bench_common.run_config import RunConfig
from bench_common.usage import Usage

STARTED = datetime(2026, 3, 1, 23, 59, 30, tzinfo=UTC)
PROMPT = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD."
    "\n\nWhich is {n}?\n\nA) alpha\nB) beta\nC) gamma\nD) delta"
)


def _record(sample: int, epoch: int, *, wrong: bool, skipped: bool) -> EvaluationRecord:
    prompt = PROMPT.format(n=sample)
    letter = "A" if wrong else "B"
    if skipped:
        return EvaluationRecord(
            sample_id=f"gpqa_diamond-{sample}", sample_index=sample, epoch=epoch, score="S",
            explanation="Model error after 7 attempt(s): HTTP 503 Service Unavailable",
            input=prompt, target="B", metadata={"subdomain": "Physics"},
        )  # fmt: skip
    return EvaluationRecord(
        sample_id=f"gpqa_diamond-{sample}",
        sample_index=sample,
        epoch=epoch,
        score="I" if wrong else "C",
        answer=letter,
        explanation=f"Extracted '{letter}' from response, target was 'B'",
        input=prompt,
        target="B",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": f"Thinking.\n\nAnswer: {letter}", "reasoning": "r"},
        ],
        metadata={"subdomain": "Physics" if sample % 2 else "Chemistry"},
        usage=Usage(input_tokens=100, output_tokens=50, total_tokens=150, cost=0.001),
        latency_ms=1_000 + sample * 10 + epoch,
    )


def _attempts(run_id: str, index: int, record: EvaluationRecord, at: datetime) -> list[Event]:
    events: list[Event] = []
    statuses = [429, 200] if index == 0 else [200]
    previous = None
    for attempt, status in enumerate(statuses, start=1):
        request_id = f"{run_id}-req-{index}-{attempt}"
        ident = {
            "request_id": request_id, "call_id": f"{run_id}-call-{index}", "session_id": run_id,
            "attempt": attempt, "previous_request_id": previous, "model": "openai/gpt-test",
            "url": "http://model.test/v1/chat/completions", "sample_id": record.sample_id,
            "epoch": record.epoch, "started_at": at,
        }  # fmt: skip
        events.append(RequestAttemptStarted(run_id=run_id, record=AttemptStarted(**ident)))
        done = AttemptCompleted(
            **ident, finished_at=at + timedelta(milliseconds=900), duration_ms=900,
            status=status, ok=status == 200, usage=record.usage if status == 200 else None,
        )  # fmt: skip
        events.append(RequestAttemptCompleted(run_id=run_id, record=done))
        previous = request_id
    return events


def finished_run(
    run_id: str, *, samples: int = 5, epochs: int = 2, benchmark: str = "gpqa_diamond"
) -> list[Event]:
    """Every event of a succeeded run, in publication order."""
    config = RunConfig(
        benchmark=benchmark, model="openai/gpt-test", epochs=epochs, concurrency=2, limit=samples
    )
    events: list[Event] = [
        RunRequested(run_id=run_id, config=config, triggered_by_email="a@digitalocean.com",
                     occurred_at=STARTED - timedelta(seconds=5)),
        RunAdmitted(run_id=run_id, active=1, max_active=8),
        RunStarted(run_id=run_id, expected_samples=samples, total_evaluations=samples * epochs,
                   sample_ids=[f"gpqa_diamond-{i}" for i in range(samples)], occurred_at=STARTED),
    ]  # fmt: skip
    counts = {"completed": 0, "skipped": 0, "correct": 0}
    index = 0
    for sample in range(samples):
        for epoch in range(epochs):
            skipped = index == 3
            record = _record(sample, epoch, wrong=index % 4 == 1, skipped=skipped)
            at = STARTED + timedelta(seconds=index)
            events += _attempts(run_id, index, record, at)
            events.append(SampleCompleted(run_id=run_id, record=record, runner_id="runner-1"))
            counts["skipped" if skipped else "completed"] += 1
            counts["correct"] += record.score == "C"
            index += 1
    duplicate = _record(0, 0, wrong=True, skipped=False)  # a late copy: must not count
    events.append(SampleCompleted(run_id=run_id, record=duplicate))
    events.append(
        RunFinished(
            run_id=run_id,
            status="succeeded",
            counts=RunCounts(total=samples * epochs, **counts),
            accuracy=0.8,
        )
    )
    return events
