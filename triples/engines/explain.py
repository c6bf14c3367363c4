"""Why is this deal hard? Where a line of play falls below the best, and by how much.

The line is the game's own moves from its deal (as ``history`` lists them), then the fair
player's moves (``triples.engines.fair``) from there to the end: on a game just dealt, the fair
player's whole game. At every move the exact best (``triples.engines.search``) is taken before
and after it; the cards a move lost are the drop of the best, which no later play can win
back. For the fair player's moves there is also its own estimate of where its move leads (the
cards it expects to have cleared at the end), which it makes without seeing the stock: where
that estimate is below the best, a player who cannot see the stock cannot count on the best.

A move is **explained** (``Explanation.shortfalls``) when it lost cards, or when it is the fair
player's and its estimate fell below the best; a move that lost cards comes with what the best
line plays instead (the first move of ``solve`` from the position before it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from triples.engines import fair, search
from triples.model import rules
from triples.model.table import Move, Table
from triples.support import deadline

Player = Literal["played", "fair"]

# Estimates are shown to two decimals: two sums of the same floats in another order differ
# in the last bits, and a hundredth of a card is below anything a designer acts on.
DECIMALS = 2


@dataclass(frozen=True)
class Step:
    """One move of the line and what it did to the best."""

    turn: int  # the move's number in the line, from 1 (from the deal, not from the position)
    by: Player  # "played": a move of the game's history; "fair": the fair player's, after them
    move: Move
    cards: tuple[str, ...]  # the cards it took, in slot order
    best_before: int  # the best reachable (cards cleared at the end) before the move
    best_after: int  # and after it
    expected: float | None  # the fair player's estimate of its cleared at the end (its moves only)
    best_move: Move | None  # what the best line plays instead, when this move lost cards
    best_cards: tuple[str, ...] | None

    @property
    def lost(self) -> int:
        """The cards this move lost: the fall of the best, never won back later."""
        return self.best_before - self.best_after

    @property
    def falls_short(self) -> bool:
        """Whether the move lost cards, or is the fair player's and expected less than the best."""
        return self.lost > 0 or (self.expected is not None and self.expected < self.best_before)

    def as_json(self) -> dict[str, Any]:
        best_line = None
        if self.best_move is not None and self.best_cards is not None:
            best_line = {"move": list(self.best_move), "cards": list(self.best_cards)}
        return {
            "turn": self.turn,
            "by": self.by,
            "move": list(self.move),
            "cards": list(self.cards),
            "expected": self.expected,
            "best_before": self.best_before,
            "best_after": self.best_after,
            "lost": self.lost,
            "best_line": best_line,
        }


@dataclass(frozen=True)
class Explanation:
    """The whole line: the best from the deal, what the line cleared, and every move of it."""

    best: int  # the best from the deal
    cleared: int  # what the line has cleared at its end
    played: int  # how many of the steps are the game's own moves (the rest are the fair player's)
    steps: tuple[Step, ...]

    @property
    def lost(self) -> int:
        return self.best - self.cleared

    @property
    def shortfalls(self) -> tuple[Step, ...]:
        """The moves that lost cards, or where the fair player expected less than the best."""
        return tuple(step for step in self.steps if step.falls_short)

    def as_json(self) -> dict[str, Any]:
        """The ``explain`` operation's answer: only the moves that fall short are listed."""
        return {
            "best": self.best,
            "cleared": self.cleared,
            "lost": self.lost,
            "moves": [step.as_json() for step in self.shortfalls],
        }


def explain(table: Table) -> Explanation:
    """The explanation of ``table``'s game: its moves from the deal, then the fair player's to
    the end. ``table`` is left as it is (the line is played on a copy)."""
    line = Table(table.variant, table.deck)
    played = table.history()
    steps: list[Step] = []
    best_now = search.best_cleared(line)
    best = best_now
    for turn in range(1, len(played) + 1 + line.variant.deck_size):  # a line ends within a deck
        deadline.check()
        by: Player = "played" if turn <= len(played) else "fair"
        expected: float | None = None
        if by == "played":
            move = played[turn - 1]
        else:
            choice = fair.choose(line)
            if choice.combo is None:
                break
            move = rules.first_slots(choice.combo, rules.slots_by_value(line.values))
            expected = expected_cleared(line, choice, best_now)
        cards = tuple(line.cards[slot].code for slot in move)  # type: ignore[union-attr]
        instead: Move | None = None
        instead_cards: tuple[str, ...] | None = None
        line.push(move)
        best_after = search.best_cleared(line)
        if best_after < best_now:
            line.pop()
            _, best_line = search.solve(line)
            instead = best_line[0]
            instead_cards = tuple(line.cards[slot].code for slot in instead)  # type: ignore[union-attr]
            line.push(move)
        steps.append(Step(turn, by, move, cards, best_now, best_after, expected, instead, instead_cards))
        best_now = best_after
    return Explanation(best, line.cleared, len(played), tuple(steps))


def expected_cleared(table: Table, choice: fair.Choice, best_now: int) -> float | None:
    """The fair player's estimate of the cards it will have cleared at the end once it has
    played ``choice`` from ``table``: with nothing unseen the best itself (it sees everything);
    with few unseen the exact expectation; with more the mean, over its sampled stock orders,
    of the best from each. None where it made none: a forced move, or pairs (where every move
    is worth the same)."""
    table_counts, unseen_counts = fair.seen_counts(table)
    if sum(unseen_counts) == 0:
        return float(best_now)
    if choice.combo is None or not choice.scores:
        return None
    candidates = fair.playable(table.variant, table_counts)
    score = choice.scores[candidates.index(choice.combo)]
    if score is None:  # never for the chosen candidate; kept for the type
        return None
    per_line = score if choice.exact else score / fair.DEFAULT_SAMPLES
    return round(table.cleared + per_line, DECIMALS)
