"""Shared schemas of the bench harness.

Everything that crosses a process boundary or lands in an artifact is defined here: the event
catalogue and its envelope, subject naming, the run configuration, evaluation records, request
attempt records and the artifact schemas (Parquet row, run record, manifest). This package holds
no I/O clients and imports no service.
"""
