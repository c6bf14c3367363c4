"""Quartets action lines, and the contest format that carries them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from triples.games.quartets.rules import IllegalAction, QuartetsRules
from triples.support.errors import TriplesError

_NUMBER = re.compile(r"[0-9]+", re.ASCII)
_CARD = re.compile(r"[0-9]+[A-Z]", re.ASCII)
ACTION_SHAPES = "'x A y sk yes', 'x A y sk no' or 'x Q s'"


class ContestFormatError(TriplesError):
    """Contest input whose layout is wrong (the count line, the number of lines)."""


@dataclass(frozen=True)
class Ask:
    """``asker A target card yes|no``; players and cards as 0-based indices."""

    asker: int
    target: int
    card: int
    handed_over: bool


@dataclass(frozen=True)
class ShowQuartet:
    """``player Q set``."""

    player: int
    set_index: int


Action = Ask | ShowQuartet


class ActionReader:
    """Parses action lines of one game size: tokens separated by single spaces."""

    def __init__(self, rules: QuartetsRules) -> None:
        self.players = {str(p + 1): p for p in range(rules.players)}
        self.sets = {str(s + 1): s for s in range(rules.sets)}
        self.cards = {rules.card_label(c): c for c in range(rules.cards)}

    def parse(self, line: str) -> Action:
        tokens = line.split(" ")
        if len(tokens) == 5 and tokens[1] == "A" and tokens[4] in ("yes", "no"):
            asker, target = self.player(tokens[0]), self.player(tokens[2])
            return Ask(asker, target, self.card(tokens[3]), tokens[4] == "yes")
        if len(tokens) == 3 and tokens[1] == "Q":
            player = self.player(tokens[0])
            set_index = self.sets.get(tokens[2])
            if set_index is None:
                raise IllegalAction(self.unknown("set", tokens[2], _NUMBER))
            return ShowQuartet(player, set_index)
        raise IllegalAction(f"not an action: expected {ACTION_SHAPES}")

    def player(self, token: str) -> int:
        player = self.players.get(token)
        if player is None:
            raise IllegalAction(self.unknown("player", token, _NUMBER))
        return player

    def card(self, token: str) -> int:
        card = self.cards.get(token)
        if card is None:
            raise IllegalAction(self.unknown("card", token, _CARD))
        return card

    @staticmethod
    def unknown(kind: str, token: str, shape: re.Pattern[str]) -> str:
        if shape.fullmatch(token):
            return f"{kind} {token} does not exist"
        return f"not an action: expected {ACTION_SHAPES}"


def read_contest(text: str) -> list[str]:
    """The action lines of the contest format: a count line, then that many actions (tokens
    separated by any whitespace; blank lines at the end are ignored)."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise ContestFormatError("empty input: expected the number of actions on the first line")
    count = lines[0].strip()
    if not _NUMBER.fullmatch(count):
        raise ContestFormatError("the first line must be the number of actions")
    expected, given = int(count), len(lines) - 1
    if expected != given:
        raise ContestFormatError(f"{expected} actions announced, {given} given")
    return [" ".join(line.split()) for line in lines[1:]]
