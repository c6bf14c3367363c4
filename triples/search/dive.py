"""The search's dive: its first incumbent while the stock lasts (``Dive.dive``), a mixin of
``engine._Search`` like ``packing.PackingPhase``.

The dive plays the first playable combination, high cards first, to the end. The move it
plays at a table is a pure function of the table (binary layout), kept per variant in
the search's kit (``kit.Kit.dive_moves``): few tables recur across the sampled orders of one position, across
positions and across deals (tens of thousands on classic), so most of its steps are one
dictionary look-up instead of a scan of the combinations.
"""

from __future__ import annotations

from triples.search.layouts import Combo, Rules

# Tables whose dive move each variant keeps (oldest dropped first past it).
DIVE_MOVES_KEPT = 500_000
# A table's dive move: the combination and its delta in the binary layout, or () for none.
DiveMove = tuple[Combo, int] | tuple[()]


class Dive:
    """The dive's method of ``engine._Search``, which holds the state it uses."""

    __slots__ = ()

    rules: Rules
    per_move: int
    size: int
    guards: int
    stock_left: list[int]
    dive_moves: dict[int, DiveMove]
    lines: bool
    state: int
    table_mask: int
    start: int
    on_table: int
    base: int
    best: int
    best_line: tuple[Combo, ...]
    pending: tuple[int, int, bool] | None

    def dive(self) -> None:
        """The incumbent for a position with a stock: the line that always plays the first
        playable combination, high cards first, to the end. It is the search's own first
        descent, without its memo and bounds: where it reaches the root's bound (about 40% of
        classic deals) the search is skipped, and the dive costs a fraction of that descent."""
        k, size, guards, stock_left = self.per_move, self.size, self.guards, self.stock_left
        dive_moves, lines = self.dive_moves, self.lines
        table, p, n = self.state & self.table_mask, self.start, self.on_table
        line: list[Combo] = []
        while True:
            move = dive_moves.get(table)
            if move is None:
                raised = table | guards
                for move in self.rules.moves:
                    if raised - move[1] & guards == guards:
                        break
                else:
                    move = ()
                dive_moves[table] = move
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
            self.best, self.best_line, self.pending = cleared, tuple(line), None  # type: ignore[misc]  # slots of _Search
