"""What every search of one variant shares (``Kit``), kept per variant by ``triples.support.caches``.

A kit holds the variant's layouts, its bound family and its moves with their family weights,
all derived once, and memos of pure functions that recur under many stock positions and
across deals. A search (``engine._Search``) looks its kit up once (everything it shares is
one look-up away), reads it and changes only its own object.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from triples.engines.search.bounds import Family, family_for
from triples.engines.search.dive import DIVE_MOVES_KEPT
from triples.engines.search.layouts import SearchTables, search_tables_for
from triples.engines.search.state import DiveMove, Move
from triples.model.variant import Variant
from triples.support import caches

# Entries each per-variant memo of a kit keeps (oldest dropped first past it).
CACHE_KEPT = 500_000


@dataclass(frozen=True)
class Kit:
    """What every search of one variant shares: its layouts, its bound family (None without a
    stock phase, or where none pays), its moves with their family weights, and memos of pure
    functions: the bound per multiset of cards not yet cleared (binary layout), the
    combinations each pattern of values present can supply, each table's unary key and
    counts, each table's moves of the two dives and its mobility, and what a table can clear once the stock is empty.
    They recur under many stock positions and across deals."""

    rules: SearchTables
    family: Family | None
    moves: tuple[Move, ...]
    bounds: caches.Memo[int, int]
    candidates: caches.Memo[int, tuple[Move, ...]]
    unary: caches.Memo[int, tuple[int, tuple[int, ...]]]
    dive_moves: caches.Memo[int, DiveMove]
    # The second dive's move per table, and per table how many combinations it can supply.
    freest_moves: caches.Memo[int, DiveMove]
    mobility: caches.Memo[int, int]
    # What a table can still clear once the stock is empty (unary key), for the searches
    # that keep no lines (``engine._Search``): the same whatever the deck, so every sampled
    # order of every position and game shares it (sum15: under a thousand tables in all).
    packing: caches.Memo[int, int]

    def memos(self) -> tuple[caches.Memo[int, Any], ...]:
        """Its memos, counted with the kit against the caches' budget (``triples.support.caches``)."""
        return (
            self.bounds,
            self.candidates,
            self.unary,
            self.dive_moves,
            self.freest_moves,
            self.mobility,
            self.packing,
        )

    def trim(self) -> None:
        """Keep the memos within their bounds, in entries and (with every other cache) in
        bytes: called before each search, never during one (a search reads the dicts themselves
        in its inner loops). Every search pays the test, so it reads the dicts' lengths directly."""
        caches.settle()
        if (
            len(self.bounds.data) > CACHE_KEPT
            or len(self.candidates.data) > CACHE_KEPT
            or len(self.unary.data) > CACHE_KEPT
            or len(self.dive_moves.data) > DIVE_MOVES_KEPT
            or len(self.freest_moves.data) > DIVE_MOVES_KEPT
            or len(self.mobility.data) > DIVE_MOVES_KEPT
            or len(self.packing.data) > CACHE_KEPT
        ):
            self.bounds.trim()
            self.candidates.trim()
            self.unary.trim()
            self.dive_moves.trim()
            self.freest_moves.trim()
            self.mobility.trim()
            self.packing.trim()


def _build_kit(variant: Variant) -> Kit:
    rule = search_tables_for(variant)
    family = family_for(variant)
    packed = family.packed if family is not None else (0,) * (rule.top + 1)
    moves = tuple((combo, delta, sum(packed[v] for v in combo)) for combo, delta in rule.moves)
    # Not registered with ``caches``: they live and go with the kit, which is.
    return Kit(
        rule,
        family,
        moves,
        caches.Memo("bounds", CACHE_KEPT),
        caches.Memo("candidates", CACHE_KEPT),
        caches.Memo("unary", CACHE_KEPT),
        caches.Memo("dive moves", DIVE_MOVES_KEPT),
        caches.Memo("freest moves", DIVE_MOVES_KEPT),
        caches.Memo("mobility", DIVE_MOVES_KEPT),
        caches.Memo("packing", CACHE_KEPT),
    )


kit_for = caches.per_variant("search kits", _build_kit)
