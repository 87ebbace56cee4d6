"""A Markdown report of one result file (`bench parquet-to-md`, the API's summaries)."""

from __future__ import annotations

from collections import defaultdict

from bench_common.aggregation import aggregate, question_accuracy
from bench_common.evaluation import EvaluationRecord
from bench_common.parquet import RunColumns


def _cell(value: object, limit: int = 80) -> str:
    text = "" if value is None else str(value)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _last_assistant_text(record: EvaluationRecord) -> str:
    for message in reversed(record.messages):
        if message.get("role") == "assistant":
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


def failure_kind(record: EvaluationRecord) -> str:
    """Why a non-correct evaluation failed: skipped, empty response, no answer, wrong answer."""
    if record.score == "S":
        return "Skipped"
    if not _last_assistant_text(record).strip():
        return "Empty response"
    if record.answer is None:
        return "No answer parsed"
    return "Wrong answer"


def render_report(run: RunColumns, records: list[EvaluationRecord]) -> str:
    """The report: overview, scores, usage, accuracy by subdomain, failures, every sample."""
    m = aggregate(records)
    ordered = sorted(records, key=lambda r: (r.sample_index, r.epoch))
    failures = [r for r in ordered if r.score != "C"]
    kinds: dict[str, int] = defaultdict(int)
    for r in failures:
        kinds[failure_kind(r)] += 1
    u = m.usage
    lines = [
        f"# {run.task} — {run.model}",
        "",
        "## Overview",
        "",
        "| field | value |",
        "|---|---|",
        f"| model | {_cell(run.model)} |",
        f"| task | {run.task} |",
        f"| epochs | {run.epochs} |",
        f"| temperature | {run.temperature} |",
        f"| created | {run.created_at} |",
        "",
        "## Scores",
        "",
        "| metric | value |",
        "|---|---|",
        f"| accuracy | {m.accuracy:.4f} |",
    ]
    if m.interval is not None:
        lines.append(f"| 95% interval (Wilson) | {m.interval.lower:.4f} – {m.interval.upper:.4f} |")
    lines += [
        f"| correct questions | {m.correct_answers} / {m.total_questions} |",
        f"| correct evaluations | {m.correct_evaluations} |",
        f"| wrong answers | {kinds['Wrong answer']} |",
        f"| no answer | {kinds['No answer parsed'] + kinds['Empty response']} |",
        f"| skipped evaluations | {m.skipped_evaluations} |",
        f"| total evaluations | {m.evaluations} |",
    ]
    for name, value in m.extractor_accuracy.items():
        lines.append(f"| accuracy ({name} extractor) | {value:.4f} |")
    lines += [
        "",
        "## Usage",
        "",
        "| tokens in | tokens out | reasoning | total | cost | generation time |",
        "|---|---|---|---|---|---|",
        f"| {u.input_tokens} | {u.output_tokens} | {u.reasoning_tokens} | {u.total_tokens} "
        f"| ${u.cost:.4f} | {u.generation_time_ms / 1000:.1f} s |",
    ]
    by_sub: dict[str, dict[str, list[bool]]] = defaultdict(dict)
    for r in ordered:
        sub = r.metadata.get("subdomain")
        if isinstance(sub, str) and r.score != "S":
            by_sub[sub].setdefault(r.sample_id, []).append(r.score == "C")
    if by_sub:
        lines += [
            "",
            "## Accuracy by subdomain",
            "",
            "| subdomain | accuracy | questions |",
            "|---|---|---|",
        ]
        rows = sorted((question_accuracy(q)[0], s, len(q)) for s, q in by_sub.items())
        lines += [f"| {_cell(s)} | {acc:.4f} | {n} |" for acc, s, n in rows]
    if failures:
        lines += [
            "",
            "## Failures",
            "",
            "| sample | epoch | kind | answer | target | explanation |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {r.sample_id} | {r.epoch} | {failure_kind(r)} | {_cell(r.answer)} | "
            f"{_cell(r.target)} | {_cell(r.explanation)} |"
            for r in failures
        ]
    lines += [
        "",
        "## All samples",
        "",
        "| sample | epoch | score | answer | target | latency ms |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.sample_id} | {r.epoch} | {r.score} | {_cell(r.answer)} | {_cell(r.target)} | "
        f"{'' if r.latency_ms is None else r.latency_ms} |"
        for r in ordered
    ]
    return "\n".join(lines) + "\n"
