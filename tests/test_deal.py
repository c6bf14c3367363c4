from __future__ import annotations

import pytest

from triples.model.deal import MIXED_DECK, BadDeck, deal, seeded
from triples.model.shuffle import shuffled
from triples.model.variant import Variant
from triples.model.variants import parse_variant


def codes(deck: object) -> list[str]:
    return [card.code for card in deck]  # type: ignore[attr-defined]


CLASSIC_CODES = codes(parse_variant("classic").cards)  # factory order: AS 2S ... KS AH ... KC


def test_a_seed_deals_the_original_shuffle() -> None:
    classic = parse_variant("classic")
    assert seeded(classic, 0).codes() == ["9H", "9D", "10H", "KH", "JS", "10C", "7H", "6C", "KC", "10D"]
    assert deal(classic, 7).deck == tuple(shuffled(classic.cards, 7))
    assert seeded(classic, -1).deck == seeded(classic, 2**32 - 1).deck


def test_an_explicit_deck_of_codes_or_values() -> None:
    sum15 = parse_variant("sum15")
    values = [v for v in range(9, 0, -1) for _ in range(4)]
    table = deal(sum15, values)
    assert codes(table.deck[:5]) == ["9S", "9H", "9D", "9C", "8S"]
    assert deal(sum15, codes(table.deck)).deck == table.deck


@pytest.mark.parametrize(
    ("variant", "deck", "message"),
    [
        ("classic", [1, 2], "deck must be a list of card codes"),
        ("sum15", [1, "2S"], MIXED_DECK),
        ("sum15", [10] * 36, "unknown value 10 for variant 'sum15'"),
        ("sum15", [5] * 5, "value 5 appears more than 4 times"),
        ("sum15", [5, 5, 5, 5], "deck is missing 32 card(s): 1 1 1 1 2"),
        ("classic", ["ZZ"], "unknown card 'ZZ' for variant 'classic'"),
        ("classic", ["AS", "AS"], "card 'AS' appears twice in the deck"),
        # A deck of codes missing cards names how many and the first five, in factory order.
        ("classic", CLASSIC_CODES[7:], "deck is missing 7 card(s): AS 2S 3S 4S 5S"),
        ("classic", CLASSIC_CODES[:-1], "deck is missing 1 card(s): KC"),
        ("classic", CLASSIC_CODES[:20:2] + CLASSIC_CODES[20:], "deck is missing 10 card(s): 2S 4S 6S 8S 10S"),
        ("classic", [], "deck is missing 52 card(s): AS 2S 3S 4S 5S"),
    ],
)
def test_a_bad_deck_is_one_line_of_error(variant: str, deck: list[object], message: str) -> None:
    with pytest.raises(BadDeck) as raised:
        deal(parse_variant(variant), deck)
    assert str(raised.value) == message


def test_the_mixed_deck_message_is_the_documented_one() -> None:
    # The interpreter's answer quotes it (docs/operations.md): the words are the contract.
    assert MIXED_DECK == "deck must be a list of card codes, or of values for a numeric deck"


def test_fewer_suits_deal_from_the_first_suits_in_factory_order() -> None:
    two = Variant(name="two", slots=3, per_move=2, target=5, deck="numeric", top_rank=3, suits=2)
    assert codes(two.cards) == ["1S", "2S", "3S", "1H", "2H", "3H"]
    one = Variant(name="one", slots=20, per_move=2, target=5, court=(11, 12, 13), suits=1)
    table = seeded(one, 4)
    assert table.codes()[13:] == [None] * 7 and table.stock_size == 0  # all dealt, slots past it empty
    assert sorted(codes(table.deck)) == sorted(codes(one.cards))
    assert deal(two, [1, 1, 2, 2, 3, 3]).codes() == ["1S", "1H", "2S"]
