"""Row ranges and sample-id filters."""

from __future__ import annotations

import pytest

from bench_common.run_config import RunConfig
from bench_runner.benchmarks.base import Sample
from bench_runner.engine.selection import expand_items, select_samples

SAMPLES = [Sample(id=f"b-{i}", index=i, input="q") for i in range(10)]


def cfg(**kw: object) -> RunConfig:
    return RunConfig.model_validate(
        {"benchmark": "b", "model": "m", "epochs": 1, "concurrency": 1, **kw}
    )


def ids(samples: list[Sample]) -> list[int]:
    return [s.index for s in samples]


def test_limit_start_end() -> None:
    assert ids(select_samples(SAMPLES, cfg(limit=3))) == [0, 1, 2]
    assert ids(select_samples(SAMPLES, cfg(start=4, limit=2))) == [4, 5]
    assert ids(select_samples(SAMPLES, cfg(start=4, end=6, limit=1))) == [4, 5]  # end wins
    assert ids(select_samples(SAMPLES, cfg(start=8))) == [8, 9]


def test_sample_ids_filter_and_unknown_ids() -> None:
    assert ids(select_samples(SAMPLES, cfg(sample_ids=("b-7", "b-2")))) == [2, 7]
    with pytest.raises(ValueError, match="unknown sample id"):
        select_samples(SAMPLES, cfg(sample_ids=("nope",)))


def test_empty_selection_and_bad_range() -> None:
    with pytest.raises(ValueError, match="no samples selected"):
        select_samples(SAMPLES, cfg(start=50))
    with pytest.raises(ValueError, match="greater than start"):
        cfg(start=5, end=5)


def test_expansion_order() -> None:
    items = [(s.index, e) for s, e in expand_items(SAMPLES[:2], 3)]
    assert items == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
