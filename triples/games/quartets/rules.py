"""The size of a Quartets game, and its errors."""

from __future__ import annotations

from dataclasses import dataclass
from string import ascii_uppercase

from triples.support.errors import TriplesError

NOBODY = -1  # no player: a card not seated in the matching, a turn once the game is over


class QuartetsError(TriplesError):
    """An action list that is not a game: the message names the action and the broken rule."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"action {number}: {reason}")
        self.number = number
        self.reason = reason


class IllegalAction(Exception):
    """Raised for the action being applied; ``Referee`` adds the action's number."""


@dataclass(frozen=True)
class QuartetsRules:
    """The size of a game: ``players`` hands of ``hand_size`` cards, together every card of
    ``sets`` sets of ``cards_per_set``. Players and sets are numbered from 1, the cards of a
    set lettered from A."""

    players: int = 4
    sets: int = 8
    cards_per_set: int = 4
    hand_size: int = 8

    def __post_init__(self) -> None:
        if self.players < 2 or self.sets < 1 or not 1 <= self.cards_per_set <= len(ascii_uppercase):
            raise ValueError("a game needs two players and sets of 1 to 26 cards")
        if self.players * self.hand_size != self.cards:
            raise ValueError("the hands must hold every card")

    @property
    def cards(self) -> int:
        return self.sets * self.cards_per_set

    def card_label(self, card: int) -> str:
        return f"{card // self.cards_per_set + 1}{ascii_uppercase[card % self.cards_per_set]}"

    def set_of(self, card: int) -> int:
        return card // self.cards_per_set

    def cards_of(self, set_index: int) -> range:
        return range(set_index * self.cards_per_set, (set_index + 1) * self.cards_per_set)


DEFAULT_RULES = QuartetsRules()
