"""Percentiles (nearest rank), distributions and buckets."""

from __future__ import annotations

import pytest

from bench_common.reports.stats import Buckets, distribution, percentile, rate


def test_percentile_is_the_nearest_rank_value() -> None:
    values = list(range(1, 101))  # 1..100
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert percentile(values, 100) == 100
    assert percentile([7], 75) == 7
    assert percentile([], 50) is None
    assert percentile([10, 20, 30, 40], 75) == 30  # rank ceil(3.0) = 3


def test_distribution_reports_count_percentiles_mean_and_max() -> None:
    d = distribution([30, 10, 20, 40])
    assert d == {
        "count": 4,
        "p50Ms": 20,
        "p75Ms": 30,
        "p90Ms": 40,
        "p95Ms": 40,
        "meanMs": 25.0,
        "maxMs": 40,
    }
    empty = distribution([])
    assert empty["count"] == 0 and empty["p50Ms"] is None and empty["meanMs"] is None


def test_rate_of_nothing_is_unknown() -> None:
    assert rate(1, 4) == 0.25
    assert rate(0, 0) is None


def test_bucket_upper_bounds_are_inclusive() -> None:
    b = Buckets(labels=("0", "1–500", ">500"), uppers=(0, 500))
    assert [b.index(v) for v in (0, 1, 500, 501, 10**9)] == [0, 1, 1, 2, 2]
    with pytest.raises(ValueError, match="one label more"):
        Buckets(labels=("a",), uppers=(1,))
