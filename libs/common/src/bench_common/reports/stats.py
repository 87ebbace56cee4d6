"""Small numeric helpers shared by the reports: percentiles, rates, buckets.

Percentiles use the nearest-rank method (the value at rank ceil(p * n) of the sorted sample),
so every figure is a value that was actually observed, as the original dashboard shows them.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

PERCENTILES = (50, 75, 90, 95)


def percentile(ordered: Sequence[float], p: float) -> float | None:
    """The nearest-rank `p`-th percentile (0 < p <= 100) of an ascending sample, or None.

    Args:
        ordered: the sample, sorted ascending.
        p: the percentile, e.g. 95.
    """
    if not ordered:
        return None
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean, or None for an empty sample."""
    return sum(values) / len(values) if values else None


def rate(part: int, whole: int) -> float | None:
    """`part / whole`, or None when `whole` is 0 (a rate of nothing is unknown, not 0)."""
    return part / whole if whole else None


def distribution(values: Sequence[float], *, unit: str = "Ms") -> dict[str, float | int | None]:
    """Count, p50/p75/p90/p95, mean and max of a sample, keys suffixed with `unit`.

    Example: `{"count": 3, "p50Ms": 20, ..., "meanMs": 21.3, "maxMs": 30}`.
    """
    ordered = sorted(values)
    result: dict[str, float | int | None] = {"count": len(ordered)}
    for p in PERCENTILES:
        result[f"p{p}{unit}"] = percentile(ordered, p)
    average = mean(ordered)
    result[f"mean{unit}"] = None if average is None else round(average, 3)
    result[f"max{unit}"] = ordered[-1] if ordered else None
    return result


@dataclass(frozen=True)
class Buckets:
    """Labelled ranges: value v falls in the first bucket whose upper bound is >= v.

    Attributes:
        labels: one label per bucket; the last bucket is open-ended.
        uppers: inclusive upper bounds of every bucket but the last (ascending).
    """

    labels: tuple[str, ...]
    uppers: tuple[float, ...]

    def __post_init__(self) -> None:
        if len(self.labels) != len(self.uppers) + 1:
            raise ValueError("a bucket set needs one label more than upper bounds")

    def index(self, value: float) -> int:
        """The bucket index of `value`."""
        return bisect_left(self.uppers, value)
