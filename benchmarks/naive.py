"""The naive exact search the search benchmarks measure ours against (best.py, sweep.py).

It tries every slot combination of the table and memoises on (stock position, sorted table
values). It is written to be fair: the table is a sorted value tuple and the slot combinations
come from itertools, so what it pays for is the slot-space enumeration and the lack of bounds,
not Python overhead.
"""

from __future__ import annotations

from itertools import combinations

from triples.model.table import Table


def naive_best(table: Table) -> tuple[int, int]:
    """The exact best by trying every slot combination; (best, states memoised)."""
    variant = table.variant
    k, target, deck = variant.per_move, variant.target, table.deck_values
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def best_from(p: int, values: tuple[int, ...]) -> int:
        key = (p, values)
        found = memo.get(key)
        if found is not None:
            return found
        found = 0
        refill = deck[p : p + k]
        slots = range(len(values))
        for picked, chosen in zip(combinations(values, k), combinations(slots, k), strict=True):
            if sum(picked) == target:
                kept = [values[i] for i in slots if i not in chosen]
                kept.extend(refill)
                found = max(found, k + best_from(p + len(refill), tuple(sorted(kept))))
        memo[key] = found
        return found

    best = table.cleared + best_from(table.next_card, tuple(sorted(v for v in table.values if v)))
    return best, len(memo)
