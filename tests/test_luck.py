"""The audit's arithmetic: surprises of a pool, and the chance that a blind player is this lucky,
against sums worked by hand and a brute-force count over every outcome."""

from __future__ import annotations

import itertools
import math

import pytest

from triples.engines.luck import blind_chance, gamma_tail, luck_of


def test_a_pool_as_surprises() -> None:
    luck, surprise = luck_of([0, 3, 6, 3, 0], 3)
    # Margin 6: one of five at least as large; margin 3: three of five.
    assert luck == ((math.log(5), 0.2), (-math.log(3 / 5), 0.4))
    assert surprise == -math.log(3 / 5)
    assert luck_of([0, 0, 3], 0) == (((math.log(3), 1 / 3),), 0.0)
    assert luck_of([0, 0], 0) == ((), 0.0)


def test_gamma_tails() -> None:
    assert gamma_tail(0, 0.5) == 0.0 and gamma_tail(0, 0.0) == 1.0 and gamma_tail(3, -1.0) == 1.0
    assert gamma_tail(1, 2.0) == math.exp(-2.0)
    assert gamma_tail(3, 2.0) == pytest.approx(math.exp(-2.0) * (1 + 2.0 + 2.0), rel=1e-12)


def test_nothing_surprising_is_certain_and_an_infinite_surprise_impossible() -> None:
    assert blind_chance([], [], 0.0) == 1.0
    assert blind_chance([((math.log(5), 0.2),)], [0.5], 0.0) == 1.0
    assert blind_chance([((math.log(5), 0.2),)], [], math.inf) == 0.0


def test_one_pool_is_its_own_tail() -> None:
    luck, surprise = luck_of([0, 3, 6, 3, 0], 6)
    assert blind_chance([luck], [], surprise) == pytest.approx(0.2)
    luck, surprise = luck_of([0, 3, 6, 3, 0], 3)
    assert blind_chance([luck], [], surprise) == pytest.approx(0.6)


def test_a_chance_holds_at_most_an_exponential_tail() -> None:
    # With chance 0.1 a deviation adds ln 10 plus an exponential: P(total >= ln 100) = 0.01,
    # up to the rounding of the shift up and of the goal down, in steps of 0.01.
    shift, goal = math.ceil(math.log(10) / 0.01), math.floor(math.log(100) / 0.01)
    assert blind_chance([], [0.1], math.log(100)) == pytest.approx(0.1 * math.exp(-(goal - shift) * 0.01), rel=1e-12)
    assert 0.01 < blind_chance([], [0.1], math.log(100)) < 0.0102
    # Below its own shift a chance is worth itself.
    assert blind_chance([], [0.1], 1.0) == pytest.approx(0.1)


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
    found = blind_chance(lucks, [], surprise)
    # Rounding in steps of 0.01 only ever raises the answer, and by little here.
    assert exact - 1e-12 <= found <= exact + 0.05
