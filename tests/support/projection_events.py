"""A synthetic managed run as the services would publish it, for projection tests."""

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
    SampleDispatched,
    SampleStarted,
)
from bench_common.run_config import InferenceOptions, RunConfig
from bench_common.usage import Usage

T0 = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)


class Clock:
    """Event times 1.5 ms apart, so ordering and millisecond truncation both show."""

    def __init__(self, start: datetime = T0) -> None:
        self.now = start

    def tick(self) -> datetime:
        self.now += timedelta(microseconds=1500)
        return self.now


def request(run_id: str, clock: Clock, *, samples: int, epochs: int) -> RunRequested:
    """The run's RunRequested (a GPQA config, the canary's e-mail)."""
    config = RunConfig(
        benchmark="gpqa_diamond",
        model="openai/gpt-test",
        epochs=epochs,
        concurrency=4,
        limit=samples,
        inference=InferenceOptions(temperature=1, reasoning_effort="high", provider_only=("do",)),
    )
    return RunRequested(
        run_id=run_id,
        occurred_at=clock.tick(),
        config=config,
        triggered_by_email="genai-temporal-worker@digitalocean.com",
        judge_model=None,
    )


def attempts(run_id: str, clock: Clock, sample_id: str, epoch: int, *, retry: bool) -> list[Event]:
    """One model call's attempts: a 429 then a success when `retry`, else one success."""
    events: list[Event] = []
    previous = None
    count = 2 if retry else 1
    for number in range(1, count + 1):
        request_id = f"req-{run_id}-{sample_id}-{epoch}-{number}"
        identity = {
            "request_id": request_id,
            "call_id": f"call-{run_id}-{sample_id}-{epoch}",
            "session_id": run_id,
            "attempt": number,
            "previous_request_id": previous,
            "model": "openai/gpt-test",
            "url": "http://127.0.0.1:9/v1/chat/completions",
            "sample_id": sample_id,
            "epoch": epoch,
            "started_at": clock.tick(),
        }
        events.append(
            RequestAttemptStarted(
                run_id=run_id, occurred_at=clock.tick(), record=AttemptStarted(**identity)
            )
        )
        ok = number == count
        done = AttemptCompleted(
            **identity,
            finished_at=clock.tick(),
            duration_ms=120 + number,
            status=200 if ok else 429,
            ok=ok,
            time_to_first_output_ms=40 if ok else None,
            usage=Usage(input_tokens=100, output_tokens=20, total_tokens=120, cost=0.001)
            if ok
            else None,
            provider_name="DigitalOcean" if ok else None,
            error=None if ok else "rate limited",
            error_class=None if ok else "RateLimitError",
            retryable=None if ok else True,
            failure_stage=None if ok else "http",
        )
        events.append(RequestAttemptCompleted(run_id=run_id, occurred_at=clock.tick(), record=done))
        previous = request_id
    return events


def completed(
    run_id: str, clock: Clock, index: int, epoch: int, *, answer: str = "A"
) -> SampleCompleted:
    """The SampleCompleted of (sample `index`, `epoch`): C for even samples, I for odd, and
    S for sample 2 in epoch 1."""
    score = "S" if (index == 2 and epoch == 1) else ("C" if index % 2 == 0 else "I")
    record = EvaluationRecord(
        sample_id=f"s{index}",
        sample_index=index,
        epoch=epoch,
        score=score,
        answer=answer,
        explanation=f"explained {index}/{epoch}",
        target="A",
        metadata={"subdomain": "Physics"},
        usage=Usage(input_tokens=100, output_tokens=20, total_tokens=120, cost=0.001),
        latency_ms=130 + index,
    )
    return SampleCompleted(run_id=run_id, occurred_at=clock.tick(), record=record, runner_id="r1")


def synthetic_run(
    run_id: str, *, samples: int = 3, epochs: int = 2, finish: bool = True
) -> list[Event]:
    """A whole run: requested, admitted, started, every evaluation (with attempts, a retried
    first call and a duplicate SampleCompleted carrying another answer), finished."""
    clock = Clock()
    events: list[Event] = [
        request(run_id, clock, samples=samples, epochs=epochs),
        RunAdmitted(run_id=run_id, occurred_at=clock.tick(), active=1, max_active=8),
        RunStarted(
            run_id=run_id,
            occurred_at=clock.tick(),
            expected_samples=samples,
            total_evaluations=samples * epochs,
            sample_ids=[f"s{i}" for i in range(samples)],
        ),
    ]
    for index in range(samples):
        for epoch in range(epochs):
            sample_id = f"s{index}"
            events.append(
                SampleDispatched(
                    run_id=run_id,
                    occurred_at=clock.tick(),
                    sample_id=sample_id,
                    sample_index=index,
                    epoch=epoch,
                )
            )
            events.append(
                SampleStarted(
                    run_id=run_id,
                    occurred_at=clock.tick(),
                    sample_id=sample_id,
                    epoch=epoch,
                    runner_id="r1",
                )
            )
            events += attempts(run_id, clock, sample_id, epoch, retry=index == 0 and epoch == 0)
            events.append(completed(run_id, clock, index, epoch))
    events.append(completed(run_id, clock, 0, 0, answer="DUPLICATE"))
    if finish:
        counts = RunCounts(total=samples * epochs, completed=samples * epochs - 1, skipped=1)
        events.append(
            RunFinished(
                run_id=run_id,
                occurred_at=clock.tick(),
                status="succeeded",
                counts=counts,
                accuracy=0.5,
            )
        )
    return events
