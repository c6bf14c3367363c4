"""Card values: a card is a rank and a suit, written rank-then-suit (``10H``, ``QS``, ``7C``)."""

from __future__ import annotations

from dataclasses import dataclass, field

SUITS: tuple[str, ...] = ("S", "H", "D", "C")  # factory order (the original deal: docs/game.md)
STANDARD_RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@dataclass(frozen=True, slots=True)
class Card:
    """One playing card. ``code`` is derived once, since every table output needs it."""

    rank: str
    suit: str
    code: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "code", self.rank + self.suit)

    def __str__(self) -> str:
        return self.code

    @classmethod
    def parse(cls, code: str) -> Card:
        """Split a code into rank and suit; the rank is checked by the deck that uses it."""
        if len(code) < 2 or code[-1] not in SUITS:
            raise ValueError(f"unknown card '{code}'")
        return cls(code[:-1], code[-1])


def standard_deck(suits: int = 4) -> tuple[Card, ...]:
    """The standard cards in factory order: the first ``suits`` of S, H, D, C, each ace to king."""
    return tuple(Card(rank, suit) for suit in SUITS[:suits] for rank in STANDARD_RANKS)


def numeric_deck(top: int, suits: int = 4) -> tuple[Card, ...]:
    """Ranks 1..top in each of the first ``suits`` suits, factory order (``1S 2S ... 1H ...``)."""
    return tuple(Card(str(rank), suit) for suit in SUITS[:suits] for rank in range(1, top + 1))
