"""`bench parquet-to-md FILE`: print the Markdown report of a result file."""

from __future__ import annotations

import sys
from pathlib import Path

from bench_common.markdown_report import render_report
from bench_common.parquet import read_records


def main(argv: list[str]) -> int:
    """Entry point; exit 2 on bad usage, 1 on an unreadable file."""
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: bench parquet-to-md FILE.parquet\n")
        return 2
    path = Path(argv[0])
    try:
        run, records = read_records(path)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"bench parquet-to-md: cannot read {path}: {exc}\n")
        return 1
    sys.stdout.write(render_report(run, records))
    return 0
