"""`python -m bench_api`: the api service process (same as `bench api`)."""

from __future__ import annotations

from bench_api.main import main

if __name__ == "__main__":
    raise SystemExit(main())
