"""The state of one search, declared once: ``engine._Search`` is this state with the stock
phase's methods, ``dive.Dive`` its first incumbents and ``packing.PackingPhase`` the phase after
the stock. Each phase reads and writes the same attributes, so they are slots of this one class
(a search is built per deal and its attributes are read in the hot loop) rather than declared
again in every phase.
"""

from __future__ import annotations

from collections.abc import Sequence

from triples.engines.search.bounds import Family
from triples.engines.search.layouts import SearchTables
from triples.model.derived import Combo
from triples.model.variant import Variant

# A move of the stock phase: the combination, its delta in the binary layout, and its cards'
# weight under the family (``bounds.Family.weighed``; 0 without a family).
Move = tuple[Combo, int, int]
# A table's dive move: the combination and its delta in the binary layout, or () for none.
DiveMove = tuple[Combo, int] | tuple[()]


class SearchState:
    """Everything one search from one position holds; the table it came from is only read."""

    __slots__ = (
        "base",
        "best",
        "best_line",
        "bounds",
        "candidates",
        "cap",
        "check_mask",
        "counts",
        "deck",
        "dive_moves",
        "family",
        "freest_moves",
        "guards",
        "key",
        "lines",
        "memo",
        "mobility",
        "moves",
        "on_table",
        "ones",
        "packed",
        "path",
        "pending",
        "per_move",
        "rules",
        "size",
        "start",
        "state",
        "states",
        "stock_left",
        "stock_shift",
        "table_mask",
        "target",
        "unary",
        "value",
        "variant",
        "weights",
    )

    base: int
    best: int
    best_line: tuple[Combo, ...]
    bounds: dict[int, int]
    candidates: dict[int, tuple[Move, ...]]
    cap: int
    check_mask: int  # see ``deadline.check_mask``
    counts: list[int]
    deck: Sequence[int]
    dive_moves: dict[int, DiveMove]
    family: Family | None
    freest_moves: dict[int, DiveMove]
    guards: int
    key: int
    lines: bool
    memo: dict[int, int]
    mobility: dict[int, int]
    moves: tuple[Move, ...]
    on_table: int
    ones: int
    packed: dict[int, int]
    path: list[Combo]
    pending: tuple[int, int, bool] | None
    per_move: int
    rules: SearchTables
    size: int
    start: int
    state: int
    states: int
    stock_left: list[int]
    stock_shift: int
    table_mask: int
    target: int
    unary: dict[int, tuple[int, tuple[int, ...]]]
    value: int
    variant: Variant
    weights: list[float] | None

    # The stock phase's (``engine._Search``), used by the other phases too.
    def improve(self, cleared: int) -> None:
        raise NotImplementedError

    def improve_through(self, cleared: int, key: int, p: int, combo: Combo | None, unary: bool = False) -> None:
        raise NotImplementedError

    def weighed(self, pool: Sequence[int]) -> int:
        raise NotImplementedError
