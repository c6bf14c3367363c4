"""The audit's arithmetic: how surprising a margin is, and how likely a blind player is to be this lucky.

Pure functions over numbers; ``triples.engines.audit`` draws the margins.

- ``luck_of``: a pool of margins (the actual one among draws from the same chances) as a
  distribution of **surprises**: a positive margin's surprise is ``-ln`` of the share of the
  pool at least as large; no positive margin is worth 0.
- ``blind_chance``: the probability that a blind player's total surprise reaches the game's.
  Each deviation adds its own, independently: a deviation with a pool adds a surprise drawn
  from it (where the actual order falls in a pool of exchangeable orders is uniform); one known
  only by its chance ``q`` of a positive margin adds nothing with probability ``1 - q`` and
  else ``-ln q`` plus an exponential of mean 1, the most a chance ``q`` can hold (a margin's
  tail is at most ``q``, and it is at most ``x`` with probability at most ``x``).
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


def blind_chance(lucks: Sequence[Luck], chances: Sequence[float], surprise: float, step: float = STEP) -> float:
    """The probability that a blind player's total surprise reaches ``surprise``: one term per
    deviation of ``lucks`` (drawn from its pool) and of ``chances`` (at most ``-ln q`` plus an
    exponential, with chance ``q``). A table over (exponentials added, total of the rest in
    steps), the rest rounded up; totals at or past the goal with no exponential are one entry."""
    if math.isinf(surprise):
        return 0.0
    goal = math.floor(surprise / step + 1e-9)
    if goal <= 0:
        return 1.0
    table: dict[tuple[int, int], float] = {(0, 0): 1.0}

    def add(grown: dict[tuple[int, int], float], key: tuple[int, int], weight: float) -> None:
        exponentials, total = key
        key = (exponentials, min(total, goal))
        grown[key] = grown.get(key, 0.0) + weight

    for luck in lucks:
        grown: dict[tuple[int, int], float] = {}
        none = max(0.0, 1.0 - sum(share for _, share in luck))
        for (exponentials, total), weight in table.items():
            add(grown, (exponentials, total), weight * none)
            for value, share in luck:
                add(grown, (exponentials, total + math.ceil(value / step - 1e-9)), weight * share)
        table = grown
    for q in chances:
        if q <= 0:
            continue
        shift = math.ceil(-math.log(min(q, 1.0)) / step - 1e-9)
        grown = {}
        for (exponentials, total), weight in table.items():
            add(grown, (exponentials, total), weight * (1 - q))
            add(grown, (exponentials + 1, total + shift), weight * q)
        table = grown
    chance = sum(
        weight * gamma_tail(exponentials, (goal - total) * step) for (exponentials, total), weight in table.items()
    )
    return min(1.0, chance)


def gamma_tail(shape: int, x: float) -> float:
    """P(a sum of ``shape`` exponentials of mean 1 is at least ``x``); shape 0 is the constant 0."""
    if x <= 0:
        return 1.0
    if shape == 0:
        return 0.0
    term = total = 1.0
    for i in range(1, shape):
        term *= x / i
        total += term
    return min(1.0, math.exp(-x) * total)
