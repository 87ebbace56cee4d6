"""Throughput of one vs two runner processes when the runners are CPU-bound; prints figures.

One run of 4,096 evaluations (1,024 invented rows x 4 epochs) at concurrency 512 against the
fake model answering in 0.25 s with 128 streamed chunks: the ideal, with unlimited CPU, is
8 waves x 0.25 s = 2 s, so the run is bound by how fast the services can process responses.
For N = 1 and N = 2 runners a fresh stack is started (private nats-server, fake model,
scheduler, N runners; no api), a small warm-up run opens the dataset on every runner, then the
measured runs are submitted through the scheduler's admission path.

Printed per N: evaluations/s over the run phase (first `SampleStarted` to `RunFinished`),
the CPU seconds, cores and CPU milliseconds per evaluation of each process during it
(/proc/<pid>/stat), how busy the whole machine was (/proc/stat) and how much of that was other
processes, and the throughput ceiling of this machine (cores / service CPU per evaluation);
then the ratio two runners / one runner (target >= 1.6).

Usage: uv run python benchmarks/two_runners.py [--repeat 2] [--rows 1024] [--epochs 4]
       [--concurrency 512] [--delay 0.25] [--tokens 128]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

# Benchmarks are scripts; the stack helper lives with the tests at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common.events import SampleStarted
from tests.support.processes import cpu_seconds
from tests.support.stack import ManagedStack


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, from /proc/stat."""
    fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def self_cpu() -> float:
    """CPU seconds of this benchmark process (it only submits and polls)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def measured_run(stack: ManagedStack, args: argparse.Namespace) -> dict[str, object]:
    """Submit one run and measure it."""
    assert stack.nats is not None and stack.nats.process is not None
    pids = {name: s.pid for name, s in stack.services.items()}
    pids["nats-server"] = stack.nats.process.pid
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    busy0, total0, mine0, t0 = *machine_cpu(), self_cpu(), time.monotonic()
    config = stack.run_config(epochs=args.epochs, concurrency=args.concurrency)
    run_id = await stack.submit(config)
    finished = await stack.wait_finished(run_id, timeout=600)
    wall = time.monotonic() - t0
    busy1, total1, mine1 = *machine_cpu(), self_cpu()
    cpu = {name: cpu_seconds(pid) - before[name] for name, pid in pids.items()}
    cpu["benchmark (this process)"] = mine1 - mine0
    assert finished.status == "succeeded", finished.failure_reason
    evaluations = finished.counts.completed + finished.counts.skipped
    first = min(e.occurred_at for _, e in await stack.events_of(run_id, SampleStarted))
    run_phase = (finished.occurred_at - first).total_seconds()
    cores = os.cpu_count() or 1
    busy_cores = (busy1 - busy0) / ((total1 - total0) or 1) * cores
    ours = sum(cpu.values()) / wall
    return {
        "evaluations": evaluations,
        "run_phase_s": round(run_phase, 3),
        "evaluations_per_s": round(evaluations / run_phase, 1),
        "cpu_s": {name: round(seconds, 2) for name, seconds in cpu.items()},
        "cores_used": {name: round(seconds / wall, 2) for name, seconds in cpu.items()},
        "cpu_ms_per_evaluation": {
            name: round(1000 * seconds / evaluations, 2) for name, seconds in cpu.items()
        },
        # If this machine ran nothing else: its cores divided by the services' CPU per
        # evaluation (runners, scheduler, NATS and the fake model together).
        "machine_ceiling_evaluations_per_s": round(
            cores * evaluations / sum(cpu[name] for name in pids), 1
        ),
        "machine_cores": cores,
        "machine_cores_busy": round(busy_cores, 2),
        # Whatever else ran on the machine meanwhile (other users' jobs, the kernel).
        "other_cores_busy": round(max(0.0, busy_cores - ours), 2),
    }


async def measure(runners: int, args: argparse.Namespace) -> list[dict[str, object]]:
    """A fresh stack with `runners` runners: warm up, then `args.repeat` measured runs."""
    with tempfile.TemporaryDirectory(prefix="bench-two-runners-") as tmp:
        async with ManagedStack(
            workdir=Path(tmp), runners=runners, dataset_rows=args.rows, fake_delay_s=args.delay,
            fake_tokens=args.tokens, with_api=False, runner_env={},
        ) as stack:  # fmt: skip
            warm_up = stack.run_config(epochs=1, concurrency=64, limit=64)
            await stack.wait_finished(await stack.submit(warm_up), timeout=120)
            return [await measured_run(stack, args) for _ in range(args.repeat)]


async def main(args: argparse.Namespace) -> None:
    results = {n: await measure(n, args) for n in (1, 2)}
    rate = {
        n: statistics.median(float(str(r["evaluations_per_s"])) for r in runs)
        for n, runs in results.items()
    }
    print(
        json.dumps(
            {
                "scenario": f"{args.rows * args.epochs} evaluations, concurrency "
                f"{args.concurrency}, {args.delay} s per response, {args.tokens} chunks, streaming",
                "ideal_run_phase_s": -(-args.rows * args.epochs // args.concurrency) * args.delay,
                "one_runner": results[1],
                "two_runners": results[2],
                "median_evaluations_per_s": rate,
                "two_vs_one": round(rate[2] / rate[1], 3),
                "target_met": rate[2] / rate[1] >= 1.6,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=512)
    parser.add_argument("--delay", type=float, default=0.25)
    parser.add_argument("--tokens", type=int, default=128)
    asyncio.run(main(parser.parse_args()))
