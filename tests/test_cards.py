from __future__ import annotations

import pytest

from triples.model.cards import Card, numeric_deck, standard_deck


@pytest.mark.parametrize(
    ("code", "rank", "suit"),
    [("10H", "10", "H"), ("QS", "Q", "S"), ("AD", "A", "D"), ("25C", "25", "C")],
    ids=["ten", "court", "ace", "numeric"],
)
def test_parse_and_format_round_trip(code: str, rank: str, suit: str) -> None:
    card = Card.parse(code)
    assert (card.rank, card.suit) == (rank, suit)
    assert card.code == code
    assert str(card) == code


@pytest.mark.parametrize("code", ["", "H", "10X", "Q"], ids=["empty", "suit-only", "bad-suit", "rank-only"])
def test_parse_rejects_codes_without_a_suit(code: str) -> None:
    with pytest.raises(ValueError, match="unknown card"):
        Card.parse(code)


def test_cards_are_values() -> None:
    assert Card("Q", "S") == Card.parse("QS")
    assert len({Card("Q", "S"), Card.parse("QS")}) == 1


def test_standard_deck_factory_order() -> None:
    deck = [c.code for c in standard_deck()]
    assert len(deck) == 52
    assert deck[:14] == ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS", "QS", "KS", "AH"]
    assert deck[-1] == "KC"
    assert len(set(deck)) == 52


def test_numeric_deck_factory_order() -> None:
    deck = [c.code for c in numeric_deck(9)]
    assert len(deck) == 36
    assert deck[:10] == ["1S", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "1H"]
    assert deck[-1] == "9C"
    assert [c.code for c in numeric_deck(25)][-1] == "25C"
