"""Rows from the datasets-server, through the on-disk cache."""

from __future__ import annotations

import logging
from pathlib import Path

from bench_runner.datasets.cache import DatasetCache
from bench_runner.datasets.errors import DatasetError
from bench_runner.datasets.hf_rows import HfRowsClient, HfRowsSource
from bench_runner.datasets.rows import DatasetRow

log = logging.getLogger(__name__)


async def load_hf_rows(
    source: HfRowsSource,
    *,
    client: HfRowsClient,
    cache_dir: Path | None,
    cache_disabled: bool = False,
    token: str | None = None,
) -> list[DatasetRow]:
    """Every row of `source`: from the cache when a valid copy exists, else downloaded.

    A download is written to the cache for the next run. A cache that cannot be written is
    logged and the run goes on with the downloaded rows.

    Args:
        source: the dataset split.
        client: the datasets-server client (base URL, retries).
        cache_dir: the cache root; None disables caching.
        cache_disabled: neither read nor write the cache.
        token: a Hugging Face token for gated datasets (sent, never logged).

    Raises:
        DatasetError: the rows could not be downloaded and no cached copy exists; the message
            says where the cache was looked for and how to run offline.
    """
    cache = DatasetCache(cache_dir) if cache_dir is not None and not cache_disabled else None
    key = source.cache_key()
    if cache is not None:
        cached = cache.load(key)
        if cached is not None:
            return cached
    try:
        rows = await client.fetch(source, token=token)
    except DatasetError as exc:
        if cache is None:
            where = "the dataset cache is disabled"
        else:
            where = f"no valid cached copy at {cache.path_for(key)}"
        raise DatasetError(
            f"{exc}; {where}. Run again with network access (the rows are then cached), or "
            "pass a local copy with --dataset-file (CSV, JSONL or Parquet)"
        ) from exc
    if cache is not None:
        try:
            cache.store(key, rows)
        except (OSError, TypeError, ValueError) as exc:
            log.warning("could not write dataset cache %s: %s", cache.path_for(key), exc)
    return rows
