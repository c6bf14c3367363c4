"""Variants: the immutable rules of one game (table size, move size, target, card values, deck)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

from triples.model.cards import Card, numeric_deck, standard_deck

# The integer fields, with their least and greatest values: the one set of bounds, checked
# when a variant is made and stated by the refusals of ``triples.model.variants``.
BOUNDS: dict[str, tuple[int, int]] = {
    "slots": (1, 100),
    "per_move": (2, 6),
    "target": (1, 999),
    "top_rank": (1, 50),
    "suits": (1, 4),
}
COURT_BOUNDS = (1, 50)
DECKS = ("standard", "numeric")


@dataclass(frozen=True)
class Variant:
    """The parameters of a game. Play state lives in ``Table``, which refers to one of these.

    A frozen dataclass, checked strictly when made (types exactly, bounds, the deck's kind):
    pydantic's import alone would cost a one-operation batch of the command line more than the
    rest of its start-up. Rule sets a user writes are read, with plain-worded errors, by
    ``triples.model.variants``; this class guards the code that builds rules directly.
    """

    name: str
    slots: int
    per_move: int  # k: cards taken by one move
    target: int
    court: tuple[int, int, int] | None = None  # values of J, Q, K; None for a numeric deck
    deck: Literal["standard", "numeric"] = "standard"
    top_rank: int = 13  # highest rank of a numeric deck
    suits: int = 4  # how many of the suits S, H, D, C the deck has

    def __post_init__(self) -> None:
        if type(self.name) is not str:
            raise TypeError("name must be a string")
        for field_name, (low, high) in BOUNDS.items():
            number = getattr(self, field_name)
            if type(number) is not int:
                raise TypeError(f"{field_name} must be an integer")
            if not low <= number <= high:
                raise ValueError(f"{field_name} must be an integer from {low} to {high}")
        if self.per_move > self.slots:
            raise ValueError(f"per_move ({self.per_move}) must be at most slots ({self.slots})")
        if self.deck not in DECKS:
            raise ValueError('deck must be "standard" or "numeric"')
        if self.court is not None:
            low, high = COURT_BOUNDS
            if type(self.court) is not tuple or len(self.court) != 3 or any(type(v) is not int for v in self.court):
                raise TypeError("court must be a tuple of three integers")
            if not all(low <= v <= high for v in self.court):
                raise ValueError(f"court values must be integers from {low} to {high}")
        if (self.deck == "standard") != (self.court is not None):
            raise ValueError("court values are given exactly when the deck is standard")

    def replace(self, **changes: Any) -> Variant:
        """A copy with ``changes``' fields changed, checked as a new variant. What is derived from
        the fields (the deck, the values, the hash) is derived afresh: a copy keeps none of it."""
        return dataclasses.replace(self, **changes)

    def __hash__(self) -> int:
        # Every cache keys on the variant's value: hashing all the fields on each look-up would
        # cost more than a small search, so the hash is computed once.
        return self.rules_hash

    @cached_property
    def rules_hash(self) -> int:
        return hash(self.fields())

    def fields(self) -> tuple[object, ...]:
        """The rules' values in field order: what equality and the hash compare."""
        return tuple(getattr(self, field.name) for field in dataclasses.fields(self))

    # Derived once per variant and kept in the instance dict (cached_property, which writes past
    # the frozen dataclass's guard): the hot paths read these on every move.
    @cached_property
    def cards(self) -> tuple[Card, ...]:
        """The deck in factory order."""
        if self.deck == "standard":
            return standard_deck(self.suits)
        return numeric_deck(self.top_rank, self.suits)

    @cached_property
    def card_values(self) -> dict[Card, int]:
        """Each card's value in this variant."""
        if self.deck == "numeric":
            return {c: int(c.rank) for c in self.cards}
        assert self.court is not None, "a standard deck needs court values"
        special = {"A": 1, "J": self.court[0], "Q": self.court[1], "K": self.court[2]}
        return {c: special[c.rank] if c.rank in special else int(c.rank) for c in self.cards}

    @cached_property
    def by_code(self) -> dict[str, Card]:
        return {c.code: c for c in self.cards}

    @cached_property
    def deck_size(self) -> int:
        return len(self.cards)

    @cached_property
    def max_value(self) -> int:
        return max(self.card_values.values())

    @cached_property
    def copies(self) -> tuple[int, ...]:
        """How many cards of each value the deck holds, indexed by value (index 0 unused)."""
        counts = [0] * (self.max_value + 1)
        for v in self.card_values.values():
            counts[v] += 1
        return tuple(counts)

    @cached_property
    def cards_of_value(self) -> tuple[tuple[Card, ...], ...]:
        """Each value's cards in factory order, indexed by value (index 0 unused)."""
        by_value: list[list[Card]] = [[] for _ in self.copies]
        for card in self.cards:
            by_value[self.card_values[card]].append(card)
        return tuple(tuple(cards) for cards in by_value)

    @cached_property
    def most_of_a_value(self) -> int:
        """The most cards of one value a table can show at once."""
        return min(self.slots, max(self.copies))

    def value(self, card: Card) -> int:
        return self.card_values[card]

    def card(self, code: str) -> Card | None:
        """The deck's card with this code, or None when the deck has no such card."""
        return self.by_code.get(code)
