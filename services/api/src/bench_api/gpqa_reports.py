"""The GPQA reports of the runs asked for lately, kept between requests: per run, the report
folded so far (`GpqaFold`), the last stream sequence read and the last rendering.

A request reads only the `SampleCompleted` events that came since the previous one (nothing,
once a run is finished: two round trips to NATS), folds them in batch by batch as they arrive
and renders again only when something came. Records are immutable and the first per (sample,
epoch) wins, so folding the newer events into what was folded before gives exactly a full
rebuild; a read that fails half-way keeps what it folded and the next request goes on from
there.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from bench_api.gc_pause import collector_paused
from bench_api.gpqa_fold import GpqaFold
from bench_api.rest_ports import RunEvents
from bench_common.envelope import Event
from bench_common.events import SampleCompleted

GPQA = "gpqa_diamond"
"""The benchmark these reports are for."""
REPORT_KIND = "gpqa-report"
"""The report's name: `GET /runs/{id}/gpqa-report`, `reports/gpqa-report.json`."""
CACHED_RUNS = 3
"""Runs whose reports are kept: a 10,000-evaluation GPQA run holds about 75 MB (its encoded
items, and the rendering)."""


@dataclass
class _Run:
    fold: GpqaFold = field(default_factory=GpqaFold)
    last_seq: int = 0
    body: bytes | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class GpqaReports:
    """Per run: the GPQA report as of the newest event read."""

    def __init__(self, runs: int = CACHED_RUNS) -> None:
        self._runs = runs
        self._items: OrderedDict[str, _Run] = OrderedDict()

    async def body(self, run_id: str, events: RunEvents) -> bytes | None:
        """The run's report as served, or None while it has no evaluation."""
        known = self._items.get(run_id)
        if known is None:
            known = self._items[run_id] = _Run()
        self._items.move_to_end(run_id)
        while len(self._items) > self._runs:
            self._items.popitem(last=False)

        def fold(batch: list[tuple[int, Event]]) -> None:
            known.body = None
            known.fold.add(e.record for _, e in batch if isinstance(e, SampleCompleted))
            known.last_seq = max(known.last_seq, batch[-1][0])

        async with known.lock:  # one reader per run; the others wait and share its result
            await events.fold_batches(run_id, SampleCompleted, fold, after_seq=known.last_seq)
            if known.body is None and known.fold.evaluations:
                with collector_paused():
                    known.body = known.fold.render()
            return known.body
