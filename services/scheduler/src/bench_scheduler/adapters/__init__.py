"""I/O behind small protocols: the event log, the data-key store, the BENCH_EVENTS feed."""
