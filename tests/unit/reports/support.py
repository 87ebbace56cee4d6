"""Builders of synthetic evaluation and attempt records for the report tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bench_common.attempts import AttemptCompleted, AttemptStarted
from bench_common.evaluation import EvaluationRecord, ScoreValue
from bench_common.usage import Usage

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

PROMPT = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD."
    "\n\nWhat is {n} + 1?\n\nA) one\nB) two\nC) three\nD) four"
)


def evaluation(
    sample: int,
    epoch: int = 0,
    score: ScoreValue = "C",
    *,
    answer: str | None = "B",
    content: str | None = None,
    reasoning: str = "thinking",
    latency_ms: int | None = 1_000,
    subdomain: str = "Physics",
    explanation: str | None = None,
) -> EvaluationRecord:
    """A GPQA-like record whose target is B; `content` defaults to a healthy response."""
    text = f"Some working.\n\nAnswer: {answer}" if content is None else content
    assistant: dict[str, object] = {"role": "assistant", "content": text}
    if reasoning:
        assistant["reasoning"] = reasoning
    prompt = PROMPT.format(n=sample)
    return EvaluationRecord.model_validate(
        {
            "sample_id": f"gpqa_diamond-{sample}",
            "sample_index": sample,
            "epoch": epoch,
            "score": score,
            "answer": answer if score != "S" else None,
            "explanation": explanation,
            "input": prompt,
            "target": "B",
            "messages": [] if score == "S" else [{"role": "user", "content": prompt}, assistant],
            "metadata": {"subdomain": subdomain},
            "usage": Usage(input_tokens=10, output_tokens=20, total_tokens=30, cost=0.5),
            "latency_ms": latency_ms,
        }
    )


def attempt_pair(
    request_id: str,
    *,
    start_ms: int,
    duration_ms: int,
    status: int | None = 200,
    ok: bool = True,
    attempt: int = 1,
    call_id: str | None = None,
    output_tokens: int = 100,
    failure_stage: str | None = None,
) -> tuple[AttemptStarted, AttemptCompleted]:
    """The started and completed records of one attempt."""
    ident = {
        "request_id": request_id,
        "call_id": call_id or request_id,
        "session_id": "run-1",
        "attempt": attempt,
        "model": "m",
        "url": "http://model/v1/chat/completions",
        "started_at": T0 + timedelta(milliseconds=start_ms),
    }
    started = AttemptStarted.model_validate(ident)
    completed = AttemptCompleted.model_validate(
        {
            **ident,
            "finished_at": T0 + timedelta(milliseconds=start_ms + duration_ms),
            "duration_ms": duration_ms,
            "status": status,
            "ok": ok,
            "usage": Usage(output_tokens=output_tokens) if ok else None,
            "failure_stage": failure_stage,
        }
    )
    return started, completed
