"""Projection lag and projector throughput, against a private nats-server and MariaDB.

The projector runs as the real service process (`python -m bench_api`). Events are those of
managed runs (`tests.support.projection_events.synthetic_run`: per evaluation
SampleDispatched, SampleStarted, the attempts, SampleCompleted; plus each run's lifecycle).

  1. Lag: publish at RATE events/s for SECONDS; a separate MySQL connection polls the stored
     position every 2 ms (the position commits with the rows), so lag = first poll that sees
     an event's sequence - the moment its publish started. Prints p50, p90, p99, max.
  2. Throughput: stop the projector, publish a backlog of BACKLOG events, start it again and
     time it from its first commit to the last event (start-up excluded).

Usage: uv run python benchmarks/projection_lag.py [--rate 1000] [--seconds 10] [--backlog 20000]
       [--samples-per-run 198]
Environment: NATS_URL (else a private nats-server is started), BENCH_TEST_MYSQL_HOST/PORT/
USER/PASSWORD (default the local MariaDB, root, empty password).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import asyncmy
import nats
from nats.js import JetStreamContext

# Benchmarks are scripts; the test helpers live with the tests at the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_common.bus import ensure_streams, publish
from bench_common.envelope import Event
from tests.support.projection_events import synthetic_run
from tests.support.services import free_port, mysql_base, private_nats
from tests.support.stack import API_EXTRA_ENV

SAMPLES_PER_RUN = [198]
"""Evaluations per synthetic run (GPQA Diamond's 198 by default; `--samples-per-run`)."""


def event_stream() -> Iterator[Event]:
    """Runs one after another, for as long as asked."""
    while True:
        yield from synthetic_run(
            f"lag-{secrets.token_hex(4)}", samples=SAMPLES_PER_RUN[0], epochs=1
        )


@contextmanager
def nats_url() -> Iterator[str]:
    if os.environ.get("NATS_URL"):
        yield os.environ["NATS_URL"]
        return
    with private_nats() as server:
        yield server.url


def mysql_env() -> dict[str, str]:
    base = mysql_base()
    return {
        "MYSQL_HOST": base.host, "MYSQL_PORT": str(base.port), "MYSQL_USER": base.user,
        "MYSQL_PASSWORD": base.password, "MYSQL_SSL_MODE": "disabled",
    }  # fmt: skip


async def mysql_connect(env: dict[str, str], database: str | None = None) -> asyncmy.Connection:
    connection: asyncmy.Connection = await asyncmy.connect(
        host=env["MYSQL_HOST"], port=int(env["MYSQL_PORT"]), user=env["MYSQL_USER"],
        password=env["MYSQL_PASSWORD"], database=database, autocommit=True,
    )  # fmt: skip
    return connection


class Projector:
    """The api service process."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        # a file, not a pipe: nobody reads the api's output while it runs
        self.output = tempfile.TemporaryFile()  # noqa: SIM115 - closed by stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench_api"],
            env=self.env,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )

    def check_alive(self) -> None:
        """Stop the benchmark with the api's own words when it exited (bad settings...)."""
        if self.process is not None and self.process.poll() is not None:
            self.output.seek(0)
            said = self.output.read().decode(errors="replace")[-2000:]
            raise SystemExit(f"the api exited with code {self.process.returncode}: {said}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(15)
            self.process = None
            self.output.close()


class PositionWatch:
    """Polls the stored position; records when each new position became visible."""

    def __init__(self, connection: asyncmy.Connection) -> None:
        self.connection = connection
        self.seen: list[tuple[float, int]] = []
        self.position = 0

    async def run(self, stop: asyncio.Event) -> None:
        async with self.connection.cursor() as cursor:
            while not stop.is_set():
                await cursor.execute("SELECT last_seq FROM projection_position")
                row = await cursor.fetchone()
                now = time.perf_counter()
                if row is not None and int(row[0]) > self.position:
                    self.position = int(row[0])
                    self.seen.append((now, self.position))
                await asyncio.sleep(0.002)

    async def until(self, seq: int, timeout: float = 300.0) -> None:
        deadline = time.perf_counter() + timeout
        while self.position < seq:
            if time.perf_counter() > deadline:
                raise SystemExit(f"projector stuck at {self.position} < {seq}")
            await asyncio.sleep(0.01)

    def visible_at(self, seq: int) -> float:
        return next(t for t, position in self.seen if position >= seq)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def measure_lag(
    js: JetStreamContext, watch: PositionWatch, events: Iterator[Event], rate: int, seconds: float
) -> dict[str, float]:
    """Publish at `rate` events/s in 10 ms ticks; lag per event in ms."""
    published: list[tuple[int, float]] = []
    per_tick = max(1, rate // 100)
    start = time.perf_counter()
    for tick in range(int(seconds * 100)):
        await asyncio.sleep(max(0.0, start + tick * 0.01 - time.perf_counter()))
        batch = [next(events) for _ in range(per_tick)]
        sent = time.perf_counter()
        seqs = await asyncio.gather(*(publish(js, e) for e in batch))
        published += [(seq, sent) for seq in seqs]
    achieved = len(published) / (time.perf_counter() - start)
    await watch.until(max(s for s, _ in published))
    lags = [(watch.visible_at(seq) - sent) * 1000 for seq, sent in published]
    return {
        "events": len(published),
        "rate_achieved": round(achieved),
        **{f"p{int(q * 100)}_ms": round(percentile(lags, q), 1) for q in (0.5, 0.9, 0.99)},
        "max_ms": round(max(lags), 1),
    }


async def measure_throughput(
    js: JetStreamContext,
    watch: PositionWatch,
    projector: Projector,
    events: Iterator[Event],
    n: int,
) -> dict[str, float]:
    """Backlog of `n` events, then time the projector from its first commit to the end."""
    projector.stop()
    backlog = [next(events) for _ in range(n)]
    last = 0
    for i in range(0, n, 500):
        last = max(await asyncio.gather(*(publish(js, e) for e in backlog[i : i + 500])))
    before = watch.position
    projector.start()
    await watch.until(before + 1)
    first_time, first_pos = next((t, p) for t, p in watch.seen if p > before)
    await watch.until(last)
    elapsed = watch.visible_at(last) - first_time
    return {
        "backlog": n,
        "seconds": round(elapsed, 2),
        "events_per_s": round((last - first_pos) / elapsed),
    }


async def main(rate: int, seconds: float, backlog: int) -> None:
    env = mysql_env()
    database = f"bench_lag_{secrets.token_hex(4)}"
    admin = await mysql_connect(env)
    async with admin.cursor() as cursor:
        await cursor.execute(f"CREATE DATABASE {database}")
    with nats_url() as url:
        nc = await nats.connect(url)
        js = nc.jetstream()
        await ensure_streams(js)
        service_env = {
            **os.environ, **env, **API_EXTRA_ENV, "MYSQL_DATABASE": database, "NATS_URL": url,
        }  # fmt: skip
        service_env["BENCH_API_PORT"] = str(free_port())
        projector = Projector(service_env)
        projector.start()
        stop = asyncio.Event()
        watch = PositionWatch(await mysql_connect(env, database))
        watching = None
        try:
            while True:  # the service creates the tables at start
                projector.check_alive()
                try:
                    watching = asyncio.create_task(watch.run(stop))
                    await asyncio.sleep(0.5)
                    if watching.done():
                        watching.result()
                    break
                except asyncmy.errors.ProgrammingError:
                    await asyncio.sleep(0.5)
            events = event_stream()
            lag = await measure_lag(js, watch, events, rate, seconds)
            print(json.dumps({"lag": lag}), flush=True)
            throughput = await measure_throughput(js, watch, projector, events, backlog)
            print(json.dumps({"throughput": throughput}), flush=True)
        finally:
            stop.set()
            if watching is not None:
                await asyncio.gather(watching, return_exceptions=True)
            projector.stop()
            await nc.close()
            async with admin.cursor() as cursor:
                await cursor.execute(f"DROP DATABASE IF EXISTS {database}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--backlog", type=int, default=20_000)
    parser.add_argument("--samples-per-run", type=int, default=198)
    args = parser.parse_args()
    SAMPLES_PER_RUN[0] = args.samples_per_run
    asyncio.run(main(args.rate, args.seconds, args.backlog))
