"""The option shuffle against the original's vectors and statistics (parity README §1–§2)."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from bench_runner.benchmarks.gpqa.shuffle import (
    correct_letter,
    mix_seed,
    mulberry32,
    seeded_permutation,
)


def test_all_hundred_vectors_match(permutation_vectors: dict[str, Any]) -> None:
    rows = permutation_vectors["rows"]
    assert len(rows) == 100
    for row in rows:
        seed = row["index"]
        mixed = mix_seed(seed)
        assert mixed == row["mixed_seed_u32"], seed
        draws = list(itertools.islice(mulberry32(mixed), 3))
        assert draws == row["draws_u32"], seed
        swaps = [(u * (i + 1)) >> 32 for u, i in zip(draws, (3, 2, 1), strict=True)]
        assert swaps == row["swap_j_for_i_3_2_1"], seed
        permutation = seeded_permutation(seed)
        assert permutation == row["permutation"], seed
        assert correct_letter(permutation) == row["correct_letter"], seed
        assert permutation.index(0) == row["correct_position"], seed
        assert row["id"] == f"gpqa_diamond-{seed}"


def test_worked_example_row_zero() -> None:
    assert mix_seed(0) == 3108667723
    assert list(itertools.islice(mulberry32(3108667723), 3)) == [3656310323, 903343268, 313306050]
    assert seeded_permutation(0) == [1, 2, 0, 3]
    assert correct_letter([1, 2, 0, 3]) == "C"


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        (range(198), {"A": 51, "B": 47, "C": 48, "D": 52}),
        (range(1000), {"A": 247, "B": 245, "C": 250, "D": 258}),
    ],
)
def test_correct_letter_distribution(rows: range, expected: dict[str, int]) -> None:
    counts = Counter(correct_letter(seeded_permutation(seed)) for seed in rows)
    assert dict(counts) == expected


def test_letter_counts_match_the_vector_file(permutation_vectors: dict[str, Any]) -> None:
    counts = Counter(correct_letter(seeded_permutation(seed)) for seed in range(198))
    assert dict(counts) == permutation_vectors["letter_counts_0_197"]


def test_all_24_permutations_occur_in_the_real_dataset_range() -> None:
    seen = {tuple(seeded_permutation(seed)) for seed in range(198)}
    assert seen == set(itertools.permutations(range(4)))


@pytest.mark.parametrize("seed", [0, 5, 2**31 - 1, 2**31, 2**32 - 1, 123456789012])
def test_seeds_are_reduced_mod_2_32(seed: int) -> None:
    assert seeded_permutation(seed + 2**32) == seeded_permutation(seed)
    assert seeded_permutation(seed + 2**40) == seeded_permutation(seed)


def test_every_value_stays_32_bit() -> None:
    for seed in (0, 1, 2**32 - 1, 2**40 + 3):
        assert 0 <= mix_seed(seed) < 2**32
        assert all(0 <= u < 2**32 for u in itertools.islice(mulberry32(mix_seed(seed)), 50))


def test_ten_options_are_a_permutation() -> None:
    for seed in range(50):
        assert sorted(seeded_permutation(seed, 10)) == list(range(10))


def test_same_row_same_order() -> None:
    assert seeded_permutation(42) == seeded_permutation(42)


def test_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        mix_seed(-1)
