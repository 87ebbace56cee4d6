"""Part 2 of `api_queries.py`: the summary and the GPQA report of one large GPQA run, timed
through the REST app (httpx over ASGI) with the real adapters.

The run is finished but not archived, so the summary is built from the projected
`evaluations` rows and the GPQA report from the run's `SampleCompleted` events in NATS (it
needs prompts and responses, which MySQL does not hold). Each is timed cold (built) and warm
(the finished run's rendered report, cached by the api).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import asyncmy
import httpx
import nats
from nats.js import JetStreamContext
from pydantic import SecretStr

from bench_api.adapters.run_events import NatsRunEvents
from bench_api.adapters.run_queries import MysqlRunQueries
from bench_api.app import create_app
from bench_api.auth import AccessPolicy
from bench_api.context import ApiContext
from bench_api.projector import ProjectorStatus
from bench_common.bus import ensure_streams
from bench_common.envelope import STREAM_EVENTS, subject_for
from bench_common.evaluation import EvaluationRecord
from bench_common.events import SampleCompleted
from bench_common.usage import Usage
from tests.support.run_rows import insert_rows, synthetic_rows
from tests.support.services import private_nats

TOKEN = "bench-token"
RUN_ID = "report-run"
LETTERS = "ABCD"


def evaluation(i: int, epochs: int, rng: random.Random, *, chars: int) -> EvaluationRecord:
    """A GPQA-shaped evaluation with a prompt, a response and exposed reasoning."""
    sample, epoch = divmod(i, epochs)
    prompt = (
        f"Question {sample}: "
        + "which option is right? " * 40
        + "\n\n"
        + "\n".join(f"{letter}) option {letter} of question {sample}" for letter in LETTERS)
    )
    roll = rng.random()
    score: Literal["C", "I", "S"] = "C" if roll < 0.6 else "I" if roll < 0.97 else "S"
    answer = rng.choice(LETTERS) if score != "S" else None
    response = "Let me think. " * (chars // 14) + f"\nAnswer: {answer or ''}"
    return EvaluationRecord(
        sample_id=f"gpqa_diamond-{sample}", sample_index=sample, epoch=epoch,
        score=score,
        answer=answer, target="A", input=prompt,
        explanation=f"Extracted '{answer}' from response, target was 'A'",
        messages=[
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": prompt},
            {"role": "assistant", "content": response, "reasoning": "Hmm. " * (chars // 2 // 5)},
        ],
        metadata={"subdomain": rng.choice(["Physics", "Chemistry", "Biology"])},
        usage=Usage(input_tokens=400, output_tokens=800, total_tokens=1200, cost=0.001),
        latency_ms=rng.randint(2_000, 400_000),
    )  # fmt: skip


async def _insert_evaluations(pool: asyncmy.Pool, records: list[EvaluationRecord]) -> None:
    columns = (
        "run_id, sample_id, epoch, sample_index, score, answer, target, explanation, "
        "latency_ms, input_tokens, output_tokens, total_tokens, cost, metadata_json, "
        "completed_at, event_seq"
    )
    sql = f"INSERT INTO evaluations ({columns}) VALUES ({', '.join(['%s'] * 16)})"
    now = datetime.now(UTC).replace(tzinfo=None)
    values = [
        (RUN_ID, r.sample_id, r.epoch, r.sample_index, r.score, r.answer, r.target,
         r.explanation, r.latency_ms, r.usage.input_tokens, r.usage.output_tokens,
         r.usage.total_tokens, r.usage.cost, json.dumps(r.metadata), now, i + 1)
        for i, r in enumerate(records)
    ]  # fmt: skip
    async with pool.acquire() as conn, conn.cursor() as cursor:
        for first in range(0, len(values), 1000):
            await cursor.executemany(sql, values[first : first + 1000])
            await conn.commit()


@asynccontextmanager
async def _client(reads: asyncmy.Pool, js: JetStreamContext) -> AsyncIterator[httpx.AsyncClient]:
    """A client of a new REST app over the real run store and event stream."""
    context = ApiContext(
        access=AccessPolicy(SecretStr(TOKEN), SecretStr("s"), ("example.com",)),
        store=MysqlRunQueries(reads), events=NatsRunEvents(js),
        admission=None, links=None, fetcher=None,  # type: ignore[arg-type]
    )  # fmt: skip
    app = create_app(projector=ProjectorStatus(ready=True), context=context)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        yield client


async def _sql(pool: asyncmy.Pool, statement: str, *args: object) -> None:
    async with pool.acquire() as conn, conn.cursor() as cursor:
        await cursor.execute(statement, args)
        await conn.commit()


async def _timed_get(client: httpx.AsyncClient, path: str) -> tuple[float, int]:
    start = time.perf_counter()
    response = await client.get(path, headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200, response.text[:300]
    return (time.perf_counter() - start) * 1000, len(response.content)


async def measure_reports(
    pool: asyncmy.Pool, reads: asyncmy.Pool, *, evaluations: int, chars: int = 1500
) -> dict[str, Any]:
    """Cold and warm milliseconds of `/summary` and `/gpqa-report` for one large run."""
    rng = random.Random(5)
    epochs = 10
    records = [evaluation(i, epochs, rng, chars=chars) for i in range(evaluations)]
    row = synthetic_rows(1, seed=3, span_days=0)[0]
    created = (datetime.now(UTC) - timedelta(hours=1)).replace(tzinfo=None)
    row.update(id=RUN_ID, benchmark="gpqa_diamond", status="succeeded", run_kind="benchmark",
               upload_status="pending",
               last_event_seq=10**9, created_at=created)  # fmt: skip
    await insert_rows(pool, [row])
    await _insert_evaluations(pool, records)
    with private_nats() as server:
        nc = await nats.connect(server.url)
        js = nc.jetstream(timeout=30)
        await ensure_streams(js)
        subject = subject_for(SampleCompleted, RUN_ID)
        event_bytes = 0
        for record in records:
            body = SampleCompleted(run_id=RUN_ID, record=record).model_dump_json().encode()
            event_bytes += len(body)
            await js.publish(subject, body, stream=STREAM_EVENTS)
        results: dict[str, Any] = {
            "evaluations": evaluations,
            "average_event_bytes": event_bytes // evaluations,
        }
        async with _client(reads, js) as client:  # a fresh api: nothing cached
            for name in ("summary", "gpqa-report"):
                cold, size = await _timed_get(client, f"/runs/{RUN_ID}/{name}")
                warm = min(
                    [(await _timed_get(client, f"/runs/{RUN_ID}/{name}"))[0] for _ in range(5)]
                )
                results[name] = {
                    "cold_ms": round(cold, 1),
                    "warm_ms": round(warm, 1),
                    "bytes": size,
                }
                print(f"  {name:12s} {json.dumps(results[name])}", flush=True)
        # A run still running: nothing rendered is kept, each refresh rebuilds the report
        # from the records read before plus the new events.
        await _sql(pool, "UPDATE runs SET status = 'running' WHERE id = %s", RUN_ID)
        async with _client(reads, js) as client:
            first, _ = await _timed_get(client, f"/runs/{RUN_ID}/gpqa-report")
            refresh = min(
                [(await _timed_get(client, f"/runs/{RUN_ID}/gpqa-report"))[0] for _ in range(3)]
            )
        running = {"first_ms": round(first, 1), "refresh_ms": round(refresh, 1)}
        results["gpqa-report-running"] = running
        print(f"  {'running':12s} {json.dumps(results['gpqa-report-running'])}", flush=True)
        await nc.close()
    return results
