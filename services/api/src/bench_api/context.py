"""Everything the REST routes need, built once by the composition root (`main.py`) or by a
test, and reached through `deps.py`."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from bench_api.auth import AccessPolicy
from bench_api.gpqa_reports import GpqaReports
from bench_api.record_cache import RecordCache
from bench_api.rest_ports import (
    Admission,
    ArtifactFetcher,
    ArtifactLinks,
    ReportSnapshots,
    Row,
    RunEvents,
    RunStore,
)
from bench_api.run_defaults import SimulatorEndpoint

REPORT_CACHE_BYTES = 256 * 1024 * 1024


def report_key(row: Row, kind: str) -> tuple[str, str, int]:
    """The `ReportCache` key of a run's report of `kind` as of the run's row."""
    return (str(row["id"]), kind, int(row.get("last_event_seq") or 0))


class ReportCache:
    """Rendered reports of finished runs, keyed by (run, kind, last folded sequence).

    A finished run's events no longer change its reports, so one rendering serves every later
    request; the key's sequence makes a late event (an archive upload) start afresh. Bounded
    by total bytes, least recently used out first.
    """

    def __init__(self, max_bytes: int = REPORT_CACHE_BYTES) -> None:
        self._max = max_bytes
        self._used = 0
        self._items: OrderedDict[tuple[str, str, int], bytes] = OrderedDict()

    def get(self, key: tuple[str, str, int]) -> bytes | None:
        """The cached body, or None."""
        body = self._items.get(key)
        if body is not None:
            self._items.move_to_end(key)
        return body

    def put(self, key: tuple[str, str, int], body: bytes) -> None:
        """Keep a body (one larger than the whole budget is not kept)."""
        if len(body) > self._max:
            return
        old = self._items.pop(key, None)
        self._used += len(body) - (len(old) if old is not None else 0)
        self._items[key] = body
        while self._used > self._max:
            _, dropped = self._items.popitem(last=False)
            self._used -= len(dropped)


@dataclass(frozen=True)
class ApiContext:
    """The REST API's collaborators.

    Attributes:
        access: the token, the run trigger secret and the allowed e-mail domains.
        store: the MySQL projection (reads).
        events: BENCH_EVENTS (one run's history; cancel and disable facts).
        admission: the scheduler's admission.
        links: the archiver's presigned URLs.
        fetcher: reads archived files through those URLs.
        bucket: the archive's bucket, to name archived files `s3://<bucket>/<key>`.
        reports: rendered reports of finished runs (this process's).
        snapshots: rendered reports of finished runs every api process shares (None: none).
        records: evaluation records of recently reported runs (read incrementally).
        simulator: the TAU simulated customer runs are given (`TAU_AIRLINE_USER_SIMULATOR_*`).
    """

    access: AccessPolicy
    store: RunStore
    events: RunEvents
    admission: Admission
    links: ArtifactLinks
    fetcher: ArtifactFetcher
    bucket: str | None = None
    reports: ReportCache = field(default_factory=ReportCache)
    snapshots: ReportSnapshots | None = None
    records: RecordCache = field(default_factory=RecordCache)
    gpqa_reports: GpqaReports = field(default_factory=GpqaReports)
    simulator: SimulatorEndpoint = field(default_factory=SimulatorEndpoint)
