"""Dealing: a table from a seed, an explicit deck of card codes, or a numeric deck's values.

The interpreter's ``new``, the compatibility layers, ``triples rate``, the benchmarks and the
tests all deal through here, so a deck is parsed and checked one way everywhere.
"""

from __future__ import annotations

from typing import Any

from triples.model.cards import Card
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variant import Variant
from triples.support.digits import abbreviated
from triples.support.errors import TriplesError


class BadDeck(TriplesError):
    """An explicit deck that is not the variant's deck; the message is the one-line error."""


def seeded(variant: Variant, seed: int) -> Table:
    """The seed's deal: the original shuffle of the variant's deck (any integer: the generator
    keeps ``seed mod 2**32``)."""
    return Table(variant, shuffled(variant.cards, seed))


def deal(variant: Variant, seed_or_deck: int | list[Any]) -> Table:
    """A new table from a seed or from an explicit deck (top card first): card codes, or for a
    numeric deck plain values. A bad deck raises ``BadDeck`` with its one-line message."""
    if isinstance(seed_or_deck, int):
        return seeded(variant, seed_or_deck)
    return Table(variant, explicit_deck(variant, seed_or_deck))


def explicit_deck(variant: Variant, items: list[Any]) -> list[Card]:
    """The cards of an explicit deck: card codes, or for a numeric variant plain values
    (docs/operations.md). An empty list counts as codes, so it keeps the code deck's "missing"
    error."""
    if variant.deck == "numeric" and not all(isinstance(item, str) for item in items):
        if not all(type(item) is int for item in items):  # bool is an int subclass, not a value
            raise BadDeck(MIXED_DECK)
        return parse_values(variant, items)
    return parse_deck(variant, items)


def parse_deck(variant: Variant, codes: list[Any]) -> list[Card]:
    """The cards of an explicit deck, which must hold every card of the variant exactly once."""
    cards: list[Card] = []
    seen: set[Card] = set()
    for code in codes:
        if not isinstance(code, str):
            raise BadDeck("deck must be a list of card codes")
        card = variant.card(code)
        if card is None:
            raise BadDeck(f"unknown card '{code}' for variant '{variant.name}'")
        if card in seen:
            raise BadDeck(f"card '{code}' appears twice in the deck")
        seen.add(card)
        cards.append(card)
    missing = [c.code for c in variant.cards if c not in seen]
    if missing:
        raise BadDeck(f"deck is missing {len(missing)} card(s): {' '.join(missing[:5])}")
    return cards


MIXED_DECK = "deck must be a list of card codes, or of values for a numeric deck"


def parse_values(variant: Variant, values: list[int]) -> list[Card]:
    """A numeric deck given as plain values, top first: the n-th copy of a value gets that
    value's n-th card in factory order (suits S, H, D, C), so the first 5 is 5S, the second 5H.

    Checked in the documented order over the whole list: unknown values, then a value given
    too often, then missing values (listed ascending, the first five).
    """
    copies = variant.copies
    for v in values:
        if not 0 < v < len(copies) or not copies[v]:
            raise BadDeck(f"unknown value {abbreviated(v)} for variant '{variant.name}'")  # bounded at any length
    by_value = variant.cards_of_value
    used = [0] * len(copies)
    cards: list[Card] = []
    for v in values:
        if used[v] == copies[v]:
            raise BadDeck(f"value {v} appears more than {copies[v]} times")
        cards.append(by_value[v][used[v]])
        used[v] += 1
    missing = [str(v) for v in range(1, len(copies)) for _ in range(copies[v] - used[v])]
    if missing:
        raise BadDeck(f"deck is missing {len(missing)} card(s): {' '.join(missing[:5])}")
    return cards
