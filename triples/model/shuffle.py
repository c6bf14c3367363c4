"""The original Triples deal (docs/game.md): a 32-bit LCG and a backward Fisher-Yates.

Seeds are forever: the games team's service deals with exactly this, and recorded games name
their tables by seed. Never change it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")

MASK32 = (1 << 32) - 1
LCG_MULTIPLIER = 1664525
LCG_INCREMENT = 1013904223


def lcg_draws(seed: int) -> Iterator[int]:
    """The generator's endless draws (0..65535): advance the 32-bit state, yield its high half.

    Any integer is a seed; only ``seed mod 2**32`` matters (Python's ``%``, so -1 is 2**32 - 1).
    """
    state = seed & MASK32  # the same as seed % 2**32 for every int, negative ones included
    while True:
        state = (LCG_MULTIPLIER * state + LCG_INCREMENT) & MASK32
        yield state >> 16


def shuffled(items: Sequence[T], seed: int) -> list[T]:
    """A copy of ``items`` (factory order) shuffled as the original service shuffles it."""
    deck = list(items)
    # Inlined generator: ``new`` deals on every call, and a generator object per draw costs more.
    state = seed & MASK32
    for i in range(len(deck) - 1, 0, -1):
        state = (LCG_MULTIPLIER * state + LCG_INCREMENT) & MASK32
        j = (state >> 16) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
