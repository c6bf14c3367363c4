"""The pinned shuffle: SplitMix64, an unbiased bound, Fisher-Yates. Seeds are forever: never change it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
MAX_SEED = MASK64
_GAMMA = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB


def splitmix64(seed: int) -> Iterator[int]:
    """An endless stream of 64-bit draws from a state equal to ``seed``."""
    state = seed & MASK64
    while True:
        state = (state + _GAMMA) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * _MIX1) & MASK64
        z = ((z ^ (z >> 27)) * _MIX2) & MASK64
        yield z ^ (z >> 31)


def below(draws: Iterator[int], n: int) -> int:
    """A uniform integer in ``[0, n)``: draws past the last whole multiple of n are rejected."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        x = next(draws)
        if x < limit:
            return x % n


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """A Fisher-Yates shuffle of a copy of ``items`` driven by ``seed``."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}")
    deck = list(items)
    draws = splitmix64(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = below(draws, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
