"""The clients of `sse_fanout.py`: one process holding N browsers' worth of SSE streams.

Kept apart from the driver so a client process imports nothing but httpx (its start-up and its
CPU stay small: the clients share the machine with the stack they measure).

Protocol with the driver: argv `--port P --clients N [--raw]`, token in `BENCH_SSE_TOKEN`;
prints `ready` once the N all-runs streams are open, reads the run id from stdin, opens the
run's N streams, waits for `stop` on stdin (the run finished), then prints one JSON line: per
stream, its kind and frames `[stream code, seq, receive time (-1 before ready), occurred_at]`.

A frame's receive time is `time.time()` taken when a read returned the bytes that complete it;
frames are parsed only after `stop` (see `Stream`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import httpx
import uvloop

TOKEN = os.environ.get("BENCH_SSE_TOKEN", "")
LIVE_EVENT = b"request_attempt_progressed"
MARK = 16
"""Bytes of the previous read kept to find a marker split between two reads."""


@dataclass
class Stream:
    """One SSE connection: what it received, kept raw until the run is over.

    While the run goes, a read costs one clock reading, two `bytes.find` and an append: the
    frames are parsed only after `stop`, so the clients' parsing does not compete for the
    CPU with the stack they measure (on a 2-core machine it would, and the figures would
    include it). Each block keeps the time its bytes reached this process.
    """

    kind: str
    blocks: list[tuple[float, bytes]] = field(default_factory=list)
    ready: bool = False
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    ended_early: bool = False
    _tail: bytes = b""

    def received(self, data: bytes, now: float) -> None:
        """Keep `data` (read at `now`); note `ready` and the run's end as they pass."""
        # A marker may straddle two reads: look at the end of the previous read too.
        seen = self._tail + data
        if not self.ready:
            ready = seen.find(b"event: ready\n")
            if ready < 0:
                self.blocks.append((-1.0, data))  # the history sent on connect: not measured
                self._tail = seen[-MARK:]
                return
            split = max(0, ready - len(self._tail))
            self.blocks.append((-1.0, data[:split]))
            self.ready = True
            data = data[split:]
        self.blocks.append((now, data))
        if seen.find(b"run_finished") >= 0:
            self.finished.set()
        self._tail = seen[-MARK:]

    def summary(self) -> dict[str, Any]:
        """Parse what was kept: frames `[stream code, seq, receive time, occurred_at]`."""
        parsed = Parsed()
        buffer = b""
        for now, data in self.blocks:
            buffer += data
            end = buffer.rfind(b"\n\n")
            if end >= 0:
                parsed.handle(buffer[: end + 2], now)
                buffer = buffer[end + 2 :]
        return {
            "kind": self.kind, "frames": parsed.frames, "results": parsed.results,
            "ended_early": self.ended_early, "last_state": parsed.last_state,
        }  # fmt: skip


def _at(text: bytes) -> float:
    return datetime.fromisoformat(text.decode().replace("Z", "+00:00")).timestamp()


FRAME = re.compile(
    rb'(?:^|\n)event: (\w+)\ndata: \{(?:"event":"(\w+)",)?"seq":(\d+),"at":"([^"]+)"'
)


@dataclass
class Parsed:
    """The frames of one stream, parsed after the run."""

    frames: list[tuple[str, int, float, float]] = field(default_factory=list)
    results: int = 0
    last_state: dict[str, Any] = field(default_factory=dict)

    def handle(self, block: bytes, received: float) -> None:
        """Every complete frame of `block`, all read at `received` (-1: before `ready`)."""
        for match in FRAME.finditer(block):
            event, inner, seq, at = match.groups()
            if event == b"run":  # the all-runs stream: {"event","seq","at","run"}
                self.frames.append(("E", int(seq), received, _at(at)))
                self.results += inner == b"sample_completed"
                if inner == b"run_finished":
                    start = block.index(b"data: ", match.start()) + 6
                    self.last_state = json.loads(block[start : block.index(b"\n", start)])["run"]
                continue
            code = "L" if event == LIVE_EVENT else "E"
            self.frames.append((code, int(seq), received, _at(at)))


async def follow(client: httpx.AsyncClient, url: str, stream: Stream, stop: asyncio.Event) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}
    try:
        async with client.stream("GET", url, headers=headers) as response:
            assert response.status_code == 200, response.status_code
            async for chunk in response.aiter_raw():
                stream.received(chunk, time.time())
    except (httpx.HTTPError, asyncio.CancelledError):
        pass
    if not stop.is_set():
        stream.ended_early = True


def dechunk(data: bytes, state: list[int]) -> tuple[bytes, bytes]:
    """Decode HTTP/1.1 chunked transfer encoding: (payload so far, undecoded rest).
    `state[0]` holds the bytes left in the current chunk between calls."""
    out = []
    while data:
        if state[0] > 0:
            take = data[: state[0]]
            out.append(take)
            state[0] -= len(take)
            data = data[len(take) :]
            continue
        line_end = data.find(b"\r\n", 2 if data.startswith(b"\r\n") else 0)
        if line_end < 0:
            break
        size_line = data[:line_end].strip()
        data = data[line_end + 2 :]
        if size_line:
            state[0] = int(size_line.split(b";")[0], 16)
    return b"".join(out), data


async def follow_raw(port: int, url: str, stream: Stream, stop: asyncio.Event) -> None:
    """The same stream over a bare socket: the server is measured, not the client library."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        stream.ended_early = True
        return
    request = (
        f"GET {url} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAuthorization: Bearer {TOKEN}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    )
    writer.write(request.encode())
    try:
        head = await reader.readuntil(b"\r\n\r\n")
        assert b" 200 " in head.split(b"\r\n", 1)[0], head[:100]
        state, rest = [0], b""
        while chunk := await reader.read(262144):
            now = time.time()
            payload, rest = dechunk(rest + chunk, state)
            stream.received(payload, now)
    except (OSError, asyncio.IncompleteReadError, asyncio.CancelledError):
        pass
    finally:
        writer.close()
    if not stop.is_set():
        stream.ended_early = True


async def worker(port: int, browsers: int, *, raw: bool = False) -> None:
    """Open `browsers` all-runs streams, say `ready`, read the run id from stdin, open the
    run's streams, and print what every stream received once the run finished."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=browsers * 2 + 4, max_keepalive_connections=0)
    timeout = httpx.Timeout(30.0, read=None)
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=timeout) as client:

        def open_stream(url: str, stream: Stream) -> asyncio.Task[None]:
            if raw:
                return asyncio.create_task(follow_raw(port, url, stream, stop))
            return asyncio.create_task(follow(client, url, stream, stop))

        everything = [Stream("runs") for _ in range(browsers)]
        tasks = [open_stream("/runs/events", s) for s in everything]
        while not all(s.ready for s in everything):  # noqa: ASYNC110 (many flags, one wait)
            await asyncio.sleep(0.02)
        print("ready", flush=True)
        run_id = (await reader.readline()).decode().strip()
        if not run_id:  # the driver went away
            return
        per_run = [Stream("run") for _ in range(browsers)]
        tasks += [open_stream(f"/runs/{run_id}/events", s) for s in per_run]
        await reader.readline()  # "stop": the run finished (or EOF: the driver went away)
        waits = [asyncio.create_task(s.finished.wait()) for s in [*everything, *per_run]]
        _, late = await asyncio.wait(waits, timeout=30)  # all finished, or give up
        for waiting in late:
            waiting.cancel()
        await asyncio.sleep(1.0)  # trailing deltas of BENCH_LIVE
        stop.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    print(json.dumps([s.summary() for s in [*everything, *per_run]]), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description="SSE client process of sse_fanout.py")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--clients", type=int, required=True)
    parser.add_argument("--raw", action="store_true", help="bare sockets instead of httpx")
    args = parser.parse_args()
    uvloop.run(worker(args.port, args.clients, raw=args.raw))
    return 0


if __name__ == "__main__":
    sys.exit(main())
