"""The search's two layouts of a table's value counts, derived once per variant.

While the stock lasts a state is a binary layout: a byte per value (byte v for value v, byte 0
for empty slots) holding its count, the top bit of each a guard bit, and the stock position
above. A move changes the key by constants (minus the combination's delta, plus the refill's
cards and the position's step), and one subtraction against the guard bits tells whether a
combination is playable. Once the stock is empty the packing phase uses a unary layout: value
v owns a field of ``width`` bits in which its count c is the c lowest bits set, so taking one
card flips one bit. The two layouts' keys live in separate memos (``engine._Search.memo`` and
``packed``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from triples.model.derived import CHECK_EVERY, Combo, checked_map, derived
from triples.model.variant import Variant
from triples.support import caches, deadline


@dataclass(frozen=True)
class SearchTables:
    """Everything about a variant the search precomputes once (kept per variant: ``search_tables_for``)."""

    per_move: int
    target: int
    top: int
    width: int
    combos: tuple[Combo, ...]
    needs: tuple[int, ...]
    # For the packing phase: per smallest value v, the combinations whose smallest value is v.
    by_low: tuple[tuple[tuple[Combo, int], ...], ...]
    # Every combination with its need, in ``combos`` order.
    pairs: tuple[tuple[Combo, int], ...]
    # Per combination: each value it uses and how many times.
    uses: tuple[tuple[tuple[int, int], ...], ...]
    # holders[v][j]: the set (bit i for combos[i]) of combinations needing more than j cards
    # of value v. Taking cards only ever makes the combinations in such sets unplayable.
    holders: tuple[tuple[int, ...], ...]
    # Per value: the set of combinations using it, and the key bits of its count field.
    containing: tuple[int, ...]
    fields: tuple[int, ...]
    # Every combination, as a set.
    every: int
    # bits[v][c]: the key bit that is set when the table holds more than c cards of value v.
    bits: tuple[tuple[int, ...], ...]
    # The stock phase's layout: value v's count in binary in a field of ``binary_width`` bits
    # at ``offsets[v]`` (a byte), its top bit a guard bit (``guards``: all of them). A move
    # changes the key by constants: minus its combination's delta, plus its refill's cards.
    binary_width: int
    # The stock phase's memo key puts the stock position above the binary fields.
    stock_shift: int
    offsets: tuple[int, ...]
    guards: int
    # One card of every value, and per combination one card of each value it uses, as guard
    # bits: a field with a card keeps its guard bit after subtracting ``ones``.
    ones: int
    spans: tuple[int, ...]
    # units[v]: one card of value v in the binary layout (0 for an empty slot).
    units: tuple[int, ...]
    # Per combination, in ``combos`` order: the combination with its delta in the binary
    # layout (``_Search.moves`` adds each one's family weight).
    moves: tuple[tuple[Combo, int], ...]

    def unary_key(self, counts: Sequence[int]) -> int:
        """The unary layout's key of a table holding ``counts[v]`` cards of value v."""
        width = self.width
        return sum(((1 << c) - 1) << (width * (v - 1)) for v, c in enumerate(counts) if v)


def _build(variant: Variant) -> SearchTables:
    tables = derived(variant)
    top = tables.top
    # A field must hold the largest count a table can show of one value.
    width = tables.most
    # High cards first: the order the stock phase tries moves in and the greedy breaks ties by.
    combos = tables.high_first
    needs = checked_map(lambda combo: _need(combo, width), combos)
    by_low: list[list[tuple[Combo, int]]] = [[] for _ in range(top + 1)]
    for combo, need in zip(combos, needs, strict=True):
        by_low[combo[0]].append((combo, need))
    # Partners nearest each other first: on grid100 that finds a full packing in far fewer
    # states than pairing the smallest value with the largest.
    for group in by_low:
        group.sort(key=lambda item: item[0][::-1])
    uses = tables.high_uses
    # A byte per value (byte v for value v, byte 0 empty): ``int.to_bytes`` then reads every
    # count at once, in C. Its top bit is a guard bit, always clear in a key (no value has 128
    # copies), that lets one subtraction test every field of a move at once (``engine._Search.search``).
    binary_width = 8
    offsets = tuple(binary_width * v for v in range(top + 1))
    deltas = checked_map(lambda used: sum(m << offsets[v] for v, m in used), uses)
    holders = _holders(uses, top, width)
    deadline.check()
    return SearchTables(
        per_move=variant.per_move,
        target=variant.target,
        top=top,
        width=width,
        combos=combos,
        needs=needs,
        by_low=tuple(tuple(g) for g in by_low),
        pairs=tuple(zip(combos, needs, strict=True)),
        uses=uses,
        holders=holders,
        bits=tuple(tuple(1 << (width * (v - 1) + c) for c in range(width)) if v else () for v in range(top + 1)),
        binary_width=binary_width,
        stock_shift=binary_width * (top + 1),
        offsets=offsets,
        units=tuple(1 << offset if v else 0 for v, offset in enumerate(offsets)),
        ones=sum(1 << offset for offset in offsets[1:]),
        spans=checked_map(lambda used: sum(1 << (offsets[v] + binary_width - 1) for v, _ in used), uses),
        guards=sum(1 << (offset + binary_width - 1) for offset in offsets[1:]),
        moves=tuple(zip(combos, deltas, strict=True)),
        containing=tuple(held[0] for held in holders),
        fields=tuple(((1 << width) - 1) << (width * (v - 1)) if v else 0 for v in range(top + 1)),
        every=(1 << len(combos)) - 1,
    )


search_tables_for = caches.per_variant("search rules", _build)


def _holders(uses: Sequence[tuple[tuple[int, int], ...]], top: int, width: int) -> tuple[tuple[int, ...], ...]:
    """``SearchTables.holders``: per value v and count j, the set of combinations (bit i for
    the i-th) that use more than j cards of v. Built as bytes, bit by bit, then read as ints
    once: adding the bits one by one to an int would copy it each time (minutes on rules with
    a hundred thousand combinations)."""
    size = (len(uses) + 8) // 8
    fields = [[bytearray(size) for _ in range(width + 1)] for _ in range(top + 1)]
    for i, used in enumerate(uses):
        if not i & CHECK_EVERY:
            deadline.check()
        byte, bit = i >> 3, 1 << (i & 7)
        for v, m in used:
            for j in range(min(m, width + 1)):
                fields[v][j][byte] |= bit
    return tuple(tuple(int.from_bytes(field, "little") for field in per_count) for per_count in fields)


def _need(combo: Combo, width: int) -> int:
    """The key bits a state must have set to supply ``combo`` (unary layout)."""
    need = 0
    for v in set(combo):
        need |= ((1 << combo.count(v)) - 1) << (width * (v - 1))
    return need
