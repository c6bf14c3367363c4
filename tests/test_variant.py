from __future__ import annotations

import dataclasses

import pytest

from triples.model.cards import Card
from triples.model.variant import Variant
from triples.model.variants import VARIANTS, UnknownVariant, parse_variant


@pytest.mark.parametrize(
    ("name", "slots", "k", "target", "deck_size", "max_value"),
    [
        ("classic", 10, 3, 20, 52, 10),
        ("pairs", 9, 2, 14, 52, 13),
        ("quads", 12, 4, 30, 52, 10),
        ("sum15", 9, 3, 15, 36, 9),
        ("grid", 12, 3, 15, 36, 9),
        ("grid100", 100, 3, 39, 100, 25),
    ],
    ids=lambda v: str(v),
)
def test_registered_variants(name: str, slots: int, k: int, target: int, deck_size: int, max_value: int) -> None:
    variant = parse_variant(name)
    assert (variant.name, variant.slots, variant.per_move, variant.target) == (name, slots, k, target)
    assert (variant.deck_size, variant.max_value) == (deck_size, max_value)


def test_registry_holds_exactly_the_six_variants() -> None:
    assert sorted(VARIANTS) == ["classic", "grid", "grid100", "pairs", "quads", "sum15"]


@pytest.mark.parametrize(
    ("variant", "code", "value"),
    [
        ("classic", "AS", 1),
        ("classic", "10D", 10),
        ("classic", "JC", 10),
        ("classic", "KH", 10),
        ("pairs", "JC", 11),
        ("pairs", "QC", 12),
        ("pairs", "KC", 13),
        ("pairs", "7H", 7),
        ("quads", "QS", 10),
        ("grid100", "25S", 25),
        ("sum15", "1H", 1),
    ],
    ids=lambda v: str(v),
)
def test_card_values(variant: str, code: str, value: int) -> None:
    v = parse_variant(variant)
    card = v.card(code)
    assert card == Card.parse(code)
    assert v.value(card) == value


@pytest.mark.parametrize(("variant", "code"), [("classic", "1H"), ("sum15", "10H"), ("sum15", "JH"), ("classic", "ZZ")])
def test_cards_outside_a_deck_are_unknown(variant: str, code: str) -> None:
    assert parse_variant(variant).card(code) is None


def test_unknown_variant_message() -> None:
    with pytest.raises(UnknownVariant, match=r"^unknown variant 'nope'$"):
        parse_variant("nope")


def test_variant_is_frozen() -> None:
    v = parse_variant("classic")
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.slots = 5  # type: ignore[misc]


GOOD = {"name": "x", "slots": 3, "per_move": 2, "target": 5, "court": (10, 10, 10)}


@pytest.mark.parametrize(
    ("fields", "error", "message"),
    [
        pytest.param({"slots": "10"}, TypeError, "slots must be an integer", id="slots-text"),
        pytest.param({"target": True}, TypeError, "target must be an integer", id="target-bool"),
        pytest.param({"per_move": 2.0}, TypeError, "per_move must be an integer", id="per-move-float"),
        pytest.param({"slots": 0}, ValueError, "slots must be an integer from 1 to 100", id="slots-zero"),
        pytest.param({"slots": 101}, ValueError, "slots must be an integer from 1 to 100", id="slots-past-100"),
        pytest.param({"per_move": 1}, ValueError, "per_move must be an integer from 2 to 6", id="per-move-one"),
        pytest.param(
            {"per_move": 4, "slots": 3}, ValueError, "per_move (4) must be at most slots (3)", id="per-move-past-slots"
        ),
        pytest.param({"target": 1000}, ValueError, "target must be an integer from 1 to 999", id="target-past-999"),
        pytest.param({"suits": 5}, ValueError, "suits must be an integer from 1 to 4", id="five-suits"),
        pytest.param({"top_rank": -1}, ValueError, "top_rank must be an integer from 1 to 50", id="top-rank-negative"),
        pytest.param({"court": (10, 10, 51)}, ValueError, "court values must be integers from 1 to 50", id="court-51"),
        pytest.param({"name": 7}, TypeError, "name must be a string", id="name-int"),
        pytest.param({"deck": "tarot"}, ValueError, 'deck must be "standard" or "numeric"', id="deck-unknown"),
        pytest.param({"court": [10, 10, 10]}, TypeError, "court must be a tuple of three integers", id="court-list"),
        pytest.param({"court": (10, 10)}, TypeError, "court must be a tuple of three integers", id="court-two"),
        pytest.param({"court": (10, 10, "K")}, TypeError, "court must be a tuple of three integers", id="court-text"),
        pytest.param(
            {"deck": "standard", "court": None},
            ValueError,
            "court values are given exactly when the deck is standard",
            id="standard-without-court",
        ),
        pytest.param(
            {"deck": "numeric"},
            ValueError,
            "court values are given exactly when the deck is standard",
            id="numeric-with-court",
        ),
    ],
)
def test_variant_is_strict(fields: dict[str, object], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        Variant(**{**GOOD, **fields})  # type: ignore[arg-type]
    assert str(raised.value) == message
    with pytest.raises(error):
        parse_variant("classic").replace(**fields)


@pytest.mark.parametrize(
    ("name", "copies", "most"),
    [
        pytest.param("classic", (0, 4, 4, 4, 4, 4, 4, 4, 4, 4, 16), 10, id="classic-courts-are-tens"),
        pytest.param("pairs", (0, *[4] * 13), 4, id="pairs"),
        pytest.param("sum15", (0, *[4] * 9), 4, id="sum15"),
        pytest.param("grid100", (0, *[4] * 25), 4, id="grid100"),
    ],
)
def test_value_copies_in_the_deck(name: str, copies: tuple[int, ...], most: int) -> None:
    variant = parse_variant(name)
    assert variant.copies == copies
    assert variant.most_of_a_value == most


def test_cards_of_a_value_in_factory_order() -> None:
    sum15, classic = parse_variant("sum15"), parse_variant("classic")
    assert [c.code for c in sum15.cards_of_value[5]] == ["5S", "5H", "5D", "5C"]
    assert sum15.cards_of_value[0] == ()
    assert [c.code for c in classic.cards_of_value[10]][:5] == ["10S", "JS", "QS", "KS", "10H"]
    assert len(classic.cards_of_value[10]) == 16


def test_a_copy_with_other_rules_derives_its_deck_and_hash_afresh() -> None:
    from triples.model.variants import parse_variant

    sum15 = parse_variant("sum15")
    assert len(sum15.cards) == 36 and hash(sum15)  # derived and kept on the original
    smaller = sum15.replace(top_rank=5, target=9)
    assert len(smaller.cards) == 20 and smaller.copies == (0, 4, 4, 4, 4, 4)
    assert hash(smaller) != hash(sum15) and smaller != sum15
    assert hash(sum15.replace()) == hash(sum15) and sum15.replace() == sum15 and sum15.replace() is not sum15
