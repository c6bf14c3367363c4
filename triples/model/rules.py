"""Move validation in the documented order (docs/operations.md), and move enumeration in value space.

Only values matter to a sum, so moves are found as combinations of *values* (grid100 has
25 values but C(100, 3) = 161,700 slot triples) and only then expanded to slots.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product
from typing import Any

from triples.model.table import Move, Table
from triples.support.errors import TriplesError


class IllegalMove(TriplesError):
    """A move the rules reject; the message is the documented text without the ``error: `` prefix."""


def check_move(table: Table, positions: object) -> Move:
    """The move ``positions`` names, or IllegalMove with the first failing rule's message."""
    variant = table.variant
    k = variant.per_move
    positions = positions if isinstance(positions, list) else listed(positions, k)
    if len(positions) != k:
        raise IllegalMove(f"pick exactly {k} cards")
    if any(type(p) is not int for p in positions):  # bool is an int subclass, not a position
        raise IllegalMove("positions must be integers")
    if any(p < 0 or p >= variant.slots for p in positions):
        raise IllegalMove("position out of range")
    if len(set(positions)) != k:
        raise IllegalMove("positions must be distinct")
    values = table.values
    if any(values[p] == 0 for p in positions):
        raise IllegalMove("empty slot")
    total = sum(values[p] for p in positions)
    if total != variant.target:
        raise IllegalMove(f"cards sum to {total}, need {variant.target}")
    return Move(positions)


def listed(positions: object, k: int) -> list[Any]:
    """Positions given as a sequence other than a list (a tuple, from Python) as a list. Text,
    bytes, sets and mappings are no positions in order, and are refused as any non-list is."""
    if isinstance(positions, Sequence) and not isinstance(positions, str | bytes | bytearray):
        try:
            if len(positions) == k:
                return list(positions)
        except Exception:  # a sequence of the caller's own whose len or items raise
            pass
    raise IllegalMove(f"pick exactly {k} cards")


def histogram(values: Sequence[int], top: int) -> list[int]:
    """Counts of each value 1..top on the table; index 0 (empty slots) is left at zero."""
    counts = [0] * (top + 1)
    for v in values:
        counts[v] += 1
    counts[0] = 0
    return counts


def value_combos(counts: Sequence[int], k: int, target: int) -> list[tuple[int, ...]]:
    """Every non-decreasing value tuple of length k summing to target that ``counts`` can supply,
    in increasing lexicographic order."""
    top = len(counts) - 1
    present = [v for v in range(1, top + 1) if counts[v]]
    # k = 2 and 3 (every registered variant but quads) are on the strategies' and the search's
    # hot paths, so they get direct loops; the general case recurses.
    if k == 2:
        return [
            (a, target - a)
            for a in present
            if 2 * a <= target and target - a <= top and counts[target - a] > (a == target - a)
        ]
    if k == 3:
        out: list[tuple[int, int, int]] = []
        for i, a in enumerate(present):
            if 3 * a > target:
                break
            for b in present[i:] if counts[a] > 1 else present[i + 1 :]:
                c = target - a - b
                if c < b:
                    break
                if c <= top and counts[c] > (c == b) + (c == a):
                    out.append((a, b, c))
        return out  # type: ignore[return-value]
    return _value_combos_any(counts, k, target)


def _value_combos_any(counts: Sequence[int], k: int, target: int) -> list[tuple[int, ...]]:
    top = len(counts) - 1
    out: list[tuple[int, ...]] = []
    combo: list[int] = []

    def extend(last: int, run: int, left: int, need: int) -> None:
        if left == 0:
            out.append(tuple(combo))
            return
        # The values still to pick are each >= the next one and <= top, which bounds the next.
        for w in range(max(last, 1, need - top * (left - 1)), min(top, need // left) + 1):
            used = run if w == last else 0
            if counts[w] > used:
                combo.append(w)
                extend(w, used + 1, left - 1, need - w)
                combo.pop()

    extend(1, 0, k, target)
    return out


def multiplicities(combo: Sequence[int]) -> tuple[tuple[int, int], ...]:
    """Each value of a combination with how many times it is used, in increasing value order."""
    return tuple((v, combo.count(v)) for v in sorted(set(combo)))


def slots_by_value(values: Sequence[int]) -> dict[int, list[int]]:
    """The occupied slots holding each value, in increasing slot order."""
    groups: dict[int, list[int]] = {}
    for slot, v in enumerate(values):
        if v:
            groups.setdefault(v, []).append(slot)
    return groups


def expand(combo: Sequence[int], groups: dict[int, list[int]]) -> Iterator[Move]:
    """Every slot move realising a value combination."""
    needed: dict[int, int] = {}
    for v in combo:
        needed[v] = needed.get(v, 0) + 1
    make = tuple.__new__  # the slots are sorted here, so Move's own sort is skipped
    if len(needed) == len(combo):  # distinct values: one slot from each group
        for slots in product(*(groups[v] for v in needed)):
            yield make(Move, sorted(slots))
        return
    per_value = [combinations(groups[v], m) for v, m in needed.items()]
    for parts in product(*per_value):
        yield make(Move, sorted([slot for part in parts for slot in part]))


def first_slots(combo: Sequence[int], groups: dict[int, list[int]]) -> Move:
    """The lexicographically smallest slot move for a value combination: the lowest slots of
    each value (taking the smallest slot per value can only lower every sorted position)."""
    needed: dict[int, int] = {}
    for v in combo:
        needed[v] = needed.get(v, 0) + 1
    return Move(slot for v, m in needed.items() for slot in groups[v][:m])


def legal_moves(table: Table) -> list[Move]:
    """Every legal move, each a sorted slot tuple, in lexicographic order."""
    variant = table.variant
    counts = histogram(table.values, variant.max_value)
    combos = value_combos(counts, variant.per_move, variant.target)
    if not combos:
        return []
    groups = slots_by_value(table.values)
    moves = [move for combo in combos for move in expand(combo, groups)]
    moves.sort()
    return moves


def has_legal_move(table: Table) -> bool:
    variant = table.variant
    counts = histogram(table.values, variant.max_value)
    return bool(value_combos(counts, variant.per_move, variant.target))
