"""Synthetic `runs` rows with realistic value spreads, inserted straight into the projection's
table (for list-query tests and the `benchmarks/api_queries.py` benchmark)."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

import asyncmy

BENCHMARKS = [
    ("gpqa_diamond", 50), ("tau_bench_verified_airline", 20), ("swe_bench_verified", 8),
    ("terminal_bench", 6), ("deep_swe", 4), ("swe_atlas_qa", 4), ("swe_atlas_tw", 4),
    ("swe_atlas_rf", 4),
]  # fmt: skip
STATUSES = [("succeeded", 80), ("failed", 12), ("cancelled", 5), ("running", 2), ("queued", 1)]
CANARY = "genai-temporal-worker@digitalocean.com"
COLUMNS = (
    "id", "benchmark", "model", "base_url", "status", "created_at", "started_at", "finished_at",
    "updated_at", "duration_ms", "epochs", "concurrency", "max_retries", "temperature",
    "reasoning_effort", "completion_timeout_ms", "config_json", "triggered_by_email",
    "is_canary", "full_suite", "disabled", "run_kind", "expected_questions",
    "total_evaluations", "completed_evaluations", "skipped_evaluations", "correct_evaluations",
    "completed_questions", "completion_percentage", "quality_score", "failure_reason",
    "upload_status", "last_event_seq",
)  # fmt: skip


def _weighted(rng: random.Random, table: list[tuple[str, int]]) -> str:
    return rng.choices([v for v, _ in table], weights=[w for _, w in table])[0]


def synthetic_row(
    rng: random.Random, index: int, now: datetime, *, span: timedelta
) -> dict[str, object]:
    """One run created within `span` before `now` (naive UTC times, as stored)."""
    benchmark = _weighted(rng, BENCHMARKS)
    status = _weighted(rng, STATUSES)
    created = (now - timedelta(seconds=rng.randint(0, int(span.total_seconds())))).replace(
        tzinfo=None, microsecond=0
    )
    started = created + timedelta(seconds=rng.randint(1, 30)) if status != "queued" else None
    final = status in {"succeeded", "failed", "cancelled"}
    duration_ms = rng.randint(30_000, 6 * 3600_000) if final else None
    finished = (started or created) + timedelta(milliseconds=duration_ms or 0) if final else None
    model = f"vendor-{rng.randint(0, 9)}/model-{rng.randint(0, 40)}"
    canary = rng.random() < 0.1
    total = rng.choice([198, 594, 150, 500])
    config = {
        "benchmark": benchmark, "model": model, "base_url": "https://inference.do-ai.run/v1",
        "epochs": 3, "concurrency": 3, "inference": {"temperature": 1.0, "maxRetries": 6},
    }  # fmt: skip
    return {
        "id": f"run-{index:06d}-{rng.getrandbits(32):08x}", "benchmark": benchmark,
        "model": model, "base_url": "https://inference.do-ai.run/v1", "status": status,
        "created_at": created, "started_at": started, "finished_at": finished,
        "updated_at": finished or started or created, "duration_ms": duration_ms, "epochs": 3,
        "concurrency": 3, "max_retries": 6, "temperature": 1.0, "reasoning_effort": "high",
        "completion_timeout_ms": 3_600_000, "config_json": json.dumps(config),
        "triggered_by_email": CANARY if canary else f"user{rng.randint(0, 60)}@digitalocean.com",
        "is_canary": int(canary), "full_suite": int(rng.random() < 0.6),
        "disabled": int(rng.random() < 0.03),
        "run_kind": "benchmark" if rng.random() < 0.97 else "gpqa_retry_arm",
        "expected_questions": total // 3, "total_evaluations": total,
        "completed_evaluations": total if final else total // 2, "skipped_evaluations": 0,
        "correct_evaluations": total // 2, "completed_questions": total // 6,
        "completion_percentage": 100 if final else 50,
        "quality_score": round(rng.uniform(0.2, 0.95), 8) if status == "succeeded" else None,
        "failure_reason": ("endpoint kept failing: " + "x" * 180) if status == "failed" else None,
        "upload_status": "complete" if final else "pending", "last_event_seq": index + 1,
    }  # fmt: skip


def synthetic_rows(
    count: int, *, seed: int = 20261130, now: datetime | None = None, span_days: int = 730
) -> list[dict[str, object]]:
    """`count` rows created over the last `span_days` days."""
    rng = random.Random(seed)
    moment = now or datetime.now(UTC)
    return [synthetic_row(rng, i, moment, span=timedelta(days=span_days)) for i in range(count)]


async def insert_rows(
    pool: asyncmy.Pool, rows: list[dict[str, object]], *, batch: int = 1000
) -> None:
    """Insert in multi-row batches, then set the projection position to the newest sequence
    (as if the projector had folded them) and refresh the table's statistics."""
    sql = f"INSERT INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"
    async with pool.acquire() as conn, conn.cursor() as cursor:
        for first in range(0, len(rows), batch):
            chunk = rows[first : first + batch]
            await cursor.executemany(sql, [tuple(r[c] for c in COLUMNS) for r in chunk])
            await conn.commit()
        newest = max((int(str(r["last_event_seq"])) for r in rows), default=0)
        await cursor.execute("UPDATE projection_position SET last_seq = %s", (newest,))
        await cursor.execute("ANALYZE TABLE runs")
        await cursor.fetchall()
        await conn.commit()
