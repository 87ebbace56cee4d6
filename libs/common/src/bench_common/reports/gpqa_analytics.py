"""The `analytics` of the GPQA report (original harness §7): latency and length buckets, epoch
consistency, response-quality diagnostics, the hardest questions and per-epoch trends.

Every function takes the same pre-digested observations (one per evaluation), so the response
text is read and checked once however many analytics use it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from bench_common.evaluation import EvaluationRecord, ScoreValue
from bench_common.reports.records import Outcome, subdomain
from bench_common.reports.response_checks import ResponseChecks, check_response
from bench_common.reports.stats import Buckets, mean, rate

LATENCY_BUCKETS = Buckets(
    labels=("≤30 s", "30–60 s", "1–2 m", "2–5 m", "5–10 m", "10–30 m", ">30 m"),
    uppers=(30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000),
)
LENGTH_BUCKETS = Buckets(
    labels=("0", "1–500", "501–2k", "2k–8k", ">8k"), uppers=(0, 500, 2_000, 8_000)
)
HARDEST_COUNT = 20
EXAMPLES_PER_CHECK = 10


class Observation(NamedTuple):
    """One evaluation as the analytics see it: the facts they read, not the record, so a
    report kept between requests (the api's) holds no prompt or response through them."""

    sample_id: str
    epoch: int
    score: ScoreValue
    status: Outcome
    answer: str | None
    target: str | None
    latency_ms: int | None
    subdomain: str | None
    response_chars: int
    reasoning_chars: int
    checks: ResponseChecks


def observe(
    record: EvaluationRecord, status: Outcome, response: str, reasoning: str
) -> Observation:
    """The observation of one evaluation, given its outcome, response and reasoning."""
    return Observation(
        sample_id=record.sample_id,
        epoch=record.epoch,
        score=record.score,
        status=status,
        answer=record.answer,
        target=record.target,
        latency_ms=record.latency_ms,
        subdomain=subdomain(record),
        response_chars=len(response),
        reasoning_chars=len(reasoning),
        checks=check_response(response),
    )


def _tally(statuses: Counter[str]) -> dict[str, Any]:
    scored = statuses["correct"] + statuses["wrong"] + statuses["no_answer"]
    return {
        "count": scored + statuses["skipped"],
        "correct": statuses["correct"],
        "wrong": statuses["wrong"],
        "noAnswer": statuses["no_answer"],
        "accuracy": rate(statuses["correct"], scored),
    }


def _bucketed(pairs: Iterable[tuple[float, Outcome]], buckets: Buckets) -> list[dict[str, Any]]:
    tallies: list[Counter[str]] = [Counter() for _ in buckets.labels]
    index = buckets.index
    for value, status in pairs:
        tallies[index(value)][status] += 1
    return [{"label": label, **_tally(t)} for label, t in zip(buckets.labels, tallies, strict=True)]


def latency_buckets(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """Scored evaluations by model latency (skipped and unmeasured ones excluded)."""
    return _bucketed(
        (
            (o.latency_ms, o.status)
            for o in observations
            if o.status != "skipped" and o.latency_ms is not None
        ),
        LATENCY_BUCKETS,
    )


def length_buckets(observations: Sequence[Observation], *, reasoning: bool) -> list[dict[str, Any]]:
    """Scored evaluations by response (or reasoning) length in characters."""
    if reasoning:
        pairs = ((o.reasoning_chars, o.status) for o in observations if o.status != "skipped")
    else:
        pairs = ((o.response_chars, o.status) for o in observations if o.status != "skipped")
    return _bucketed(pairs, LENGTH_BUCKETS)


def by_question(observations: Sequence[Observation]) -> dict[str, list[Observation]]:
    """Observations grouped by sample id, in sample order."""
    groups: dict[str, list[Observation]] = defaultdict(list)
    for o in observations:
        groups[o.sample_id].append(o)
    return groups


def epoch_consistency(questions: dict[str, list[Observation]]) -> dict[str, int]:
    """Questions by how their epochs agree. The categories partition the questions:
    all skipped; one scored epoch; every epoch scored and all correct; every epoch scored
    and none correct; the rest (mixed results, or some epochs skipped)."""
    result = Counter[str]()
    for group in questions.values():
        scored = [o for o in group if o.status != "skipped"]
        correct = sum(1 for o in scored if o.status == "correct")
        complete = len(scored) == len(group)
        if not scored:
            result["allSkipped"] += 1
        elif len(scored) == 1:
            result["singleObservation"] += 1
        elif complete and correct == len(scored):
            result["consistentlyCorrect"] += 1
        elif complete and correct == 0:
            result["consistentlyIncorrect"] += 1
        else:
            result["mixedOrIncomplete"] += 1
    keys = ("consistentlyCorrect", "consistentlyIncorrect", "mixedOrIncomplete")
    return {
        "questions": len(questions),
        **{k: result[k] for k in (*keys, "allSkipped", "singleObservation")},
    }


_LABELS = {
    "emptyResponse": "Empty response",
    "noExtractedAnswer": "No extracted A–D answer",
    "missingFinalAnswerLine": "Missing final 'Answer: X' line",
    "multipleAnswerDeclarations": "Multiple 'Answer:' declarations",
    "repetitionLoop": "Repetition loop",
    "noExposedReasoning": "No exposed reasoning",
    "longResponse": "Response over 20k characters",
}


def _problems(o: Observation) -> tuple[bool, ...]:
    """The checks of one observation, in `_LABELS` order."""
    c = o.checks
    return (
        c.empty_response,
        not o.answer,
        c.missing_final_answer_line,
        c.multiple_answer_declarations,
        c.repetition_loop,
        o.reasoning_chars == 0,
        c.long_response,
    )


def response_quality(observations: Sequence[Observation]) -> dict[str, Any]:
    """How many scored evaluations show each quality problem, with up to 10 examples each."""
    scored = 0
    counts = [0] * len(_LABELS)
    examples: list[list[dict[str, Any]]] = [[] for _ in _LABELS]
    for o in observations:
        if o.status == "skipped":
            continue
        scored += 1
        for i, present in enumerate(_problems(o)):
            if present:
                counts[i] += 1
                if len(examples[i]) < EXAMPLES_PER_CHECK:
                    examples[i].append({"sampleId": o.sample_id, "epoch": o.epoch})
    checks = {
        key: {"label": label, "count": n, "rate": rate(n, scored), "examples": found}
        for (key, label), n, found in zip(_LABELS.items(), counts, examples, strict=True)
    }
    return {"evaluations": scored, "checks": checks}


def _difficulty(group: list[Observation]) -> dict[str, Any]:
    statuses = Counter(o.status for o in group)
    scored = len(group) - statuses["skipped"]
    latencies = [o.latency_ms for o in group if o.status != "skipped" and o.latency_ms is not None]
    first = group[0]
    answers = Counter(o.answer or "none" for o in group if o.status != "skipped")
    return {
        "sampleId": first.sample_id,
        "subdomain": first.subdomain,
        "accuracy": statuses["correct"] / scored if scored else None,
        "observations": scored,
        "correct": statuses["correct"],
        "wrong": statuses["wrong"],
        "noAnswer": statuses["no_answer"],
        "skipped": statuses["skipped"],
        "averageLatencyMs": mean(latencies),
        "correctAnswer": first.target,
        "answerDistribution": dict(sorted(answers.items())),
    }


def hardest_questions(questions: dict[str, list[Observation]]) -> list[dict[str, Any]]:
    """The 20 questions with the lowest accuracy, then the most unanswered epochs, then the
    highest average latency (questions never scored are left out)."""
    rows = [_difficulty(g) for g in questions.values()]
    rows = [r for r in rows if r["observations"]]
    rows.sort(key=lambda r: (r["accuracy"], -r["noAnswer"], -(r["averageLatencyMs"] or 0.0)))
    return rows[:HARDEST_COUNT]


def epoch_trends(observations: Sequence[Observation]) -> list[dict[str, Any]]:
    """Per epoch: accuracy, skipped and unanswered counts, average latency and lengths."""
    per_epoch: dict[int, list[Observation]] = defaultdict(list)
    for o in observations:
        per_epoch[o.epoch].append(o)
    trends = []
    for epoch, group in sorted(per_epoch.items()):
        scored = [o for o in group if o.status != "skipped"]
        latencies = [o.latency_ms for o in scored if o.latency_ms is not None]
        counts = _tally(Counter(o.status for o in group))
        trends.append(
            {
                "epoch": epoch,
                "name": f"Epoch {epoch + 1}",
                "evaluations": len(group),
                "scored": len(scored),
                "correct": counts["correct"],
                "accuracy": counts["accuracy"],
                "skipped": len(group) - len(scored),
                "noAnswer": counts["noAnswer"],
                "averageLatencyMs": mean(latencies),
                "averageResponseChars": mean([o.response_chars for o in scored]),
                "averageReasoningChars": mean([o.reasoning_chars for o in scored]),
            }
        )
    return trends
