"""The original problems' own interfaces, for people who bring those problems' tests.

Each class follows one original problem (named in its docstring; see docs/compat.md) and is a thin
layer over the engines: no rule is written twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from triples.engines import strategies
from triples.model import rules
from triples.model.deal import MIXED_DECK, deal
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant
from triples.support.errors import TriplesError

# ----------------------------------------------------------------- shared: decks as the texts give them


def deal_deck(variant: Variant, deck: object) -> Table:
    """A table dealt from an explicit deck, top first: plain values (as ``new`` takes them for a
    numeric deck) or card codes.

    A bad deck raises ``ValueError`` carrying the interpreter's message for it, without the
    ``error: `` prefix (``value 5 appears more than 4 times``).
    """
    if not isinstance(deck, list | tuple):
        raise ValueError(MIXED_DECK)
    try:
        return deal(variant, list(deck))
    except TriplesError as exc:
        raise ValueError(str(exc)) from exc


# ----------------------------------------------------------------- the sum-fifteen problem

GREEDY_STRATEGY = "high"


class SumFifteenSolver:
    """The solver of the sum-fifteen problem: can a deck be cleared, by the best line of
    play or by a greedy player?

    A deck is 36 plain values, top first, four each of 1..9 (``[5, 5, 5, 5, 1, 2, ...]``); card
    codes (``5S``) work too. The game is the ``sum15`` variant: 9 face-up cards, a move takes
    three summing to 15, the emptied places refill from the top of the deck. A deck that breaks
    the text's constraints raises ``ValueError`` with the interpreter's message for that deck
    (as ``new`` words them): ``unknown value 10 for variant 'sum15'``, ``value 5 appears more than 4
    times``, ``deck is missing 1 card(s): 7``, or ``deck must be a list of card codes, or of
    values for a numeric deck``.
    """

    variant: ClassVar[Variant] = parse_variant("sum15")

    def can_win_optimal(self, deck: Sequence[int] | Sequence[str]) -> bool:
        """Whether any line of play clears all 36 cards: exact, by ``search.best_cleared``
        (depth-first branch and bound over value histograms, memoised; see docs/search.md)."""
        from triples.engines import search  # the search is only loaded when someone asks for it

        table = deal_deck(self.variant, deck)
        return search.best_cleared(table) == self.variant.deck_size

    def can_win_greedy(self, deck: Sequence[int] | Sequence[str]) -> bool:
        """Whether the greedy player clears all 36 cards: the ``high`` strategy (values high to
        low, largest first; ties to the lowest places), never looking back or at the deck.

        ``high`` is the greedy strategy that wins most often here. On sum15 seeds 1..10,000
        (``python benchmarks/compat.py``): high wins 6,221 deals, lookahead 6,042 (though it
        clears more cards on average, 31.35 against 31.20), first-found 3,870; best play
        (``can_win_optimal``) wins 9,186. The ``fair`` strategy wins more (about 89%), but it
        is no greedy heuristic: it looks ahead over the unseen cards, which the text's greedy
        method by definition does not.
        """
        table = deal_deck(self.variant, deck)
        strategies.play_out(table, strategies.strategy_named(GREEDY_STRATEGY))
        return table.cleared == self.variant.deck_size


# ----------------------------------------------------------------- the card-game-grid problem

GRID_VARIANTS: dict[tuple[int, int], str] = {(3, 4): "grid", (10, 10): "grid100"}


@dataclass(frozen=True, slots=True)
class GridCard:
    """A card as the card-game-grid problem shows it: ``value`` is what sums use."""

    value: int
    suit: str

    @property
    def code(self) -> str:
        return f"{self.value}{self.suit}"

    def __str__(self) -> str:
        return self.code


class CardGame:
    """The game engine of the card-game-grid problem: its methods (``getGrid``,
    ``playMove``, ``getTurnsPlayed``, ``getTargetSum``) in Python spelling.

    ``CardGame(seed)`` deals the 3x4 grid: 36 cards (1..9, four suits), 12 face up, a turn
    takes three positions summing to 15 and refills them from the deck. ``CardGame(seed,
    grid_rows=10, grid_cols=10)`` is the text's optimisation game: 100 cards (1..25), all
    dealt, target 39. ``deck=`` deals an explicit deck instead of a seed (values or codes, top
    first); a seed deals exactly as ``["new", id, seed, "grid"]`` (or ``"grid100"``) does.
    Positions are the interpreter's slots, row by row from 0. ``table`` is the game's
    ``Table``: every rule is the engine's own.
    """

    def __init__(
        self,
        seed: int | None = None,
        *,
        deck: Sequence[int | str] | None = None,
        grid_rows: int = 3,
        grid_cols: int = 4,
    ) -> None:
        name = GRID_VARIANTS.get((grid_rows, grid_cols))
        if name is None:
            raise ValueError(f"no {grid_rows}x{grid_cols} game: the grids are 3x4 and 10x10")
        variant = parse_variant(name)
        self.grid_rows = grid_rows
        self.grid_cols = grid_cols
        if deck is not None:
            if seed is not None:
                raise ValueError("give a seed or a deck, not both")
            self.table = deal_deck(variant, deck)
        else:
            if seed is not None and type(seed) is not int:
                raise TypeError("seed must be an integer")
            self.table = deal(variant, 0 if seed is None else seed)

    def get_grid(self) -> dict[int, GridCard]:
        """Position to card, for the occupied positions only (a fresh dict: changing it changes
        nothing in the game)."""
        values = self.table.values
        return {
            slot: GridCard(values[slot], card.suit) for slot, card in enumerate(self.table.cards) if card is not None
        }

    def play_move(self, positions: Sequence[int]) -> None:
        """Take the cards at three positions. A rejected move raises ``ValueError`` with the
        rules' message (``cards sum to 14, need 15``, ``empty slot``, ...) and changes nothing."""
        named = list(positions) if isinstance(positions, list | tuple) else positions
        try:
            move = rules.check_move(self.table, named)
        except rules.IllegalMove as exc:
            raise ValueError(str(exc)) from exc
        self.table.push(move)

    def has_valid_move(self) -> bool:
        """Whether three cards on the grid sum to the target."""
        return rules.has_legal_move(self.table)

    has_valid_triple = has_valid_move

    def get_turns_played(self) -> int:
        return self.table.cleared // self.table.variant.per_move

    def get_target_sum(self) -> int:
        return self.table.variant.target


class Solver:
    """The solver of the card-game-grid problem over a ``CardGame``.

    - ``find_triple()``: the first valid triple in position order (the text's naive
      enumeration), as a list of three positions, or ``None``; plays nothing.
    - ``play_game()``: plays ``find_triple``'s moves until none is left; returns the game's
      turns played. On the 10x10 game it averages 31.27 turns over seeds 1..1,000 (28 to
      33), the text's own figure.
    - ``play_game_optimized()``: plays the text's histogram lookahead (the ``lookahead``
      strategy: the value triple leaving the most triples on the grid, ties to the smallest
      values, then the lowest positions) to the end; returns the game's turns played. 33, the
      ceiling, on every 10x10 deal.
    """

    def __init__(self, game: CardGame) -> None:
        self.game = game

    def find_triple(self) -> list[int] | None:
        move = strategies.strategy_named("first")(self.game.table)
        return None if move is None else list(move)

    def find_all_triples(self) -> list[list[int]]:
        """Every valid triple, each as sorted positions, in position order."""
        return [list(move) for move in rules.legal_moves(self.game.table)]

    def play_game(self) -> int:
        return self._play_out("first")

    def play_game_optimized(self) -> int:
        return self._play_out("lookahead")

    def _play_out(self, strategy_name: str) -> int:
        strategies.play_out(self.game.table, strategies.strategy_named(strategy_name))
        return self.game.get_turns_played()


# ----------------------------------------------------------------- Uniscraper


class Uniscraper:
    """The games team's pyramid solitaire, Uniscraper (docs/uniscraper.md).

    ``bestRun(config)`` is ``["bestrun", config]``: the positions (1..36) of the longest run
    from the config, in the order they are removed; among the longest, the lexicographically
    smallest list; ``[]`` when no card can be played. An invalid config raises ``ValueError``
    with the interpreter's message for it, without the ``error: `` prefix (``bad config: the
    play card is a dot``); a config that is not a string raises ``TypeError``.
    """

    def bestRun(self, config: str) -> list[int]:
        from triples.games import uniscraper

        if not isinstance(config, str):
            raise TypeError('config must be a string: usage: ["bestrun", config]')
        try:
            return uniscraper.best_run(config)
        except uniscraper.ConfigError as exc:
            raise ValueError(str(exc)) from exc
