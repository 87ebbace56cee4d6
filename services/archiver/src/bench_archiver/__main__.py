"""`python -m bench_archiver`: same as `bench archiver`."""

from bench_archiver.main import main

raise SystemExit(main())
