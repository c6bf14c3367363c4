from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement

import pytest

from triples.config import Variant
from triples.expectimax import Expectimax, ExpectimaxWin


def literal_expected(variant: Variant, table: tuple[int, ...], unseen: tuple[int, ...]) -> float:
    """Optimal expected cards cleared, by the definition: refill the table from the unseen
    cards one uniformly random card at a time, then take the best combination, recursively."""
    k, target, slots = variant.per_move, variant.target, variant.slots

    @cache
    def value(table: tuple[int, ...], unseen: tuple[int, ...]) -> float:
        if unseen and len(table) < slots:
            return sum(
                value(tuple(sorted((*table, v))), unseen[:i] + unseen[i + 1 :]) for i, v in enumerate(unseen)
            ) / len(unseen)
        best = 0.0
        for combo in set(combinations_with_replacement(sorted(set(table)), k)):
            if sum(combo) == target and all(table.count(v) >= combo.count(v) for v in combo):
                left = list(table)
                for v in combo:
                    left.remove(v)
                best = max(best, k + value(tuple(left), unseen))
        return best

    return value(tuple(sorted(table)), tuple(sorted(unseen)))


def small_variants() -> list[Variant]:
    rng = random.Random(11)
    out = []
    while len(out) < 12:
        suits, top, k = rng.randint(1, 3), rng.randint(2, 5), rng.randint(2, 3)
        if suits * top < 6:
            continue
        slots = rng.randint(k, 4)
        target = rng.randint(k + 1, k * top - 1)
        out.append(
            Variant(name="small", slots=slots, per_move=k, target=target, deck="numeric", top_rank=top, suits=suits)
        )
    return out


@pytest.mark.parametrize("variant", small_variants(), ids=lambda v: f"{v.suits}x{v.top_rank}-k{v.per_move}-t{v.target}")
def test_the_expectimax_is_the_literal_recursion(variant: Variant) -> None:
    deck = variant.copies
    empty = [0] * len(deck)
    expected = literal_expected(variant, (), tuple(v for v in range(1, len(deck)) for _ in range(deck[v])))
    assert Expectimax(variant).expected(empty, deck) == pytest.approx(expected, abs=1e-9)
    assert ExpectimaxWin(variant).from_deal().real == pytest.approx(expected, abs=1e-9)
