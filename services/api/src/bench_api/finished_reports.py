"""A finished run's rendered report: from this process's `ReportCache`, else from the
snapshots every api process shares (`ReportSnapshots`), else rendered now and kept in both.

A finished run's events no longer change its reports (the key's sequence changes when a late
event comes), so a report rendered once, by any api process, serves every later request until
the run is archived and the archive serves it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bench_api.context import ApiContext, report_key
from bench_api.rest_ports import Row


async def finished_report(
    context: ApiContext,
    row: Row,
    kind: str,
    render: Callable[[], Awaitable[bytes | None]],
) -> bytes | None:
    """The report of `kind` of the finished run `row`, or None when `render` has nothing to
    render (nothing is kept then)."""
    key = report_key(row, kind)
    body = context.reports.get(key)
    if body is not None:
        return body
    snapshots = context.snapshots
    if snapshots is not None:
        body = await snapshots.load(key)
    if body is None:
        body = await render()
        if body is None:
            return None
        if snapshots is not None:
            snapshots.keep(key, body)
    context.reports.put(key, body)
    return body
