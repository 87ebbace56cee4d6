"""Throughput and CPU cost of the inference client alone, against the fake server.

The fake server runs in a child process (its CPU is not counted); this process only runs the
client: N streamed completions, C at a time (rolling), each taking D seconds and T tokens.
It prints wall time, the ideal (ceil(N / C) * D), efficiency (ideal / wall), CPU milliseconds
per response of this process, and its peak RSS.

    uv run python benchmarks/client_throughput.py --requests 594 --concurrency 64 \
        --delay 0.5 --tokens 64
    uv run python benchmarks/client_throughput.py --requests 2048 --concurrency 512 \
        --delay 4 --tokens 128

By default attempt records go to a JSONL file in a temporary directory (as in a CLI run);
`--no-request-log` measures without them.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import resource
import tempfile
import time
from pathlib import Path

from bench_common.run_config import InferenceOptions
from bench_runner.benchmarks.base import Endpoint
from bench_runner.fake_model import FakeModelProcess
from bench_runner.inference import (
    AttemptSink,
    CallContext,
    ChatModel,
    ChatRequest,
    JsonlAttemptSink,
    NullSink,
    create_client_session,
    make_chat_model,
)

QUESTION = (
    "Answer the following multiple choice question. The last line of your response should be "
    "of the following format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD."
    "\n\n" + "A reasonably long graduate-level question about chemistry and physics. " * 12 + "\n\n"
    "A) first option\nB) second option\nC) third option\nD) fourth option"
)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _drive(model: ChatModel, requests: int, concurrency: int) -> int:
    """Run `requests` calls with `concurrency` workers; return how many content chars came."""
    counter = itertools.count()
    received = 0

    async def worker() -> None:
        nonlocal received
        while (index := next(counter)) < requests:
            request = ChatRequest(
                messages=[
                    {"role": "system", "content": "You are a helpful assistant."},
                    {"role": "user", "content": f"{QUESTION}\n#{index}"},
                ],
                temperature=1.0,
            )
            result = await model.complete(request, call=CallContext(f"s-{index}", 1))
            received += len(result.content)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return received


async def measure(args: argparse.Namespace) -> dict[str, float | int]:
    """Start the server, warm up, run the measured batch; return the figures."""
    log_dir = tempfile.TemporaryDirectory()
    sink: AttemptSink = (
        NullSink() if args.no_request_log else JsonlAttemptSink(Path(log_dir.name) / "req.jsonl")
    )
    try:
        async with (
            FakeModelProcess(tokens=args.tokens, delay=args.delay) as server,
            create_client_session(args.concurrency) as session,
        ):
            model = make_chat_model(
                Endpoint(base_url=server.base_url, model="fake/model", api_key="sk-bench"),
                InferenceOptions(max_retries=0),
                session=session,
                session_id="bench-client-throughput",
                sink=sink,
            )
            await _drive(model, 1, 1)  # warm-up: imports, first connection
            cpu0, wall0 = _cpu_seconds(), time.perf_counter()
            await _drive(model, args.requests, args.concurrency)
            wall = time.perf_counter() - wall0
            cpu = _cpu_seconds() - cpu0
    finally:
        if isinstance(sink, JsonlAttemptSink):
            sink.close()
        log_dir.cleanup()
    ideal = math.ceil(args.requests / args.concurrency) * args.delay
    return {
        "requests": args.requests,
        "concurrency": args.concurrency,
        "delay_s": args.delay,
        "tokens": args.tokens,
        "request_log": not args.no_request_log,
        "wall_s": round(wall, 3),
        "ideal_s": round(ideal, 3),
        "efficiency": round(ideal / wall, 4) if wall else 0.0,
        "cpu_ms_per_response": round(cpu * 1000 / args.requests, 3),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> None:
    """Parse arguments, measure, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--requests", type=int, default=594)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per response")
    parser.add_argument("--tokens", type=int, default=64, help="content chunks per response")
    parser.add_argument("--no-request-log", action="store_true")
    figures = asyncio.run(measure(parser.parse_args()))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
