from __future__ import annotations

from itertools import islice

import pytest

from triples.model.shuffle import lcg_draws, shuffled
from triples.model.variants import parse_variant


@pytest.mark.parametrize(
    ("seed", "draws"),
    [
        pytest.param(0, [15470, 18256, 53708], id="spec-seed-0"),
        pytest.param(2**32, [15470, 18256, 53708], id="seed-2^32-is-seed-0"),
        pytest.param(-(2**32), [15470, 18256, 53708], id="seed-minus-2^32-is-seed-0"),
    ],
)
def test_lcg_draws(seed: int, draws: list[int]) -> None:
    assert list(islice(lcg_draws(seed), 3)) == draws


def test_lcg_draws_are_the_high_half_of_the_state() -> None:
    # From state 1: 1664525 + 1013904223 = 1015568748 = 0x3C88_136C, whose high half is 0x3C88.
    assert next(lcg_draws(1)) == 0x3C88


@pytest.mark.parametrize(
    ("variant", "seed", "table", "stock_top"),
    [
        pytest.param("classic", 0, "9H 9D 10H KH JS 10C 7H 6C KC 10D", "QD AS 5H", id="classic-0"),
        pytest.param("classic", 1, "9D AH 4H 9H 3C 7H 2S 2D AC 7C", "10S 5H 8H", id="classic-1"),
        pytest.param("pairs", 2, "6C 2D 10H AC QH 2S JD QC 6S", "9S 3S KC", id="pairs-2"),
        pytest.param("quads", 3, "3H AS 2S 3C 9C 8H 10H 6D 6C KS JD 2C", "5C JC QC", id="quads-3"),
        pytest.param("sum15", 1, "7S 7C 3C 5D 3S 5S 2S 9S 1D", "1S 4H 3H", id="sum15-1"),
    ],
)
def test_spec_vectors(variant: str, seed: int, table: str, stock_top: str) -> None:
    rules = parse_variant(variant)
    deck = [card.code for card in shuffled(rules.cards, seed)]
    assert deck[: rules.slots] == table.split()
    assert deck[rules.slots : rules.slots + 3] == stock_top.split()


@pytest.mark.parametrize(
    ("seed", "same_as"),
    [
        pytest.param(-1, 2**32 - 1, id="minus-1"),
        pytest.param(2**64, 0, id="2^64"),
        pytest.param(10**30, 10**30 % 2**32, id="10^30"),
        pytest.param(-(10**30), -(10**30) % 2**32, id="minus-10^30"),
    ],
)
def test_seeds_deal_modulo_2_to_the_32(seed: int, same_as: int) -> None:
    cards = parse_variant("classic").cards
    assert shuffled(cards, seed) == shuffled(cards, same_as)


def test_spec_vector_seed_minus_1_starts_with_the_spec_cards() -> None:
    deck = [card.code for card in shuffled(parse_variant("classic").cards, -1)]
    assert deck[:5] == ["7H", "4S", "AS", "JC", "4D"]


def test_shuffled_ten_items_by_hand() -> None:
    # Seed 0's draws 15470, 18256, 53708, ... taken modulo 10, 9, 8, ...: worked out by hand
    # for the first three swaps (j = 0, 4, 4), the rest from the same generator.
    items = list(range(10))
    draws = lcg_draws(0)
    for i in range(9, 0, -1):
        j = next(draws) % (i + 1)
        items[i], items[j] = items[j], items[i]
    assert shuffled(range(10), 0) == items
    assert [15470 % 10, 18256 % 9, 53708 % 8] == [0, 4, 4]


def test_factory_orders() -> None:
    assert [c.code for c in parse_variant("classic").cards[:14]] == [
        "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AH",
    ]  # fmt: skip
    assert [c.code for c in parse_variant("sum15").cards[8:11]] == ["9S", "1H", "2H"]
    assert parse_variant("classic").cards[-1].code == "KC"


def test_shuffled_leaves_input_alone_and_keeps_every_item() -> None:
    items = list(range(52))
    out = shuffled(items, 7)
    assert items == list(range(52))
    assert sorted(out) == items
