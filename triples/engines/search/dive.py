"""The search's dives: its first incumbents while the stock lasts (``Dive.dive``, then
``Dive.second_dive`` in some searches), a mixin of ``engine._Search`` like ``packing.PackingPhase``.

The dive plays the first playable combination, high cards first, to the end. The move it
plays at a table is a pure function of the table (binary layout), kept per variant in
the search's kit (``kit.Kit.dive_moves``): few tables recur across the sampled orders of one position, across
positions and across deals (tens of thousands on classic), so most of its steps are one
dictionary look-up instead of a scan of the combinations. The second dive's moves are kept
the same way (``kit.Kit.freest_moves``).
"""

from __future__ import annotations

from collections.abc import Callable

from triples.engines.search.state import DiveMove, SearchState
from triples.model.derived import Combo
from triples.support import deadline

# Tables whose dive move each variant keeps (oldest dropped first past it).
DIVE_MOVES_KEPT = 500_000


class Dive(SearchState):
    """The dive's methods of ``engine._Search``, over the search's state."""

    __slots__ = ()

    def dive(self) -> None:
        """The incumbent for a position with a stock: the line that always plays the first
        playable combination, high cards first, to the end. It is the search's own first
        descent, without its memo and bounds: where it reaches the root's bound (about 40% of
        classic deals) the search is skipped, and the dive costs a fraction of that descent."""
        self.walk(self.dive_moves, self.first_move)

    def second_dive(self) -> None:
        """Another incumbent, for when the dive falls short: the line that always plays the
        combination leaving the most combinations playable (``freest_move``). Where the bound
        is every card left (sum15) and the dive missed it, it reaches it about half the time,
        where the search would first walk the dive's line again and then back up."""
        self.walk(self.freest_moves, self.freest_move)

    def first_move(self, table: int) -> DiveMove:
        """The first playable combination at a table, high cards first (the dive's move)."""
        raised, guards = table | self.guards, self.guards
        for move in self.rules.moves:
            if raised - move[1] & guards == guards:
                return move
        return ()

    def freest_move(self, table: int) -> DiveMove:
        """The playable combination that leaves the table (before its refill, so that the
        move is a function of the table and kept per table) with the most combinations
        playable; ties to the first, high cards first."""
        raised, guards, mobility = table | self.guards, self.guards, self.mobility
        most = -1
        found: DiveMove = ()
        for move in self.rules.moves:
            if raised - move[1] & guards == guards:
                left = table - move[1]
                freedom = mobility.get(left)
                if freedom is None:
                    deadline.check()  # each costs a pass over every combination
                    left_raised = left | guards
                    freedom = mobility[left] = sum(
                        [1 for _, delta in self.rules.moves if left_raised - delta & guards == guards]
                    )
                if freedom > most:
                    most, found = freedom, move
        return found

    def walk(self, kept: dict[int, DiveMove], choose: Callable[[int], DiveMove]) -> None:
        """Play ``choose``'s move at each table (kept per table in ``kept``) to the end, and
        make the line the incumbent if it beats it."""
        k, size, stock_left, lines = self.per_move, self.size, self.stock_left, self.lines
        table, p, n = self.state & self.table_mask, self.start, self.on_table
        line: list[Combo] = []
        while True:
            move = kept.get(table)
            if move is None:
                deadline.check()
                move = kept[table] = choose(table)
            if not move:
                break
            combo, delta = move
            if lines:
                line.append(combo)
            # Past the stock's end the refill is empty: the same step plays the packing.
            after = p + k if p + k < size else size
            table += stock_left[p] - stock_left[after] - delta
            n += after - p - k
            p = after
        cleared = self.base + p - n
        if cleared > self.best:
            self.best, self.best_line, self.pending = cleared, tuple(line), None
