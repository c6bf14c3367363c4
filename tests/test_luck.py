"""The audit's arithmetic: surprises of a pool, and the chance that a blind player is this lucky,
against sums worked by hand and a brute-force count over every outcome."""

from __future__ import annotations

import itertools
import math

import pytest

from triples.engines.luck import blind_chance, luck_of


def test_a_pool_as_surprises() -> None:
    luck, surprise = luck_of([0, 3, 6, 3, 0], 3)
    # Margin 6: one of five at least as large; margin 3: three of five.
    assert luck == ((math.log(5), 0.2), (-math.log(3 / 5), 0.4))
    assert surprise == -math.log(3 / 5)
    assert luck_of([0, 0, 3], 0) == (((math.log(3), 1 / 3),), 0.0)
    assert luck_of([0, 0], 0) == ((), 0.0)


def test_nothing_surprising_is_certain_and_an_infinite_surprise_impossible() -> None:
    assert blind_chance([], 0.0) == 1.0
    assert blind_chance([((math.log(5), 0.2),)], 0.0) == 1.0
    assert blind_chance([((math.log(5), 0.2),)], math.inf) == 0.0
    assert blind_chance([], 0.5) == 0.0


def test_one_pool_is_its_own_tail() -> None:
    luck, surprise = luck_of([0, 3, 6, 3, 0], 6)
    assert blind_chance([luck], surprise) == pytest.approx(0.2)
    luck, surprise = luck_of([0, 3, 6, 3, 0], 3)
    assert blind_chance([luck], surprise) == pytest.approx(0.6)


def test_a_deviation_that_was_not_sighted_adds_the_luck_its_pool_held() -> None:
    # The game's surprise is ln 5, the top fifth of the first pool; the second deviation's
    # margin was 0, but a blind player could have had ln 4 or ln 2 there.
    first, surprise = luck_of([0, 3, 6, 3, 0], 6)
    second, none = luck_of([0, 0, 2, 4], 0)
    assert none == 0.0 and second == ((math.log(4), 0.25), (math.log(2), 0.25))
    # Totals reaching ln 5: the first's ln 5 (0.2) whatever the second; the first's ln(5/3)
    # (0.4) with the second's ln 4 (0.25). ln(5/3) + ln 2 and ln 4 alone fall short.
    assert blind_chance([first, second], surprise) == pytest.approx(0.2 + 0.4 * 0.25)
    assert blind_chance([first], surprise) == pytest.approx(0.2)


def brute_force(pools: list[list[int]], margins: list[int]) -> float:
    """P(total surprise >= the game's) over every way the actual orders could fall in the pools."""

    def surprise_of(pool: list[int], margin: int) -> float:
        return luck_of(pool, margin)[1]

    goal = sum(surprise_of(pool, m) for pool, m in zip(pools, margins, strict=True))
    total = 0.0
    for outcome in itertools.product(*[range(len(pool)) for pool in pools]):
        weight = math.prod(1 / len(pool) for pool in pools)
        if sum(surprise_of(pool, pool[i]) for pool, i in zip(pools, outcome, strict=True)) >= goal - 1e-9:
            total += weight
    return total


@pytest.mark.parametrize(
    ("pools", "margins"),
    [
        ([[0, 0, 3, 6], [0, 3, 3, 0, 0]], [6, 3]),
        ([[0, 0, 0, 0, 0, 0, 0, 4], [0, 0, 4, 8], [0, 0, 0, 0, 12]], [4, 0, 12]),
        ([[0, 3], [0, 0, 0, 0, 0, 0, 0, 0, 0, 9]], [3, 9]),
    ],
)
def test_pools_add_up_as_a_count_of_every_outcome_says(pools: list[list[int]], margins: list[int]) -> None:
    lucks = [luck_of(pool, 0)[0] for pool in pools]
    surprise = sum(luck_of(pool, m)[1] for pool, m in zip(pools, margins, strict=True))
    exact = brute_force(pools, margins)
    found = blind_chance(lucks, surprise)
    # Rounding in steps of 0.01 only ever raises the answer, and by little here.
    assert exact - 1e-12 <= found <= exact + 0.05
