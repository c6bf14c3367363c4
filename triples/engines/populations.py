"""Synthetic players: populations whose skill is known, to measure the audit and calibration with.

A population makes one player per game (``Population.player``): a chooser that is asked for
each move in turn and answers a legal move, or None when it has none. Blind ones see only
what a person sees (the table, and the cards dealt so far); ``solve`` is the player who knows
the deck (a second account played the deal first) and plays a best line from the deal.

- ``random``: a uniformly random legal slot move (as ``p_random`` counts them).
- ``high``, ``lookahead``, ``fair``: the strategies of that name.
- ``high-slips``, ``fair-slips``: the strategy, with a uniformly random move instead a
  quarter (``high``) or a tenth (``fair``) of the time.
- ``mixed``: each move from ``high``, ``lookahead`` or ``fair`` at random, and a random move a
  tenth of the time.

``seen_table`` rebuilds, from what a client of the players' service sees (the cards in the
order they were dealt, and the moves), a table a blind chooser can be asked about: its stock is
the unseen cards in a fixed order, which a blind chooser never reads.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from triples.engines import search, strategies
from triples.model import rules
from triples.model.cards import Card
from triples.model.table import Move, Table
from triples.model.variant import Variant

Chooser = Callable[[Table], "Move | None"]


def random_move(table: Table, rng: random.Random) -> Move | None:
    moves = rules.legal_moves(table)
    return rng.choice(moves) if moves else None


def _strategy(name: str) -> Callable[[Table, random.Random], Chooser]:
    chosen = strategies.strategy_named(name)
    return lambda table, rng: chosen


def _slips(name: str, slip: float) -> Callable[[Table, random.Random], Chooser]:
    chosen = strategies.strategy_named(name)

    def make(table: Table, rng: random.Random) -> Chooser:
        return lambda now: random_move(now, rng) if rng.random() < slip else chosen(now)

    return make


def _random(table: Table, rng: random.Random) -> Chooser:
    return lambda now: random_move(now, rng)


MIXED = ("high", "lookahead", "fair")


def _mixed(table: Table, rng: random.Random) -> Chooser:
    def choose(now: Table) -> Move | None:
        if rng.random() < 0.1:
            return random_move(now, rng)
        return strategies.strategy_named(rng.choice(MIXED))(now)

    return choose


def _solve(table: Table, rng: random.Random) -> Chooser:
    """The best line from the table's position, played move by move."""
    line = iter(search.solve(table)[1])
    return lambda now: next(line, None)


@dataclass(frozen=True)
class Population:
    name: str
    blind: bool
    make: Callable[[Table, random.Random], Chooser]

    def player(self, table: Table, rng: random.Random) -> Chooser:
        """A chooser for the game on ``table`` (at its deal), drawing its chances from ``rng``."""
        return self.make(table, rng)


POPULATIONS: dict[str, Population] = {
    population.name: population
    for population in (
        Population("random", True, _random),
        Population("high", True, _strategy("high")),
        Population("lookahead", True, _strategy("lookahead")),
        Population("fair", True, _strategy("fair")),
        Population("high-slips", True, _slips("high", 0.25)),
        Population("fair-slips", True, _slips("fair", 0.1)),
        Population("mixed", True, _mixed),
        Population("solve", False, _solve),
    )
}
BLIND = tuple(name for name, population in POPULATIONS.items() if population.blind)


def play(population: Population, table: Table, rng: random.Random) -> list[Move]:
    """Play the game on ``table`` to its end with one of the population's players; the moves."""
    choose = population.player(table, rng)
    moves: list[Move] = []
    while (move := choose(table)) is not None:
        table.push(move)
        moves.append(move)
    return moves


def seen_table(variant: Variant, dealt: Sequence[Card], moves: Sequence[Sequence[int]]) -> Table:
    """A table at the position a player sees after ``moves``, from ``dealt``: the cards in the
    order they came face up (the opening table, then each refill in slot order). Its stock is
    every card not dealt yet, in the deck's factory order: right in number, but not the real
    order, so only a blind chooser may be asked about it."""
    shown = set(dealt)
    deck = [*dealt, *(card for card in variant.cards if card not in shown)]
    table = Table(variant, deck)
    for move in moves:
        table.push(Move(move))
    return table
