"""The original harness's option shuffle, bit for bit.

A row index is hashed into a 32-bit seed, which seeds a Mulberry32 generator that drives a
descending Fisher–Yates shuffle. Every quantity is an unsigned 32-bit integer; JavaScript's
`Math.imul` and `>>>` are reproduced with masks. The seed does not depend on the epoch, so every
epoch of a row sees the same option order (parity README §2).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

LETTERS = "ABCD"

_MASK = 0xFFFF_FFFF
_GOLDEN = 0x9E37_79B9
_MIX = 0x045D_9F3B
_MULBERRY_STEP = 0x6D2B_79F5


def mix_seed(seed: int) -> int:
    """Hash a non-negative seed into Mulberry32's initial state.

    Args:
        seed: the dataset row index; seeds of 2**32 or more are reduced mod 2**32 first.

    Returns:
        The mixed 32-bit seed.
    """
    if seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    x = (seed & _MASK) ^ _GOLDEN
    x = ((x ^ (x >> 16)) * _MIX) & _MASK
    x = ((x ^ (x >> 16)) * _MIX) & _MASK
    return x ^ (x >> 16)


def mulberry32(state: int) -> Iterator[int]:
    """Raw 32-bit Mulberry32 outputs from an initial 32-bit state (the float draw is u / 2**32)."""
    a = state & _MASK
    while True:
        a = (a + _MULBERRY_STEP) & _MASK
        t = ((a ^ (a >> 15)) * (a | 1)) & _MASK
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & _MASK)) & _MASK
        yield t ^ (t >> 14)


def seeded_permutation(seed: int, n: int = 4) -> list[int]:
    """The permutation the original shows for `seed`.

    Args:
        seed: the dataset row index.
        n: how many options (4 for GPQA).

    Returns:
        `perm` where `perm[k]` is the original index of the option shown at position k.
    """
    idx = list(range(n))
    draws = mulberry32(mix_seed(seed))
    for i in range(n - 1, 0, -1):
        # floor((u / 2**32) * (i + 1)) computed exactly in integers: u * (i + 1) < 2**34.
        j = (next(draws) * (i + 1)) >> 32
        idx[i], idx[j] = idx[j], idx[i]
    return idx


def correct_letter(permutation: Sequence[int]) -> str:
    """The letter at which the original option 0 (the correct answer) is shown."""
    return LETTERS[list(permutation).index(0)]
