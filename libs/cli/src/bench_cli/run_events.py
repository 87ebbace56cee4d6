"""`bench events RUN_ID [--follow]`: one run's events as JSON lines, where the `nats` CLI is
not installed (see docs/operations.md for the `nats` equivalents)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import TextIO

import nats.js.errors
from nats.js import JetStreamContext

from bench_cli.connection import CommandError, connect, nats_url
from bench_common.bus import run_history
from bench_common.envelope import STREAM_EVENTS, check_token, subject_for
from bench_common.lifecycle import on_signals


async def print_events(
    js: JetStreamContext, run_id: str, *, follow: bool, out: TextIO, idle_timeout: float = 1.0
) -> int:
    """Write `{seq, subject, event}` lines for every event of `run_id`; return how many.

    Raises:
        CommandError: BENCH_EVENTS does not exist yet.
    """
    count = 0
    try:
        async for seq, event in run_history(js, run_id, follow=follow, idle_timeout=idle_timeout):
            line = {
                "seq": seq,
                "subject": subject_for(type(event), run_id),
                "event": event.model_dump(mode="json"),
            }
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()
            count += 1
    except nats.js.errors.NotFoundError:
        raise CommandError(
            f"stream {STREAM_EVENTS} does not exist on this NATS server; start a service "
            "(e.g. `bench scheduler`) once to create it"
        ) from None
    return count


async def _main(run_id: str, *, follow: bool, url: str) -> int:
    nc = await connect(url)
    task = asyncio.ensure_future(
        print_events(nc.jetstream(), run_id, follow=follow, out=sys.stdout)
    )
    on_signals(task.cancel)
    try:
        count = await task
    except asyncio.CancelledError:
        return 0  # --follow ends with Ctrl-C
    finally:
        await nc.close()
    if count == 0:
        sys.stderr.write(f"bench events: no events for run {run_id} in {STREAM_EVENTS}\n")
        return 1
    return 0


def main(argv: list[str]) -> int:
    """Entry point of `bench events`."""
    parser = argparse.ArgumentParser(
        prog="bench events",
        description="Print a run's events from BENCH_EVENTS as JSON lines {seq, subject, event}.",
    )
    parser.add_argument("run_id", help="the run id printed by `bench submit`")
    parser.add_argument(
        "-f", "--follow", action="store_true", help="keep printing new events until Ctrl-C"
    )
    args = parser.parse_args(argv)
    try:
        run_id = check_token(args.run_id, "run id")
        return asyncio.run(_main(run_id, follow=args.follow, url=nats_url(os.environ)))
    except (CommandError, ValueError) as exc:
        sys.stderr.write(f"bench events: {exc}\n")
        return 2 if isinstance(exc, ValueError) else 1
