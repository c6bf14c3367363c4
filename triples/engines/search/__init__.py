"""Exact best score: a branch-and-bound search over (stock position, values on the table).

This package's face: ``best_cleared``, ``solve``, ``analyse``, ``analyse_values``,
``FixedDeck``, ``slot_line``, ``packing_weights`` and ``ensure_room``. Inside: ``layouts``
(the two packings of a table's value counts), ``bounds`` (the value-sum bound, the linear
program and the bound families), ``kit`` (what every search of a variant shares), ``engine``
(the search and its stock phase), ``dive`` (its first incumbents), ``packing`` (the phase after
the stock), ``room`` (stack room, safe under threads).

It is a depth-first search that keeps the best line found so far (the incumbent), cuts every
state whose upper bound cannot beat it, and stops outright once the incumbent reaches the
starting position's bound. The bound (``bounds.value_bound``: cards left and the value-sum argument;
on classic also a few fixed dual weight vectors, ``bounds.Family``) depends only on the multiset of
cards not yet cleared, so it is remembered per multiset across states and deals. Moves are
value combinations, one per distinct combination, never slot combinations. The first line
tried, the dive (always the first playable combination, high cards first), runs before the
search without its memo and bounds: when it reaches the bound the search is skipped. A search
that keeps no line (``FixedDeck``) whose bound is every card left tries a second line when the
dive misses it, the freest (each turn the combination leaving the most playable), before
searching; such searches also share one memo of the phase after the stock per variant.

Slots and suits never change a score, so a state is the stock position plus how many cards of
each value lie on the table, packed into one int, two ways. While the stock lasts the counts
are binary fields (``layouts.SearchTables.offsets``) with the stock position above: a move changes the key
by constants (minus the combination's delta, plus the refill's cards and the position's step),
and one subtraction against guard bits tells whether a combination is playable. Once the stock
is empty the packing phase uses a unary layout, ``key``: value v owns a field of ``width`` bits
in which its count c is the c lowest bits set, so that taking one card flips one bit. The key
is the memo key; the two layouts' positions never overlap.

The memo holds what a state can still clear, independent of how it was reached. Entries are
always true upper bounds; the low bit says whether the bound is also the exact value. A
subtree cut short by the incumbent yields a bound only, so the answer stays exact however the
memo is reused. While the stock lasts, cleared is a function of the state (every dealt card is
cleared or on the table); in the packing phase it is not (a card set aside is not cleared), and
a memo shared by several roots (``FixedDeck``) holds states no walk of this root reached. So
an exact entry used without walking it raises the incumbent when it beats it, and the line is
completed afterwards from that state (``_Search.improve_through``, ``_Search.line_from``).

Once the stock is empty the order of moves no longer matters: any set of disjoint
combinations can be played in any order. There the search packs instead: it takes the smallest
value left and either puts it in a combination with values no smaller, or sets one card of it
aside for good, so each packing is generated once rather than once per ordering; cards no
playable combination can use are dropped first. grid100, which deals everything at once, is all
packing, and a one-step lookahead greedy line (each turn, the combination that leaves the most
playable combinations) is the incumbent there: on fresh grid100 deals it reaches the bound, 99.

``solve`` turns the value line into slots afterwards (``slot_line``).
"""

from __future__ import annotations

from collections.abc import Sequence

from triples.engines.search.bounds import packing_weights
from triples.engines.search.engine import SearchResult, _Search
from triples.engines.search.room import NoRoom, ensure_room
from triples.model.derived import Combo
from triples.model.rules import first_slots, slots_by_value
from triples.model.table import Move, Table
from triples.model.variant import Variant

__all__ = [
    "FixedDeck",
    "NoRoom",
    "SearchResult",
    "analyse",
    "analyse_values",
    "best_cleared",
    "ensure_room",
    "packing_weights",
    "slot_line",
    "solve",
]


def analyse(table: Table) -> SearchResult:
    """Search the table's position to the end. Reads the table only; never changes it."""
    ensure_room(len(table.deck_values))
    searcher = _Search(table.variant, table.deck_values)
    searcher.root(table.values, table.next_card, table.cleared)
    return searcher.run()


def analyse_values(variant: Variant, values: Sequence[int], deck: Sequence[int], next_card: int) -> SearchResult:
    """``analyse`` for a position given as values: ``values`` on the table (0 for an empty
    slot), the stock ``deck[next_card:]``, nothing cleared yet."""
    ensure_room(len(deck) - next_card + len(values))
    searcher = _Search(variant, deck)
    searcher.root(values, next_card, 0)
    return searcher.run()


class FixedDeck:
    """Exact best scores of many positions over one deck order, sharing one memo: the fair
    player scores every candidate move on the same sampled order of the unseen cards, and
    their positions lie in that one deck's state space."""

    def __init__(self, variant: Variant, deck: Sequence[int], packed: dict[int, int] | None = None) -> None:
        """``deck`` holds values, top first; positions index into it. ``packed``, when given, is
        the memo of the phase after the stock, where a state's worth depends on the table
        alone; by default the variant's own, shared by every deck (the fair player's orders)."""
        self._search = _Search(variant, deck, lines=False, packed=packed)

    def best_gain(self, values: Sequence[int], next_card: int) -> int:
        """The most cards any line clears from the position with ``values`` on the table (0 for
        an empty slot) and the stock ``deck[next_card:]``."""
        searcher = self._search
        searcher.root(values, next_card, 0)
        ensure_room(searcher.size - next_card + len(values))
        return searcher.run().best

    def upper_bound(self, values: Sequence[int], next_card: int) -> int:
        """A bound on ``best_gain`` of that position without searching: it depends only on the
        cards not yet cleared (on the table and in the stock, in any order), so it holds for
        the same cards over any deck order."""
        searcher = self._search
        searcher.root(values, next_card, 0)
        searcher.root_cap()
        return searcher.cap

    def reaches(self, values: Sequence[int], next_card: int, goal: int) -> bool:
        """Whether some line clears at least ``goal`` cards from that position. Cheaper than
        ``best_gain`` when it is not: starting from an incumbent of ``goal - 1`` cuts every
        state that cannot reach the goal."""
        searcher = self._search
        searcher.root(values, next_card, 0)
        searcher.best = max(searcher.best, goal - 1)
        ensure_room(searcher.size - next_card + len(values))
        return searcher.run().best >= goal


def best_cleared(table: Table) -> int:
    """The largest total cleared that any line of play reaches from here (``["best", id]``)."""
    return analyse(table).best


def solve(table: Table) -> tuple[int, list[Move]]:
    """``best`` and one line of slot moves reaching it, played in order from here."""
    result = analyse(table)
    return result.best, slot_line(table, result.line)


def slot_line(table: Table, line: Sequence[Combo]) -> list[Move]:
    """The slot moves that play ``line``'s value combinations from the table's position.

    Refills change which slot holds which value, so the line is played on the table itself
    (each combination takes the lowest slots holding its values, ``Table.push`` refills) and
    then taken back move by move, leaving the table exactly as it was.
    """
    moves: list[Move] = []
    try:
        for combo in line:
            move = first_slots(combo, slots_by_value(table.values))
            table.push(move)
            moves.append(move)
    finally:
        for _ in moves:
            table.pop()
    return moves
