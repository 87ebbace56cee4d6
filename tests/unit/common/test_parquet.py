"""The v1 Parquet file: schema, sorting, round trip, atomic write, Markdown report."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from bench_common.aggregation import aggregate
from bench_common.evaluation import EvaluationRecord
from bench_common.markdown_report import render_report
from bench_common.parquet import (
    SCHEMA,
    RunColumns,
    read_records,
    result_filename,
    to_table,
    write_table,
)
from bench_common.usage import Usage

ORIGINAL_COLUMNS = [
    "format_version", "task", "model", "epochs", "temperature", "benchmark_config", "created_at",
    "accuracy", "total_questions", "correct_answers", "input_tokens", "output_tokens",
    "total_tokens", "reasoning_tokens", "total_cost", "generation_time_ms",
    "epoch_total_questions", "epoch_correct_answers", "extra_scores", "primary_score",
    "sample_id", "epoch", "sample_generation_time_ms", "input", "target", "score_value",
    "answer", "explanation", "scorer_trajectory", "response_items", "request_body",
    "generation_ids", "messages", "metadata",
]  # fmt: skip


def records() -> list[EvaluationRecord]:
    return [
        EvaluationRecord(
            sample_id=f"gpqa_diamond-{i}",
            sample_index=i,
            epoch=e,
            score="C" if (i + e) % 2 == 0 else "I",
            answer="A",
            target="A" if (i + e) % 2 == 0 else "B",
            explanation="x",
            messages=[{"role": "assistant", "content": "Answer: A"}],
            metadata={"subdomain": "Physics", "extracted": {"careful": "A", "parity": "A"}},
            usage=Usage(
                input_tokens=10,
                output_tokens=5,
                total_tokens=15,
                cost=0.01,
                generation_time_ms=100 + i,
            ),
            latency_ms=100 + i,
            generation_ids=["gen-1"],
        )
        for i in (2, 0, 1)
        for e in (1, 0)
    ]


def run() -> RunColumns:
    return RunColumns(
        "gpqa_diamond", "openai/gpt-4o-mini", 2, 1.0, {"maxRetries": 6}, "2026-11-30T00:00:00+00:00"
    )


def test_schema_keeps_the_original_columns_in_order() -> None:
    assert SCHEMA.names[: len(ORIGINAL_COLUMNS)] == ORIGINAL_COLUMNS


def test_round_trip_sorted_by_sample_and_epoch(tmp_path: Path) -> None:
    recs = records()
    path = tmp_path / "out" / result_filename("gpqa_diamond", "openai/gpt-4o-mini", "s1")
    assert path.name == "gpqa_diamond-openai_gpt-4o-mini-s1.parquet"
    write_table(to_table(run(), recs, aggregate(recs)), path)
    table = pq.read_table(path)
    assert table.schema.metadata[b"schema_version"] == b"1"
    assert table.column("sample_id").to_pylist()[:2] == ["gpqa_diamond-0", "gpqa_diamond-0"]
    assert table.column("epoch").to_pylist()[:2] == [0, 1]
    assert set(table.column("total_questions").to_pylist()) == {3}
    back_run, back = read_records(path)
    assert back_run == run()
    assert sorted(back, key=lambda r: r.key) == sorted(recs, key=lambda r: r.key)
    assert not list(path.parent.glob(".*tmp*"))


def test_markdown_report_has_every_section(tmp_path: Path) -> None:
    recs = records()
    text = render_report(run(), recs)
    for heading in (
        "## Overview",
        "## Scores",
        "## Usage",
        "## Accuracy by subdomain",
        "## Failures",
        "## All samples",
    ):
        assert heading in text
    assert "Wrong answer" in text
