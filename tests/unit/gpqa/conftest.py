"""Shared fixtures of the GPQA tests: the parity vectors and the synthetic dataset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
PARITY = FIXTURES / "parity"
SYNTHETIC = FIXTURES / "gpqa"


@pytest.fixture(scope="session")
def permutation_vectors() -> dict[str, Any]:
    """gpqa_permutations_0_99.json, produced by the original harness."""
    data: dict[str, Any] = json.loads((PARITY / "gpqa_permutations_0_99.json").read_text())
    return data


@pytest.fixture(scope="session")
def synthetic_rows() -> list[dict[str, Any]]:
    """The six invented GPQA-shaped rows."""
    text = (SYNTHETIC / "gpqa_synthetic.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


@pytest.fixture
def synthetic_parquet(tmp_path: Path, synthetic_rows: list[dict[str, Any]]) -> Path:
    """The synthetic rows written as Parquet."""
    path = tmp_path / "gpqa_synthetic.parquet"
    pq.write_table(pa.Table.from_pylist(synthetic_rows), path)
    return path
