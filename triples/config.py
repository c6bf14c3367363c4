"""Variants: the immutable rules of one game (table size, move size, target, card values, deck)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from triples.cards import Card, numeric_deck, standard_deck
from triples.errors import TriplesError


class UnknownVariant(TriplesError):
    """Raised for a variant name that is not registered."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown variant '{name}'")
        self.name = name


class Variant(BaseModel):
    """The parameters of a game. Play state lives in ``Table``, which refers to one of these."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    name: str
    slots: int = Field(ge=1)
    per_move: int = Field(ge=1, description="k: cards taken by one move")
    target: int = Field(ge=1)
    court: tuple[int, int, int] | None = Field(default=None, description="values of J, Q, K; None for a numeric deck")
    deck: Literal["standard", "numeric"] = "standard"
    top_rank: int = Field(default=13, ge=1, description="highest rank of a numeric deck")

    # Derived once per variant: the hot paths index these instead of recomputing.
    _cards: tuple[Card, ...] = PrivateAttr(default=())
    _value: dict[Card, int] = PrivateAttr(default_factory=dict)
    _by_code: dict[str, Card] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: object) -> None:
        if self.deck == "standard":
            self._cards = standard_deck()
            assert self.court is not None, "a standard deck needs court values"
            court = dict(zip(("J", "Q", "K"), self.court, strict=True))
            self._value = {c: 1 if c.rank == "A" else court.get(c.rank) or int(c.rank) for c in self._cards}
        else:
            self._cards = numeric_deck(self.top_rank)
            self._value = {c: int(c.rank) for c in self._cards}
        self._by_code = {c.code: c for c in self._cards}

    @property
    def cards(self) -> tuple[Card, ...]:
        """The deck in factory order."""
        return self._cards

    @property
    def deck_size(self) -> int:
        return len(self._cards)

    @property
    def max_value(self) -> int:
        return max(self._value.values())

    def value(self, card: Card) -> int:
        return self._value[card]

    def card(self, code: str) -> Card | None:
        """The deck's card with this code, or None when the deck has no such card."""
        return self._by_code.get(code)


VARIANTS: dict[str, Variant] = {}
DEFAULT_VARIANT = "classic"


def register(variant: Variant) -> Variant:
    VARIANTS[variant.name] = variant
    return variant


def variant_named(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        raise UnknownVariant(name) from None


register(Variant(name="classic", slots=10, per_move=3, target=20, court=(10, 10, 10)))
register(Variant(name="pairs", slots=9, per_move=2, target=14, court=(11, 12, 13)))
register(Variant(name="quads", slots=12, per_move=4, target=30, court=(10, 10, 10)))
register(Variant(name="sum15", slots=9, per_move=3, target=15, deck="numeric", top_rank=9))
register(Variant(name="grid", slots=12, per_move=3, target=15, deck="numeric", top_rank=9))
register(Variant(name="grid100", slots=100, per_move=3, target=39, deck="numeric", top_rank=25))
