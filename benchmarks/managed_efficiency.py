"""The CLI efficiency scenario through the managed services vs `bench run`; prints figures.

Scenario A of `cli_efficiency.py`: 594 evaluations (198 invented rows x 3 epochs),
concurrency 64, 0.5 s per response, 64 streamed tokens; ideal run phase 5.0 s.

  * CLI: `bench run --dataset-file ...` as a child process (request log on, as in
    `cli_efficiency.py`).
  * Managed: a private nats-server, the fake model, `bench scheduler` and one `bench runner`,
    each its own process, started and ready beforehand (they are long-lived services); then
    `bench submit ... --wait` as a child process, which admits the run, follows it and prints
    the same summary.

Both use the same fake model process. Wall time is the child's, from spawn to exit (Python
start-up included on both sides). Runs alternate CLI / managed, `--repeat` times; the median
of each is compared (target: managed within 10% of the CLI). Also printed, per managed run:
where its time goes (from the events' timestamps) and the CPU seconds of each service process
(/proc/<pid>/stat) during the run.

Usage: uv run python benchmarks/managed_efficiency.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

# Benchmarks are scripts; the stack helper lives with the tests at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common.bus import last_event
from bench_common.events import (
    RequestAttemptCompleted,
    RequestAttemptStarted,
    RunAdmitted,
    RunFinished,
    RunRequested,
    RunStarted,
    SampleCompleted,
    SampleDispatched,
    SampleStarted,
)
from tests.support.processes import cpu_seconds
from tests.support.stack import API_KEY, ManagedStack

ROWS, EPOCHS, CONCURRENCY, DELAY_S, TOKENS = 198, 3, 64, 0.5, 64
EVALUATIONS = ROWS * EPOCHS
IDEAL_S = -(-EVALUATIONS // CONCURRENCY) * DELAY_S


@dataclass(frozen=True)
class Measured:
    """One child process: wall seconds, exit code, stdout."""

    wall_s: float
    code: int
    out: str
    err: str


def run_flags(base_url: str) -> list[str]:
    """The run flags shared by `bench run` and `bench submit`."""
    return [
        "--model", "fake/model", "--base-url", base_url, "--epochs", str(EPOCHS),
        "--concurrency", str(CONCURRENCY), "--max-retries", "0",
    ]  # fmt: skip


async def timed(argv: list[str], env: dict[str, str]) -> Measured:
    """Spawn, wait, and time a child process."""
    t0 = time.perf_counter()
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    out, err = await process.communicate()
    wall = time.perf_counter() - t0
    assert process.returncode is not None
    return Measured(wall, process.returncode, out.decode(), err.decode())


async def cli_run(stack: ManagedStack, work: Path, base_url: str) -> dict[str, float]:
    """One `bench run`: wall time, start-up to first request, run phase."""
    log = work / "requests.jsonl"
    log.unlink(missing_ok=True)
    env = {
        **os.environ, "OPENROUTER_API_KEY": API_KEY, "BENCH_RESULTS_DIR": str(work / "results"),
        "REQUEST_LOG_FILE": str(log),
    }  # fmt: skip
    argv = [sys.executable, "-m", "bench_cli.main", "run", "--dataset-file", str(stack.dataset)]
    t0 = time.time()
    measured = await timed([*argv, *run_flags(base_url)], env)
    if measured.code != 0:
        raise SystemExit(f"bench run failed ({measured.code}): {measured.err[-2000:]}")
    assert json.loads(measured.out)["status"] == "succeeded"
    started, finished = [], []
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record["event"] == "started":
            started.append(datetime.fromisoformat(record["started_at"]).timestamp())
        elif record["event"] == "completed":
            finished.append(datetime.fromisoformat(record["finished_at"]).timestamp())
    return {
        "wall_s": measured.wall_s,
        "startup_to_first_request_s": min(started) - t0,
        "run_phase_s": max(finished) - min(started),
    }


async def managed_run(stack: ManagedStack, base_url: str) -> dict[str, float]:
    """One `bench submit --wait`: wall time, its breakdown from the events, CPU per process."""
    assert stack.nats is not None and stack.nats.process is not None
    pids = {name: s.pid for name, s in stack.services.items()}
    pids["nats-server"] = stack.nats.process.pid
    cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    env = {**os.environ, "NATS_URL": stack.nats.url, "OPENROUTER_API_KEY": API_KEY}
    t0 = time.time()
    argv = [sys.executable, "-m", "bench_cli.main", "submit", *run_flags(base_url), "--wait"]
    measured = await timed(argv, env)
    if measured.code != 0:
        raise SystemExit(f"bench submit failed ({measured.code}): {measured.err[-2000:]}")
    cpu = {name: cpu_seconds(pid) - cpu_before[name] for name, pid in pids.items()}
    summary = json.loads(measured.out)
    assert summary["status"] == "succeeded" and summary["evaluations"] == EVALUATIONS
    run_id = summary["sessionId"]
    moments = {}
    for name, kind in (("requested", RunRequested), ("admitted", RunAdmitted),
                       ("started", RunStarted), ("finished", RunFinished)):  # fmt: skip
        event = await last_event(stack.js, kind, run_id)
        assert event is not None
        moments[name] = event.occurred_at.timestamp()
    samples = await stack.events_of(run_id, SampleStarted)
    first_sample = min(e.occurred_at.timestamp() for _, e in samples)
    return {
        "wall_s": measured.wall_s,
        "spawn_to_requested_s": moments["requested"] - t0,
        "requested_to_started_s": moments["started"] - moments["requested"],
        "started_to_first_sample_s": first_sample - moments["started"],
        "first_sample_to_finished_s": moments["finished"] - first_sample,
        "finished_to_exit_s": t0 + measured.wall_s - moments["finished"],
        **{f"cpu_s_{name}": seconds for name, seconds in cpu.items()},
        **await critical_path_ms(stack, run_id),
    }


def _quantiles(values: list[float]) -> tuple[float, float]:
    """(p50, p90) in milliseconds."""
    ordered = sorted(values)
    last = len(ordered) - 1
    return 1000 * ordered[last // 2], 1000 * ordered[int(0.9 * last)]


async def critical_path_ms(stack: ManagedStack, run_id: str) -> dict[str, float]:
    """p50/p90 (ms) of each step an evaluation's credit goes through, from the events'
    timestamps: scheduler dispatch -> runner starts it -> HTTP attempt starts -> attempt ends
    -> SampleCompleted published -> the scheduler dispatches the next item."""

    def by_key(events: list[tuple[int, Any]], at: Callable[[Any], datetime]) -> dict[Key, float]:
        return {_key(e): at(e).timestamp() for _, e in events}

    dispatched = by_key(await stack.events_of(run_id, SampleDispatched), lambda e: e.occurred_at)
    started = by_key(await stack.events_of(run_id, SampleStarted), lambda e: e.occurred_at)
    attempts = await stack.events_of(run_id, RequestAttemptStarted)
    sent = by_key(attempts, lambda e: e.record.started_at)
    ends = await stack.events_of(run_id, RequestAttemptCompleted)
    answered = by_key(ends, lambda e: e.record.finished_at)
    completed = by_key(await stack.events_of(run_id, SampleCompleted), lambda e: e.occurred_at)
    # Credits are handed out in order: the k-th completion frees the (k + concurrency)-th item.
    done, out = sorted(completed.values()), sorted(dispatched.values())
    steps = {
        "dispatch_to_runner_start": [started[k] - dispatched[k] for k in started],
        "runner_start_to_request": [sent[k] - started[k] for k in started],
        "request_duration": [answered[k] - sent[k] for k in started],
        "response_to_sample_completed": [completed[k] - answered[k] for k in started],
        "completed_to_next_dispatch": [
            out[k + CONCURRENCY] - done[k] for k in range(len(out) - CONCURRENCY)
        ],
    }
    figures: dict[str, float] = {}
    for name, values in steps.items():
        figures[f"{name}_p50_ms"], figures[f"{name}_p90_ms"] = _quantiles(values)
    return figures


Key = tuple[str, int]


def _key(event: Any) -> Key:
    record = getattr(event, "record", event)
    return (record.sample_id, record.epoch)


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    """Per key, the median over runs (rounded)."""
    return {key: round(statistics.median(r[key] for r in runs), 3) for key in runs[0]}


async def main(repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-managed-eff-") as tmp:
        work = Path(tmp)
        async with ManagedStack(
            workdir=work, runners=1, dataset_rows=ROWS, fake_delay_s=DELAY_S,
            fake_tokens=TOKENS, with_api=False, runner_env={},
        ) as stack:  # fmt: skip
            base_url = f"http://127.0.0.1:{stack.model_port}/v1"
            cli: list[dict[str, float]] = []
            managed: list[dict[str, float]] = []
            for _ in range(repeat):
                cli.append(await cli_run(stack, work, base_url))
                managed.append(await managed_run(stack, base_url))
    cli_median, managed_median = median_of(cli), median_of(managed)
    ratio = managed_median["wall_s"] / cli_median["wall_s"]
    report = {
        "scenario": f"{EVALUATIONS} evaluations, concurrency {CONCURRENCY}, "
        f"{DELAY_S} s per response, {TOKENS} tokens, streaming",
        "ideal_run_phase_s": IDEAL_S,
        "cpus": os.cpu_count(),
        "repeat": repeat,
        "cli_wall_s": [round(r["wall_s"], 3) for r in cli],
        "managed_wall_s": [round(r["wall_s"], 3) for r in managed],
        "cli_median": cli_median,
        "managed_median": managed_median,
        "managed_vs_cli_wall": round(ratio, 4),
        "within_10_percent": ratio <= 1.10,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    asyncio.run(main(parser.parse_args().repeat))
