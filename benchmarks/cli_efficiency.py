"""Whole `bench run` runs against the fake model server on loopback; prints figures.

Scenarios (issue #2):
  A. 594 evaluations (198 x 3), concurrency 64, 0.5 s per response, 64 tokens: ideal 5.0 s.
  B. 4,096 evaluations, concurrency 512, 4 s per response, 128 tokens: ideal 32 s.

Streaming and the request log are on. The fake server runs in its own process so its CPU is
not counted. Measured: start-up (process start -> first request started), run phase (first
request started -> last request completed) vs ideal, CPU ms per evaluation of the bench
process, and its peak RSS.

Usage: uv run python benchmarks/cli_efficiency.py [A|B|all]
"""

from __future__ import annotations

import csv
import json
import math
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class Scenario:
    rows: int
    epochs: int
    concurrency: int
    delay: float
    tokens: int


SCENARIOS = {
    "A": Scenario(rows=198, epochs=3, concurrency=64, delay=0.5, tokens=64),
    "B": Scenario(rows=1024, epochs=4, concurrency=512, delay=4.0, tokens=128),
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int) -> None:
    for _ in range(200):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit("fake model server did not start")


def write_dataset(path: Path, rows: int) -> None:
    """Invented questions only (GPQA text must never be published)."""
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "Question",
                "Correct Answer",
                "Incorrect Answer 1",
                "Incorrect Answer 2",
                "Incorrect Answer 3",
                "Subdomain",
            ]
        )
        for i in range(rows):
            w.writerow(
                [
                    f"Synthetic question {i}: which number is {i}?",
                    str(i),
                    str(i + 1),
                    str(i + 2),
                    str(i + 3),
                    "Synthetic",
                ]
            )


def parse_ts(value: str) -> float:
    return datetime.fromisoformat(value).timestamp()


def run(name: str) -> None:
    sc = SCENARIOS[name]
    evaluations = sc.rows * sc.epochs
    ideal = math.ceil(evaluations / sc.concurrency) * sc.delay
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        dataset = work / "gpqa.csv"
        write_dataset(dataset, sc.rows)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench_runner.fake_model",
                "--port",
                str(port),
                "--delay",
                str(sc.delay),
                "--tokens",
                str(sc.tokens),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_port(port)
            env = {
                **os.environ,
                "OPENROUTER_API_KEY": "bench-key",
                "OPENROUTER_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "BENCH_RESULTS_DIR": str(work / "results"),
                "REQUEST_LOG_FILE": str(work / "requests.jsonl"),
            }
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            bench = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "bench_cli.main",
                    "run",
                    "--model",
                    "fake/model",
                    "--dataset-file",
                    str(dataset),
                    "--epochs",
                    str(sc.epochs),
                    "--concurrency",
                    str(sc.concurrency),
                    "--max-retries",
                    "0",
                ],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.time() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            server.terminate()
            server.wait()
        if bench.returncode != 0:
            print(bench.stderr[-2000:])
            raise SystemExit(f"bench run failed with exit code {bench.returncode}")
        summary = json.loads(bench.stdout)
        started: list[float] = []
        finished: list[float] = []
        for line in (work / "requests.jsonl").read_text().splitlines():
            rec = json.loads(line)
            if rec["event"] == "started":
                started.append(parse_ts(rec["started_at"]))
            elif rec["event"] == "completed":
                finished.append(parse_ts(rec["finished_at"]))
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        run_phase = max(finished) - min(started)
        print(
            json.dumps(
                {
                    "scenario": name,
                    "evaluations": summary["evaluations"],
                    "concurrency": sc.concurrency,
                    "ideal_s": ideal,
                    "run_phase_s": round(run_phase, 3),
                    "run_phase_vs_ideal": round(run_phase / ideal, 4),
                    "startup_to_first_request_s": round(min(started) - t0, 3),
                    "process_wall_s": round(wall, 3),
                    "cpu_ms_per_evaluation": round(1000 * cpu / evaluations, 2),
                    "peak_rss_mb": round(after.ru_maxrss / 1024, 1),
                    "status": summary["status"],
                },
                indent=2,
            )
        )


if __name__ == "__main__":
    choice = sys.argv[1] if len(sys.argv) > 1 else "A"
    for key in SCENARIOS if choice == "all" else [choice]:
        run(key)
