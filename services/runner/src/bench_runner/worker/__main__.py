"""`python -m bench_runner.worker`: run one runner worker until SIGTERM or Ctrl-C."""

from __future__ import annotations

import sys

from bench_runner.worker.main import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
