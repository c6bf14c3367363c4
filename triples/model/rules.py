"""Move validation in the documented order (docs/operations.md), and move enumeration in value space.

Only values matter to a sum, so moves are found as combinations of *values* (grid100 has
25 values but C(100, 3) = 161,700 slot triples) and only then expanded to slots.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, product
from math import comb
from typing import Any

from triples.model.table import Move, Table
from triples.support import deadline
from triples.support.errors import TriplesError

# The most moves one ``moves`` answer lists (about 1.5 MB of JSON): a table with more is refused
# with their number, counted before any is built.
MAX_MOVES = 100_000
# How often the general enumeration looks at the clock: once per this many + 1 steps.
_CHECK_EVERY = 4095
_SORTED_AT_ONCE = 4096  # moves sorted in one go; more are sorted slot by slot


class IllegalMove(TriplesError):
    """A move the rules reject; the message is the documented text without the ``error: `` prefix."""


class TooManyMoves(TriplesError):
    """A table whose legal moves are too many to list in one answer."""

    def __init__(self, count: int, limit: int) -> None:
        super().__init__(f"{count:,} legal moves: more than the {limit:,} one answer may list")
        self.count = count
        self.limit = limit


class TooManyCombinations(TriplesError):
    """Rules whose moves can take more value combinations than an enumeration was allowed."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"these rules have more than {limit:,} value combinations a move can take: "
            "too many for the engines (fewer cards a move, a smaller target or fewer ranks bring them down)"
        )
        self.limit = limit


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


def value_combos(counts: Sequence[int], k: int, target: int, limit: int | None = None) -> list[tuple[int, ...]]:
    """Every non-decreasing value tuple of length k summing to target that ``counts`` can supply,
    in increasing lexicographic order. With a ``limit``, ``TooManyCombinations`` as soon as there
    are more than that; for k of 4 and more the enumeration looks at the clock as it goes
    (``triples.support.deadline``): on rules with many values it can take seconds."""
    top = len(counts) - 1
    present = [v for v in range(1, top + 1) if counts[v]]
    # k = 2 and 3 (every registered variant but quads) are on the strategies' and the search's
    # hot paths, so they get direct loops; the general case recurses.
    if k > 3:
        return _value_combos_any(counts, k, target, limit)
    out: list[tuple[int, ...]]
    if k == 2:
        out = [
            (a, target - a)
            for a in present
            if 2 * a <= target and target - a <= top and counts[target - a] > (a == target - a)
        ]
    else:
        out = []
        for i, a in enumerate(present):
            if 3 * a > target:
                break
            for b in present[i:] if counts[a] > 1 else present[i + 1 :]:
                c = target - a - b
                if c < b:
                    break
                if c <= top and counts[c] > (c == b) + (c == a):
                    out.append((a, b, c))
    if limit is not None and len(out) > limit:
        raise TooManyCombinations(limit)
    return out


def _value_combos_any(counts: Sequence[int], k: int, target: int, limit: int | None = None) -> list[tuple[int, ...]]:
    top = len(counts) - 1
    out: list[tuple[int, ...]] = []
    combo: list[int] = []
    most = -1 if limit is None else limit
    steps = [0]

    def extend(last: int, run: int, left: int, need: int) -> None:
        if left == 0:
            out.append(tuple(combo))
            if len(out) == most + 1:
                raise TooManyCombinations(most)
            return
        steps[0] += 1
        if not steps[0] & _CHECK_EVERY:
            deadline.check()
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
    make = tuple.__new__  # the slots are sorted already, so Move's own sort is skipped
    for slots in expanded(combo, groups):
        yield make(Move, slots)


def expanded(combo: Sequence[int], groups: dict[int, list[int]]) -> Iterator[list[int]]:
    """Every slot move realising a value combination, each a sorted list of slots."""
    needed: dict[int, int] = {}
    for v in combo:
        needed[v] = needed.get(v, 0) + 1
    if len(needed) == len(combo):  # distinct values: one slot from each group
        for slots in product(*(groups[v] for v in needed)):
            yield sorted(slots)
        return
    per_value = [combinations(groups[v], m) for v, m in needed.items()]
    for parts in product(*per_value):
        yield sorted([slot for part in parts for slot in part])


def first_slots(combo: Sequence[int], groups: dict[int, list[int]]) -> Move:
    """The lexicographically smallest slot move for a value combination: the lowest slots of
    each value (taking the smallest slot per value can only lower every sorted position)."""
    needed: dict[int, int] = {}
    for v in combo:
        needed[v] = needed.get(v, 0) + 1
    return Move(slot for v, m in needed.items() for slot in groups[v][:m])


def legal_moves(table: Table, limit: int | None = None) -> list[Move]:
    """Every legal move, each a sorted slot tuple, in lexicographic order. With a ``limit``,
    ``TooManyMoves`` (with their number, counted without building any) when there are more."""
    make = tuple.__new__  # each is sorted already
    return [make(Move, move) for move in legal_move_lists(table, limit)]


def legal_move_lists(table: Table, limit: int | None = None) -> list[list[int]]:
    """``legal_moves`` as lists of slots, as an answer gives them: one object a move, where a
    hundred thousand of them are garbage collection's to walk while they live."""
    variant = table.variant
    counts = histogram(table.values, variant.max_value)
    combos = value_combos(counts, variant.per_move, variant.target)
    if not combos:
        return []
    if limit is not None:
        found = moves_of(combos, counts)
        if found > limit:
            raise TooManyMoves(found, limit)
    groups = slots_by_value(table.values)
    moves = [move for combo in combos for move in expanded(combo, groups)]
    if len(moves) <= _SORTED_AT_ONCE:
        moves.sort()
        return moves
    # Sorted by first slot, then each slot's moves: one sort of a hundred thousand moves would
    # hold the interpreter's lock (and a server's event loop) for a tenth of a second.
    by_first: list[list[list[int]]] = [[] for _ in range(variant.slots)]
    for move in moves:
        by_first[move[0]].append(move)
    ordered: list[list[int]] = []
    for group in by_first:
        group.sort()
        ordered += group
    return ordered


def moves_of(combos: Sequence[Sequence[int]], counts: Sequence[int]) -> int:
    """How many slot moves realise ``combos`` on a table with these value counts: per
    combination, the product over its values of C(cards of that value, times it is used)."""
    total = 0
    for i, combo in enumerate(combos):
        if not i & 1023:
            deadline.check()
        ways = 1
        for v, m in multiplicities(combo):
            ways *= comb(counts[v], m)
        total += ways
    return total


# Work a server may do on its event loop for one operation (about a millisecond): the
# enumeration's steps, and the moves one answer lists (``triples.interpreter``'s judges).
QUICK_STEPS = 20_000
QUICK_MOVES = 2_000


def enumeration_steps(table: Table) -> int:
    """A bound on the steps ``value_combos`` takes on this table, from the number of distinct
    values on it: pairs of them for k = 3, multisets of k - 1 of them (times the ranks each
    may try) for larger k."""
    variant = table.variant
    present = len({v for v in table.values if v})
    k = variant.per_move
    if k <= 3:
        return int(present ** (k - 1))
    return comb(present + k - 2, k - 1) * (variant.max_value + 1)


def listing_is_quick(table: Table) -> bool:
    """Whether listing this table's moves is surely quick: few steps to find the value
    combinations, and few slot moves however the values fall (C(cards on the table, k))."""
    on_table = sum(1 for v in table.values if v)
    return enumeration_steps(table) <= QUICK_STEPS and comb(on_table, table.variant.per_move) <= QUICK_MOVES


def status_is_quick(table: Table) -> bool:
    """Whether telling if the table has a legal move is surely quick."""
    return enumeration_steps(table) <= QUICK_STEPS


def has_legal_move(table: Table) -> bool:
    variant = table.variant
    counts = histogram(table.values, variant.max_value)
    if variant.per_move <= 3:
        return bool(value_combos(counts, variant.per_move, variant.target))
    try:  # stops at the first combination found
        _value_combos_any(counts, variant.per_move, variant.target, 0)
    except TooManyCombinations:
        return True
    return False
