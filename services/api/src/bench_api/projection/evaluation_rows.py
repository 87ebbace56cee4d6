"""`SampleCompleted` -> one `evaluations` row."""

from __future__ import annotations

from bench_api.projection.changes import EvaluationRow
from bench_api.projection.run_columns import (
    MEDIUM_TEXT_LIMIT,
    TEXT_LIMIT,
    UINT32_MAX,
    clip,
    json_text,
    key_problem,
)
from bench_common.events import SampleCompleted


def evaluation_row(seq: int, event: SampleCompleted) -> EvaluationRow | str:
    """The row of one scored (sample, epoch), or why it cannot be stored.

    Large bodies (messages, trajectories, request bodies) stay in the events and the archive;
    the row keeps what listings, summaries and reports query.
    """
    record = event.record
    problem = key_problem(sample_id=record.sample_id)
    if problem is not None:
        return problem
    if not 0 <= record.sample_index <= UINT32_MAX or record.epoch > UINT32_MAX:
        return f"sample_index {record.sample_index} / epoch {record.epoch} out of range"
    usage = record.usage
    return EvaluationRow(
        values={
            "run_id": event.run_id,
            "sample_id": record.sample_id,
            "epoch": record.epoch,
            "sample_index": record.sample_index,
            "score": record.score,
            "answer": clip(record.answer, MEDIUM_TEXT_LIMIT),
            "target": clip(record.target, TEXT_LIMIT),
            "explanation": clip(record.explanation, MEDIUM_TEXT_LIMIT),
            "latency_ms": record.latency_ms,
            "input_tokens": max(usage.input_tokens, 0),
            "output_tokens": max(usage.output_tokens, 0),
            "total_tokens": max(usage.total_tokens, 0),
            "reasoning_tokens": max(usage.reasoning_tokens, 0),
            "cache_read_tokens": max(usage.cache_read_tokens, 0),
            "cost": usage.cost,
            "generation_time_ms": max(usage.generation_time_ms, 0),
            "metadata_json": json_text(record.metadata) if record.metadata else None,
            "runner_id": clip(event.runner_id, 128),
            "completed_at": event.occurred_at,
            "event_seq": seq,
        }
    )
