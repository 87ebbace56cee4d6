"""The engine: datasets, inference client, benchmarks, scoring and results.

Used as it is by the `bench run` CLI (one process) and by the managed runner worker.
"""
