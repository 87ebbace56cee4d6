"""`python -m bench_scheduler`."""

from bench_scheduler.main import main

raise SystemExit(main())
