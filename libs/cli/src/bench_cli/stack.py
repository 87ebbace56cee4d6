"""`bench stack up [--runners N]`: every service as a local child process, in the foreground.

Each child is `python -m bench_cli.main <service>` with this process's environment (NATS_URL,
MYSQL_*, SPACES_* ...), in its own process group so Ctrl-C reaches only the stack, which then
stops the children in order. Output lines are prefixed with the child's name. Services whose
command does not exist in this build (see `bench_cli.main.COMMANDS`) are skipped with a note.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TextIO

from bench_common.lifecycle import stop_on_signals

# service command -> how many to start ("runner" is scaled by --runners)
SERVICES: tuple[str, ...] = ("scheduler", "runner", "api", "archiver", "sandbox")
STOP_GRACE_S = 10.0


@dataclass(frozen=True)
class ServiceProcess:
    """One child to start: its display name, argv and extra environment."""

    name: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)


def plan_stack(
    commands: Mapping[str, object], *, runners: int, python: str = sys.executable
) -> tuple[list[ServiceProcess], list[str]]:
    """The children to start, and a note for each service this build cannot start."""
    planned: list[ServiceProcess] = []
    notes: list[str] = []
    for service in SERVICES:
        if service not in commands:
            notes.append(f"skipping {service}: this build has no `bench {service}` command")
            continue
        argv = [python, "-m", "bench_cli.main", service]
        if service == "runner":
            planned += [
                ServiceProcess(f"runner-{i}", argv, {"BENCH_RUNNER_ID": f"runner-{i}"})
                for i in range(1, runners + 1)
            ]
        else:
            planned.append(ServiceProcess(service, argv))
    return planned, notes


async def _pump(name: str, stream: asyncio.StreamReader, out: TextIO) -> None:
    async for raw in stream:
        out.write(f"[{name}] {raw.decode(errors='replace').rstrip()}\n")
        out.flush()


async def _stop(children: dict[str, asyncio.subprocess.Process], grace: float) -> None:
    running = [p for p in children.values() if p.returncode is None]
    for process in running:
        with contextlib.suppress(ProcessLookupError):
            process.terminate()
    try:
        await asyncio.wait_for(asyncio.gather(*(p.wait() for p in running)), grace)
    except TimeoutError:
        for process in running:
            if process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
        await asyncio.gather(*(p.wait() for p in running))


async def run_stack(
    services: list[ServiceProcess], *, stop: asyncio.Event, out: TextIO, grace: float = STOP_GRACE_S
) -> int:
    """Start `services`, relay their output, stop them all when `stop` is set.

    A child that exits on its own is reported and the others keep running (a runner may be
    killed on purpose; the stack is built to survive it). Returns 1 if any child exited on
    its own, else 0.
    """
    children: dict[str, asyncio.subprocess.Process] = {}
    pumps: list[asyncio.Task[None]] = []
    for service in services:
        process = await asyncio.create_subprocess_exec(
            *service.argv,
            env={**os.environ, **service.env},
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
        )
        assert process.stdout is not None
        children[service.name] = process
        pumps.append(asyncio.create_task(_pump(service.name, process.stdout, out)))
        out.write(f"[stack] started {service.name} (pid {process.pid})\n")
    waits: dict[asyncio.Task[int], str] = {
        asyncio.create_task(p.wait()): name for name, p in children.items()
    }
    stopping = asyncio.create_task(stop.wait())
    running = set(waits)
    failed = False
    while running and not stop.is_set():
        done, _ = await asyncio.wait({stopping, *running}, return_when=asyncio.FIRST_COMPLETED)
        for task in running & done:
            running.discard(task)
            failed = True
            out.write(f"[stack] {waits[task]} exited unexpectedly with code {task.result()}\n")
    out.write("[stack] stopping\n")
    await _stop(children, grace)
    stopping.cancel()
    await asyncio.gather(*pumps, *waits, stopping, return_exceptions=True)
    out.write("[stack] stopped\n")
    out.flush()
    return 1 if failed else 0


async def _up(runners: int, out: TextIO) -> int:
    from bench_cli.main import COMMANDS

    services, notes = plan_stack(COMMANDS, runners=runners)
    for note in notes:
        out.write(f"[stack] {note}\n")
    return await run_stack(services, stop=stop_on_signals(), out=out)


def main(argv: list[str]) -> int:
    """Entry point of `bench stack`."""
    parser = argparse.ArgumentParser(
        prog="bench stack",
        description=(
            "Start scheduler, runners and api (plus archiver and sandbox when this build has "
            "them) in the foreground against NATS_URL, MYSQL_* and SPACES_* from the "
            "environment; Ctrl-C stops them all."
        ),
    )
    parser.add_argument("action", choices=["up"], help="`up`: start everything")
    parser.add_argument("--runners", type=int, default=1, help="runner processes (default 1)")
    args = parser.parse_args(argv)
    if args.runners < 0:
        parser.error("--runners must be 0 or more")
    return asyncio.run(_up(args.runners, sys.stdout))
