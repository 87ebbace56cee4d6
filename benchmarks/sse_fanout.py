"""Live-update fan-out: 50 dashboards' worth of SSE clients on a 594-evaluation run.

The whole managed stack runs as real processes (private nats-server, MariaDB database, fake
model, scheduler, two runners, api). Each "browser" is two httpx streams, as the dashboard
opens them: `GET /runs/events` (every run) and `GET /runs/{id}/events` (the run, from its
first event, with the streaming deltas of BENCH_LIVE). Browsers are spread over WORKERS client
processes (`sse_clients.py`), as real browsers would not share one Python event loop. The
run: 198 invented GPQA rows x 3 epochs = 594 evaluations, concurrency 64, the fake model
streaming each response over DELAY seconds.

Measured:
  - publish-to-client latency: client receive time - the time JetStream stored the message
    (the moment its publisher's publish completed), over every frame received live (the
    history replayed on connect is excluded); p50/p90/p95/p99/max, and the worst client's p99.
    Both times are wall-clock (CLOCK_REALTIME) readings on this one machine: the stored time
    is nats-server's, from the message's metadata; the receive time is `time.time()` in the
    client process as soon as a read hands it the bytes that complete the frame (before any
    parsing). The clients only keep the bytes while the run goes and parse them once it is
    over: parsing 4,000 frames a second in the clients would compete for the machine's two
    cores with the stack and delay the clients' next reads, and the latency would include
    it (it did: runs alternating both clients against the same server measured a p50 15-30
    ms and a p99 20-100 ms higher with parsing on the fly);
  - the same from the event's `occurred_at` (set by the publisher before publishing);
  - a reference: JetStream consumers in the (otherwise idle) driver process reading the run
    straight from NATS, i.e. the floor this machine allows while the stack works;
  - completeness: every client's per-run stream holds exactly the run's messages of both
    streams (read back from NATS), none missing, none twice, and no stream ended early;
    every all-runs stream saw all 594 results and the run's final state;
  - the api process's CPU (user+system from /proc) over the run (from the submission to the
    last trailing delta), in cores; with
    `--baseline`, the same run with no client first, to show what serving the streams adds.

Targets (issue 5): p99 <= 250 ms, no client behind or missing anything, api < 0.5 core.

With `--raw-too` the same run is then read by bare-socket clients (asyncio streams and a
minimal chunked decoder): on a small machine the httpx clients' own CPU competes with the
stack, and this shows what the server delivers when the measuring side costs little.

Usage: uv run python benchmarks/sse_fanout.py [--clients 50] [--workers 2] [--delay 2.0]
       [--tokens 64] [--baseline] [--raw-too]
Needs nats-server and a MariaDB on 127.0.0.1:3306 (BENCH_TEST_MYSQL_* to change).
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
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common.envelope import STREAM_EVENTS, STREAM_LIVE, run_filter
from bench_common.ids import new_id
from tests.support.processes import cpu_seconds
from tests.support.stack import API_EXTRA_ENV, ManagedStack

TOKEN = API_EXTRA_ENV["BENCH_API_TOKEN"]
CLIENTS = Path(__file__).with_name("sse_clients.py")
ROWS, EPOCHS, CONCURRENCY = 198, 3, 64
STREAM_CODE = {STREAM_EVENTS: "E", STREAM_LIVE: "L"}


# --- driver ---------------------------------------------------------------------------------


async def truth(stack: ManagedStack, run_id: str) -> dict[tuple[str, int], float]:
    """Every message of the run in both streams, from NATS, with the time JetStream stored it."""
    found: dict[tuple[str, int], float] = {}
    for stream in (STREAM_EVENTS, STREAM_LIVE):
        sub = await stack.js.subscribe(
            run_filter(run_id, stream), ordered_consumer=True, stream=stream
        )
        try:
            while True:
                try:
                    msg = await sub.next_msg(timeout=2.0)
                except TimeoutError:
                    break
                key = (STREAM_CODE[stream], msg.metadata.sequence.stream)
                found[key] = msg.metadata.timestamp.timestamp()
                if msg.metadata.num_pending == 0:
                    break
        finally:
            await sub.unsubscribe()
    return found


async def direct_consumers(stack: ManagedStack, run_id: str) -> list[tuple[list[float], Any]]:
    """The reference: JetStream consumers in this (otherwise idle) process reading the run's
    subjects of both streams straight from NATS, as the api's feeds do. What they measure is
    the floor the machine allows; the api's figures above it are the cost of serving SSE."""
    found: list[tuple[list[float], Any]] = []
    for stream in (STREAM_EVENTS, STREAM_LIVE):
        lags: list[float] = []

        async def on_message(msg: Any, lags: list[float] = lags) -> None:
            lags.append((time.time() - msg.metadata.timestamp.timestamp()) * 1000)

        sub = await stack.js.subscribe(
            run_filter(run_id, stream), stream=stream, ordered_consumer=True, cb=on_message
        )
        found.append((lags, sub))
    return found


def mean_frames(streams: list[dict[str, Any]]) -> float:
    return statistics.mean(len(s["frames"]) for s in streams) if streams else 0.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))]


def spread(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(pct(values, 0.5), 1), "p90": round(pct(values, 0.9), 1),
        "p95": round(pct(values, 0.95), 1), "p99": round(pct(values, 0.99), 1),
        "max": round(max(values, default=0.0), 1),
    }  # fmt: skip


async def start_workers(stack: ManagedStack, clients: int, workers: int, *, raw: bool) -> list[Any]:
    procs = []
    for i in range(workers):
        share = clients // workers + (1 if i < clients % workers else 0)
        if share:
            argv = [str(CLIENTS), "--port", str(stack.api_port), "--clients", str(share)]
            argv += ["--raw"] if raw else []
            pipe = asyncio.subprocess.PIPE
            proc = await asyncio.create_subprocess_exec(
                sys.executable, *argv, stdin=pipe, stdout=pipe, limit=256 * 1024 * 1024,
                env={**os.environ, "BENCH_SSE_TOKEN": TOKEN},
            )  # fmt: skip
            procs.append(proc)
    for proc in procs:
        assert proc.stdout is not None
        line = await asyncio.wait_for(proc.stdout.readline(), 60)
        assert line.strip() == b"ready", line
    return procs


def check(streams: list[dict[str, Any]], stored: dict[tuple[str, int], float]) -> list[str]:
    problems = []
    expected = set(stored)
    for i, s in enumerate(streams):
        got = [(code, seq) for code, seq, _, _ in s["frames"]]
        if s["ended_early"]:
            problems.append(f"{s['kind']} stream {i} ended early")
        if len(got) != len(set(got)):
            problems.append(f"{s['kind']} stream {i}: {len(got) - len(set(got))} duplicates")
        if s["kind"] == "run":
            missing = expected - set(got)
            if missing:
                problems.append(f"run stream {i}: {len(missing)} of {len(expected)} missing")
        else:
            state = s["last_state"]
            done = state.get("completedEvaluations", 0) + state.get("skippedEvaluations", 0)
            if s["results"] != ROWS * EPOCHS or done != ROWS * EPOCHS:
                problems.append(f"runs stream {i}: {s['results']} results, state {done}")
    return problems


async def measure_run(
    stack: ManagedStack, clients: int, workers: int, *, raw: bool = False
) -> dict[str, Any]:
    """Submit the 594-evaluation run with `clients` browsers watching; the figures."""
    api_pid = stack.service("api").pid
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    procs = await start_workers(stack, clients, workers, raw=raw) if clients else []
    try:
        return await _measure(stack, clients, procs, api_pid, children0)
    finally:
        for proc in procs:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()


async def _measure(
    stack: ManagedStack, clients: int, procs: list[Any], api_pid: int, children0: Any
) -> dict[str, Any]:
    cpu0, wall0 = cpu_seconds(api_pid), time.monotonic()
    run_id = new_id()
    direct = await direct_consumers(stack, run_id)
    await stack.submit(stack.run_config(epochs=EPOCHS, concurrency=CONCURRENCY), run_id=run_id)
    for proc in procs:
        proc.stdin.write(f"{run_id}\n".encode())
        await proc.stdin.drain()
    finished = await stack.wait_finished(run_id, timeout=600)
    await asyncio.sleep(1.0)
    direct_ms = [lag for lags, _ in direct for lag in lags]
    for _, sub in direct:
        await sub.unsubscribe()
    # The api's CPU over the run it served (submit to the last trailing delta), not over the
    # clients' reporting afterwards, when it has nothing to do.
    cpu1, wall1 = cpu_seconds(api_pid), time.monotonic()
    run_wall = wall1 - wall0
    streams: list[dict[str, Any]] = []
    for proc in procs:
        proc.stdin.write(b"stop\n")
        await proc.stdin.drain()
    for proc in procs:
        out = await asyncio.wait_for(proc.stdout.readline(), 120)
        streams += json.loads(out)
        await proc.wait()
    children1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    client_cpu = children1.ru_utime + children1.ru_stime - children0.ru_utime - children0.ru_stime
    stored = await truth(stack, run_id) if clients else {}
    published = [
        (received - stored[(code, seq)]) * 1000
        for s in streams for code, seq, received, _ in s["frames"]
        if received > 0 and (code, seq) in stored
    ]  # fmt: skip
    occurred = [(r - at) * 1000 for s in streams for _, _, r, at in s["frames"] if r > 0]
    per_client_p99 = [
        pct([(r - stored[c, q]) * 1000 for c, q, r, _ in s["frames"] if r > 0 and (c, q) in stored],
            0.99)
        for s in streams
    ]  # fmt: skip
    problems = check(streams, stored)
    run_streams = [s for s in streams if s["kind"] == "run"]
    all_streams = [s for s in streams if s["kind"] == "runs"]
    return {
        "clients": clients,
        "status": finished.status,
        "run_seconds": round(run_wall, 1),
        "api_cpu_seconds": round(cpu1 - cpu0, 2),
        "api_cores": round((cpu1 - cpu0) / (wall1 - wall0), 3),
        "client_processes_cpu_seconds": round(client_cpu, 2),
        "messages_of_run": len(stored),
        "frames_per_run_stream": mean_frames(run_streams),
        "frames_per_runs_stream": mean_frames(all_streams),
        "live_frames_measured": len(published),
        "publish_to_client_ms": spread(published),
        "reference_nats_consumer_ms": spread(direct_ms),
        "event_to_client_ms": spread(occurred),
        "worst_client_p99_ms": round(max(per_client_p99, default=0.0), 1),
        "problem_count": len(problems),
        "problems": problems[:20],
    }  # fmt: skip


async def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="browsers (2 streams each)")
    parser.add_argument("--workers", type=int, default=2, help="client processes")
    parser.add_argument("--delay", type=float, default=2.0, help="seconds per fake response")
    parser.add_argument("--tokens", type=int, default=64, help="content chunks per response")
    parser.add_argument("--baseline", action="store_true", help="first the same run unwatched")
    parser.add_argument(
        "--raw-too",
        action="store_true",
        help="then the same run read by bare-socket clients (the server without httpx's cost)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sse-fanout-") as tmp:
        stack = ManagedStack(workdir=Path(tmp), runners=2, dataset_rows=ROWS,
                             fake_delay_s=args.delay, fake_tokens=args.tokens)  # fmt: skip
        async with stack:
            report: dict[str, Any] = {"delay_s": args.delay, "tokens": args.tokens,
                                      "workers": args.workers}  # fmt: skip
            if args.baseline:
                report["baseline"] = await measure_run(stack, 0, 0)
            report["watched"] = watched = await measure_run(stack, args.clients, args.workers)
            if args.raw_too:
                report["watched_by_bare_sockets"] = await measure_run(
                    stack, args.clients, args.workers, raw=True
                )
    print(json.dumps(report, indent=2))
    ok = (
        watched["publish_to_client_ms"]["p99"] <= 250
        and watched["problem_count"] == 0
        and watched["api_cores"] < 0.5
    )
    print("targets met" if ok else "targets NOT met", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
