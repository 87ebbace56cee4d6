"""Cost of the pure report builders (`bench_common.reports`) on a synthetic GPQA run.

A run of EVALUATIONS evaluations (198 questions x epochs) with realistic text sizes (a
~1,200-character response ending in `Answer: X`, ~4,000 characters of reasoning, 2% skipped,
a few repetition loops), two request attempts per 20 evaluations retried. Times each builder
(best and median of --repeat runs, on records already in memory).
Target: well under 500 ms.

Usage: uv run python benchmarks/report_builders.py [--evaluations 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from bench_common.attempts import AttemptCompleted, AttemptStarted
from bench_common.envelope import Event
from bench_common.evaluation import EvaluationRecord
from bench_common.events import RequestAttemptCompleted, RequestAttemptStarted, SampleCompleted
from bench_common.reports import gpqa_report, performance_report, run_log_lines, summary
from bench_common.usage import Usage

VOCABULARY = (
    "the of a is and to in that energy reaction molecule electron state wave function therefore "
    "because orbital photon spin momentum field constant rate equilibrium product compound acid "
    "base charge mass frequency given"
)
WORDS = VOCABULARY.split()
PROMPT = (
    "Answer the following multiple choice question. The last line of your response should "
    "be of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of "
    "ABCD.\n\n{q}\n\nA) {a}\nB) {b}\nC) {c}\nD) {d}"
)


def prose(rng: random.Random, chars: int) -> str:
    """Science-flavoured text of about `chars` characters, different every time (as model
    responses are: nothing downstream may profit from repeated text)."""
    words: list[str] = []
    size = 0
    while size < chars:
        word = rng.choice(WORDS)
        words.append(word)
        size += len(word) + 1
        if rng.random() < 0.05:
            words.append(".\n")
    return " ".join(words)


def synthetic_run(evaluations: int, seed: int = 7) -> list[EvaluationRecord]:
    """GPQA-like records: 198 questions, as many epochs as it takes."""
    rng = random.Random(seed)
    records = []
    for i in range(evaluations):
        sample, epoch = i % 198, i // 198
        letter = "ABCD"[rng.randrange(4)]
        skipped = rng.random() < 0.02
        content = prose(rng, 1200) + f"\n\nAnswer: {letter}"
        if rng.random() < 0.01:
            content += " the same phrase goes round and round forever" * 6
        prompt = PROMPT.format(q=prose(rng, 400), a="x1", b="x2", c="x3", d="x4")
        records.append(
            EvaluationRecord(
                sample_id=f"gpqa_diamond-{sample}",
                sample_index=sample,
                epoch=epoch,
                score="S" if skipped else ("C" if letter == "B" else "I"),
                answer=None if skipped else letter,
                explanation="Model error after 7 attempt(s): HTTP 503" if skipped else "ok",
                input=prompt,
                target="B",
                messages=[
                    {"role": "user", "content": prompt},
                    {"role": "assistant", "content": content, "reasoning": prose(rng, 4000)},
                ],
                metadata={"subdomain": f"sub-{sample % 7}"},
                usage=Usage(input_tokens=300, output_tokens=900, total_tokens=1200),
                latency_ms=rng.randrange(2_000, 400_000),
            )
        )
    return records


def attempts_of(records: list[EvaluationRecord]) -> list[AttemptStarted | AttemptCompleted]:
    """One attempt per evaluation (two for every 20th), staggered over time."""
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    out: list[AttemptStarted | AttemptCompleted] = []
    for i, r in enumerate(records):
        for attempt in (1, 2) if i % 20 == 0 else (1,):
            start = t0 + timedelta(milliseconds=i * 50 + attempt)
            ident: dict[str, Any] = {
                "request_id": f"req-{i}-{attempt}", "call_id": f"call-{i}", "session_id": "s",
                "attempt": attempt, "model": "m", "url": "http://x", "started_at": start,
                "sample_id": r.sample_id, "epoch": r.epoch,
            }  # fmt: skip
            out.append(AttemptStarted(**ident))
            ok = attempt == 2 or i % 20 != 0
            out.append(
                AttemptCompleted(
                    **ident,
                    finished_at=start + timedelta(milliseconds=r.latency_ms or 0),
                    duration_ms=r.latency_ms or 0,
                    status=200 if ok else 503,
                    ok=ok,
                    usage=r.usage if ok else None,
                )
            )
    return out


def _time(
    label: str, repeat: int, build: Callable[[], object], before: Callable[[], None] = lambda: None
) -> None:
    times = []
    for _ in range(repeat):
        before()
        start = time.perf_counter()
        build()
        times.append((time.perf_counter() - start) * 1000)
    print(f"{label:<22} best {min(times):7.1f} ms   median {statistics.median(times):7.1f} ms")


def main() -> None:
    """Build the synthetic run, then time every builder."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--evaluations", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    records = synthetic_run(args.evaluations)
    attempts = attempts_of(records)
    events: list[Event] = [SampleCompleted(run_id="r", record=r) for r in records]
    events += [
        RequestAttemptStarted(run_id="r", record=a)
        if isinstance(a, AttemptStarted)
        else RequestAttemptCompleted(run_id="r", record=a)
        for a in attempts
    ]
    print(f"{len(records)} evaluations, {len(attempts)} attempt records, {len(events)} events")
    _time(
        "summary",
        args.repeat,
        lambda: summary(records, task="gpqa_diamond", model="m", epochs=args.evaluations // 198),
    )
    _time("gpqa_report", args.repeat, lambda: gpqa_report(records))
    _time("performance_report", args.repeat, lambda: performance_report(attempts))
    _time("run_log_lines", args.repeat, lambda: run_log_lines(events))


if __name__ == "__main__":
    main()
