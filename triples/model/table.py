"""Play state: face-up slots, the stock, what has been cleared, and a stack of move records.

``push`` and ``pop`` are the unchecked fast path (the search and strategies use them);
``rules.check_move`` is what a user's move goes through first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from triples.model.cards import Card
from triples.model.variant import Variant


class Move(tuple[int, ...]):
    """A move: its slots in increasing order. Hashable; text form ``"0-2-5"`` both ways."""

    __slots__ = ()

    def __new__(cls, slots: Iterable[int]) -> Move:
        return super().__new__(cls, sorted(slots))

    def __str__(self) -> str:
        return "-".join(map(str, self))

    def __repr__(self) -> str:
        return f"Move({list(self)})"

    @classmethod
    def parse(cls, text: str) -> Move:
        return cls(int(part) for part in text.split("-"))


class MoveRecord(NamedTuple):
    """What undo needs: the move, the cards it took (in slot order) and how many slots it refilled."""

    move: Move
    taken: tuple[Card, ...]
    refilled: int


class Table:
    """One game in progress. The deck is kept whole; the stock is the part after ``next_card``."""

    __slots__ = ("_stack", "cards", "cleared", "deck", "deck_values", "next_card", "values", "variant")

    def __init__(self, variant: Variant, deck: Sequence[Card]) -> None:
        if len(deck) != variant.deck_size:
            raise ValueError(f"a {variant.name} deck has {variant.deck_size} cards, not {len(deck)}")
        self.variant = variant
        self.deck: tuple[Card, ...] = tuple(deck)
        values_of = variant.card_values
        self.deck_values: tuple[int, ...] = tuple(values_of[c] for c in self.deck)
        dealt = min(variant.slots, len(self.deck))
        self.cards: list[Card | None] = [*self.deck[:dealt], *[None] * (variant.slots - dealt)]
        self.values: list[int] = [*self.deck_values[:dealt], *[0] * (variant.slots - dealt)]
        self.next_card = dealt
        self.cleared = 0
        self._stack: list[MoveRecord] = []

    @property
    def stock(self) -> tuple[Card, ...]:
        """The stock, top card first."""
        return self.deck[self.next_card :]

    @property
    def stock_size(self) -> int:
        return len(self.deck) - self.next_card

    def codes(self) -> list[str | None]:
        return [None if c is None else c.code for c in self.cards]

    def history(self) -> list[Move]:
        return [record.move for record in self._stack]

    def push(self, move: Move) -> None:
        """Apply a legal move (sorted, distinct, occupied slots): unchecked.

        Refilling in the move's sorted order is what gives the rules' increasing slot order.
        """
        cards, values, deck = self.cards, self.values, self.deck
        taken = tuple(cards[p] for p in move)
        refilled = 0
        for p in move:
            if self.next_card < len(deck):
                cards[p] = deck[self.next_card]
                values[p] = self.deck_values[self.next_card]
                self.next_card += 1
                refilled += 1
            else:
                cards[p] = None
                values[p] = 0
        self.cleared += len(move)
        self._stack.append(MoveRecord(move, taken, refilled))  # type: ignore[arg-type]

    def pop(self) -> Move:
        """Undo the last move exactly; IndexError when there is none."""
        move, taken, refilled = self._stack.pop()
        value = self.variant.card_values
        for p, card in zip(move, taken, strict=True):
            self.cards[p] = card
            self.values[p] = value[card]
        self.next_card -= refilled
        self.cleared -= len(move)
        return move

    def snapshot(self) -> tuple[tuple[str | None, ...], int, int, tuple[Move, ...]]:
        """Everything observable about the game, for comparing states in tests and checks."""
        return tuple(self.codes()), self.next_card, self.cleared, tuple(self.history())
