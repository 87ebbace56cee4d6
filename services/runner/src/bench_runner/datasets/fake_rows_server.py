"""A fake Hugging Face datasets-server `/rows` endpoint on loopback, for tests and demos.

It speaks the real protocol over a real socket: `GET /rows?dataset&config&split&offset&length`
answers pages shaped like the real ones, from rows given in memory. Faults are scripted per
request (`fail_next`), and every request is recorded with its query and Authorization header.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from aiohttp import web


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received."""

    query: Mapping[str, str]
    authorization: str | None


@dataclass(frozen=True)
class Fault:
    """A scripted failure: an HTTP status with a body and optional headers."""

    status: int
    body: str = '{"error": "scripted failure"}'
    headers: Mapping[str, str] | None = None


class FakeRowsServer:
    """Serves `rows` (dicts of column values) as the datasets-server would.

    Use as `async with FakeRowsServer(rows) as server:`; `server.url` is the `/rows` URL.
    """

    def __init__(
        self,
        rows: Sequence[Mapping[str, Any]],
        *,
        dataset: str = "nmayorga7/gpqa_diamond",
        features: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.rows = list(rows)
        self.dataset = dataset
        self.features = list(features)
        self.requests: list[RecordedRequest] = []
        self._faults: deque[Fault] = deque()
        self._pending_rows: tuple[int, list[Mapping[str, Any]]] | None = None
        self._runner: web.AppRunner | None = None
        self.url = ""

    def fail_next(self, *faults: Fault) -> None:
        """Answer the next requests with these faults, in order, before serving normally."""
        self._faults.extend(faults)

    def replace_rows_after(self, requests: int, rows: Sequence[Mapping[str, Any]]) -> None:
        """Serve `rows` instead once `requests` more requests have been answered."""
        self._pending_rows = (len(self.requests) + requests, list(rows))

    async def start(self) -> str:
        """Listen on a free loopback port; returns the `/rows` URL."""
        app = web.Application()
        app.router.add_get("/rows", self._handle)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = int(self._runner.addresses[0][1])
        self.url = f"http://127.0.0.1:{port}/rows"
        return self.url

    async def stop(self) -> None:
        """Stop listening; later requests are refused at the socket."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeRowsServer:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    async def _handle(self, request: web.Request) -> web.Response:
        query = dict(request.query)
        if self._pending_rows is not None and len(self.requests) >= self._pending_rows[0]:
            self.rows, self._pending_rows = self._pending_rows[1], None
        self.requests.append(RecordedRequest(query, request.headers.get("Authorization")))
        if self._faults:
            fault = self._faults.popleft()
            return web.Response(
                status=fault.status,
                text=fault.body,
                headers=dict(fault.headers or {}),
                content_type="application/json",
            )
        if query.get("dataset") != self.dataset:
            return web.json_response({"error": "The dataset does not exist."}, status=404)
        try:
            offset, length = int(query["offset"]), int(query["length"])
        except (KeyError, ValueError):
            return web.json_response({"error": "offset and length are required"}, status=422)
        if offset < 0 or not 0 < length <= 100:
            return web.json_response({"error": "length must be 1..100"}, status=422)
        page = self.rows[offset : offset + length]
        return web.json_response(
            {
                "features": self.features,
                "rows": [
                    {"row_idx": offset + i, "row": dict(row), "truncated_cells": []}
                    for i, row in enumerate(page)
                ],
                "num_rows_total": len(self.rows),
                "num_rows_per_page": 100,
                "partial": False,
            }
        )
