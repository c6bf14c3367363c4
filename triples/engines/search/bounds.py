"""Upper bounds on what the cards not yet cleared can still give.

``value_bound``: cards left and the value-sum argument. ``packing_weights``: the dual of the
linear relaxation of "pack as many disjoint combinations as possible", solved per pool (the
packing phase's bound on a fully dealt table). ``Family``: a few fixed dual vectors found once
per variant, weighed against a pool in one multiply-add per value (the stock phase's bound on
variants where it pays). Each is derived from the variant's own combinations, whatever the rules.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm
from operator import mul
from typing import Literal

from triples.engines.search.layouts import SearchTables, search_tables_for
from triples.model.variant import Variant
from triples.support import caches, deadline


def packing_weights(variant: Variant, pool: Sequence[int]) -> list[float] | None:
    """Weights y (one per value) with y >= 0 and, for every combination c, the weights of its
    cards adding up to at least 1, as small on ``pool`` as possible: an optimal solution of
    the dual of the linear relaxation of "pack as many disjoint combinations as possible".

    Whatever cards are left, a packing's moves then number at most the sum of their weights,
    since every move uses cards weighing 1 or more. This is the value-sum bound with the best
    weights for this pool in place of value / target; on grid100 positions that already lost
    their chance of 99 it is often exact where the value sum is not. Solved by the simplex
    method with Bland's rule (no cycling), in floats; the result is then checked and scaled
    so that every combination's weight really is at least 1, and None means give up.
    ``pool`` counts cards by value (``rules.histogram``); the weights are indexed the same way.
    """
    rule = search_tables_for(variant)
    values = [v for v in range(1, rule.top + 1) if pool[v]]
    columns = [c for c in rule.combos if all(pool[v] for v in c)]
    weights = [1.0] * (rule.top + 1)  # a value the pool lacks: any combination using it weighs 1
    weights[0] = 0.0
    if columns:
        width, height = len(columns), len(values)
        # Rows: one per value, the combinations' card counts, then the slacks, then the pool.
        tableau = [
            [float(c.count(v)) for c in columns] + [float(i == j) for j in range(height)] + [float(pool[v])]
            for i, v in enumerate(values)
        ]
        costs = [-1.0] * width + [0.0] * (height + 1)
        basis = [width + i for i in range(height)]
        for _ in range(50 * (width + height)):
            deadline.check()
            entering = next((j for j in range(width + height) if costs[j] < -1e-9), -1)
            if entering < 0:
                break
            row, ratio = -1, 0.0
            for i in range(height):
                a = tableau[i][entering]
                if a > 1e-9:
                    r = tableau[i][-1] / a
                    if row < 0 or r < ratio - 1e-12 or (r <= ratio + 1e-12 and basis[i] < basis[row]):
                        row, ratio = i, r
            if row < 0:
                return None
            pivot = tableau[row]
            scale = pivot[entering]
            pivot[:] = [x / scale for x in pivot]
            for other in (*tableau[:row], *tableau[row + 1 :], costs):
                factor = other[entering]
                if factor:
                    other[:] = [x - factor * y for x, y in zip(other, pivot, strict=True)]
            basis[row] = entering
        else:
            return None
        for i, v in enumerate(values):
            weights[v] = max(0.0, costs[width + i])
    if not rule.combos:
        # No combination at all: no pool holds a move, and zero weights say so.
        return [0.0] * (rule.top + 1)
    lightest = min(sum(weights[v] for v in c) for c in rule.combos)
    if lightest < 0.5:
        return None
    if lightest < 1.0:
        weights = [w / lightest for w in weights]
    return weights


def value_bound(rule: SearchTables, cards: int, value: int, pool: Sequence[int]) -> int:
    """An upper bound on what can still be cleared from ``cards`` cards worth ``value``,
    ``pool`` counting them by value.

    Each move takes k cards worth exactly ``target`` together, so m more moves need
    m * k cards and m * target of value; the cards left over must then make up the value
    left over, so it lies between the sum of that many smallest and that many largest
    cards (the classic deck: 340 = 17 x 20, yet 17 moves would leave one card worth 0,
    so 48; quads: 11 moves would leave 8 cards worth 10, but its 8 smallest make 12).
    """
    k, target, top = rule.per_move, rule.target, rule.top
    moves = min(cards // k, value // target)
    while moves > 0:
        left, rest = cards - moves * k, value - moves * target
        if left <= 1:
            if (left == 0 and rest == 0) or (left == 1 and rest <= top and pool[rest]):
                break
        else:
            smallest, need = 0, left
            for v in range(1, top + 1):
                if pool[v] >= need:
                    smallest += need * v
                    break
                smallest += pool[v] * v
                need -= pool[v]
            if smallest <= rest:
                largest, need = 0, left
                for v in range(top, 0, -1):
                    if pool[v] >= need:
                        largest += need * v
                        break
                    largest += pool[v] * v
                    need -= pool[v]
                if rest <= largest:
                    break
        moves -= 1
    return moves * k


@dataclass(frozen=True)
class Family:
    """A few fixed dual weight vectors (see ``packing_weights``), packed for a quick minimum.

    Any weights y >= 0 under which every combination weighs at least 1 bound a pool's moves
    by the pool's weight, whatever the pool: the weights need not be optimal for it. So a
    handful of vectors, found once per variant, bound the stock phase's multisets almost as
    tightly as solving the linear program for each (classic: a third fewer states). Weights
    are integers over ``denominator``; ``packed[v]`` holds value v's weight in every vector,
    one field of 1 to 8 bytes each (``code``, as for ``memoryview.cast``), so that one
    multiply-add per value weighs the pool under every vector and the lightest is read off
    the bytes in C.
    """

    denominator: int
    code: Literal["B", "H", "I", "Q"]
    size: int
    packed: tuple[int, ...]

    def weighed(self, pool: Sequence[int]) -> int:
        """The pool's weight under every vector, one field each. Weights add up: the search
        carries a multiset's weight and subtracts each move's (``engine.Move``)."""
        return sum(map(mul, pool, self.packed))

    def lightest(self, weighed: int) -> int:
        """The fewest moves any vector allows a pool of that weight (``weighed``)."""
        return min(memoryview(weighed.to_bytes(self.size, sys.byteorder)).cast(self.code)) // self.denominator


# Random plays sampled for the family, linear programs solved, denominators tried, vectors kept.
FAMILY_PLAYS, FAMILY_SOLVED, FAMILY_DENOMINATOR, FAMILY_KEPT = 12, 30, 24, 6
# The linear programs grow with the combinations (a column each) and are solved in pure
# Python: past this many (the registered variants have at most 85, grid100's, and at most 22
# with a stock) a variant's family is not derived and a root's program not solved, and the
# value-sum bound alone bounds the search, which stays exact, only less pruned.
LP_MAX_COMBOS = 96


def _build_family(variant: Variant) -> Family | None:
    """A variant's family: optimal dual vectors of multisets that random play leaves in its
    first half (the kind of multiset the stock phase spends its states on), the vectors that
    beat the value-sum bound most often first. None unless they beat it on a quarter of
    those multisets: otherwise each bound would pay for the family without saving states (the
    linear program beats it on 17 of 32 such multisets on classic, 0-7 of 30-59 on pairs,
    quads, sum15 and grid). Deterministic (a generator seeded by the variant's name), some
    milliseconds of linear programs once per variant."""
    rule = search_tables_for(variant)
    if not rule.combos or len(rule.combos) > LP_MAX_COMBOS or variant.deck_size <= variant.slots:
        return None  # nothing to weigh, programs too large, or no stock phase to bound
    generator = random.Random(variant.name)
    pools: list[list[int]] = []
    for _ in range(FAMILY_PLAYS):
        pool, play = list(variant.copies), []
        while True:
            fits = [c for c, used in zip(rule.combos, rule.uses, strict=True) if all(pool[v] >= m for v, m in used)]
            if not fits:
                break
            for v in generator.choice(fits):
                pool[v] -= 1
            play.append(list(pool))
        pools += play[: len(play) // 2]
    wins: dict[tuple[Fraction, ...], int] = {}
    solved = pools[:: max(1, len(pools) // FAMILY_SOLVED)]
    for pool in solved:
        weights = packing_weights(variant, pool)
        if weights is None:
            continue
        exact = tuple(Fraction(w).limit_denominator(FAMILY_DENOMINATOR) for w in weights)
        # Rounding may have broken a combination's weight of 1: then the vector is no bound.
        if any(sum(exact[v] for v in combo) < 1 for combo in rule.combos):
            continue
        moves = int(sum(y * c for y, c in zip(exact, pool, strict=True)))
        if moves * rule.per_move < value_bound(rule, sum(pool), sum(v * c for v, c in enumerate(pool)), pool):
            wins[exact] = wins.get(exact, 0) + 1
    family = None
    if wins and sum(wins.values()) * 4 >= len(solved):
        kept = sorted(wins, key=lambda vector: -wins[vector])[:FAMILY_KEPT]
        denominator = lcm(*(y.denominator for vector in kept for y in vector))
        scaled = [[int(y * denominator) for y in vector] for vector in kept]
        # A field holds the heaviest pool's weight: the whole deck's.
        heaviest = max(sum(y * c for y, c in zip(vector, variant.copies, strict=True)) for vector in scaled)
        width = next(width for width in (1, 2, 4, 8) if heaviest < 1 << (8 * width))
        packed = tuple(
            sum(vector[v] << (8 * width * i) for i, vector in enumerate(scaled)) for v in range(rule.top + 1)
        )
        code: Literal["B", "H", "I", "Q"] = "B" if width == 1 else "H" if width == 2 else "I" if width == 4 else "Q"
        family = Family(denominator=denominator, code=code, size=width * len(kept), packed=packed)
    return family


# None is a result too (no family pays): the cache keeps it like any other table.
_families = caches.per_variant("search families", _build_family)


def family_for(variant: Variant) -> Family | None:
    """A variant's family (see ``_build_family``), derived once per variant."""
    return _families(variant)
