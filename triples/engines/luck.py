"""The audit's arithmetic: how surprising a margin is, and how likely a blind player is to be this lucky.

Pure functions over numbers; ``triples.engines.audit`` draws the margins.

- ``luck_of``: a pool of margins (the actual one among draws from the same chances) as a
  distribution of **surprises**: a positive margin's surprise is ``-ln`` of the share of the
  pool at least as large; no positive margin is worth 0.
- ``blind_chance``: the probability that a blind player's total surprise reaches the game's.
  Each deviation adds a surprise drawn from its own pool, independently: where the actual
  order falls in a pool of exchangeable orders is uniform.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# A pool's luck: per positive margin, largest first, (its surprise, its share of the pool).
Luck = tuple[tuple[float, float], ...]
# Surprises are added in steps of this: the game's rounded down, a blind player's up.
STEP = 0.01


def luck_of(pool: Sequence[int], margin: int) -> tuple[Luck, float]:
    """The pool's luck, and the surprise of ``margin`` in it (0 when not positive). ``pool``
    holds the actual margin among the drawn ones."""
    size = len(pool)
    at_least = 0
    luck: list[tuple[float, float]] = []
    surprise = 0.0
    for level in sorted({m for m in pool if m > 0}, reverse=True):
        here = sum(m == level for m in pool)
        at_least += here
        value = -math.log(at_least / size)
        luck.append((value, here / size))
        if level == margin:
            surprise = value
    return tuple(luck), surprise


def blind_chance(lucks: Sequence[Luck], surprise: float, step: float = STEP) -> float:
    """The probability that a blind player's total surprise reaches ``surprise``, one surprise
    drawn from each pool's luck, independently: a table over totals in steps, each surprise
    rounded up and totals at or past the goal kept as one entry."""
    if math.isinf(surprise):
        return 0.0
    goal = math.floor(surprise / step + 1e-9)
    if goal <= 0:
        return 1.0
    table: dict[int, float] = {0: 1.0}
    for luck in lucks:
        grown: dict[int, float] = {}
        none = max(0.0, 1.0 - sum(share for _, share in luck))
        for total, weight in table.items():
            grown[total] = grown.get(total, 0.0) + weight * none
            for value, share in luck:
                key = min(goal, total + math.ceil(value / step - 1e-9))
                grown[key] = grown.get(key, 0.0) + weight * share
        table = grown
    return min(1.0, table.get(goal, 0.0))
