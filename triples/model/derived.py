"""What every engine knows about a variant's moves, derived once per variant.

A move's cards matter only through their values, so the engines think in value combinations:
non-decreasing value tuples of ``per_move`` values adding up to ``target`` that the deck can
supply. This module derives them once per variant (``derived(variant)``, kept by
``triples.support.caches``) for the search, the strategies, the fair player and ``p_random``:

- ``combos``: the canonical order, increasing lexicographic (``rules.value_combos``).
- ``high_first``: the same combinations high cards first (compare each reversed, largest
  first: ``(2, 9, 9)`` before ``(4, 7, 9)``); the ``high`` strategy's choice, the search's
  move order and the fair player's tie rule all read this one order.
- ``uses``: per combination, each value with how many times it is used.
- ``binomial[n][m]``: C(n, m) for every count a table can show of one value and m up to k.
- ``counts``: a ``CountLayout`` of the table's value counts, in binary fields with a guard
  bit above each, where taking a combination subtracts a constant and one test on the guard
  bits says whether the table can supply it (the fair player and ``p_random`` share it; the
  search uses the same arithmetic over a byte per value, ``triples.engines.search.layouts``).

Nothing here assumes one of the registered variants: any deck (standard with any court
values, numeric with any top rank, one to four suits), any slot count, move size and target.
Rules whose moves can take more than ``MAX_COMBOS`` value combinations are refused with
``rules.TooManyCombinations`` (one line): their tables would take a gigabyte and minutes to
build, and every engine's work per position grows with them. Building looks at the clock
(``triples.support.deadline``) as it goes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from typing import TypeVar

from triples.model import rules
from triples.model.variant import Variant
from triples.support import caches, deadline

Combo = tuple[int, ...]  # a move's values, ascending: the engines' one name for it
S = TypeVar("S")
T = TypeVar("T")

# The most value combinations the engines take on (grid100 with 6 cards a move has 11,958):
# about 30 MB of tables, built in about a second.
MAX_COMBOS = 20_000
CHECK_EVERY = 1023  # combinations between two looks at the clock while building


@dataclass(frozen=True)
class CountLayout:
    """Value counts packed in one int: value v's count in binary at ``shift[v]``, in a field
    of ``width`` bits whose top bit is a guard bit (always clear in a key).

    Subtracting ``needs[i]`` takes combination ``combos[i]``'s cards; with every guard bit set
    first, the subtraction borrows a field's guard bit exactly when the field holds fewer cards
    than the combination takes, so ``playable(key, need)`` is one subtraction and one test.
    """

    width: int
    shift: tuple[int, ...]  # per value (index 0 unused: 0)
    mask: int  # a count field's bits below its guard, at the bottom
    guards: int  # every field's guard bit
    units: tuple[int, ...]  # one card of each value (0 for index 0, an empty slot)
    needs: tuple[int, ...]  # per combination, canonical order
    high_needs: tuple[int, ...]  # per combination, high-first order
    end: int  # the first bit above every field

    def key(self, counts: Sequence[int]) -> int:
        """The key of a histogram (index 0, empty slots, is ignored)."""
        return sum(c << self.shift[v] for v, c in enumerate(counts) if v)

    def count(self, key: int, value: int) -> int:
        return (key >> self.shift[value]) & self.mask

    def playable(self, key: int, need: int) -> bool:
        guards = self.guards
        return ((key | guards) - need) & guards == guards


@dataclass(frozen=True)
class Derived:
    """One variant's combinations and counting tables (see the module docstring)."""

    variant: Variant
    per_move: int
    target: int
    top: int
    most: int  # the most cards of one value a table can show (at least 1)
    combos: tuple[Combo, ...]
    uses: tuple[tuple[tuple[int, int], ...], ...]
    high_first: tuple[Combo, ...]
    high_uses: tuple[tuple[tuple[int, int], ...], ...]
    binomial: tuple[tuple[int, ...], ...]
    counts: CountLayout


def _combinations(variant: Variant) -> tuple[Combo, ...]:
    most = max(1, variant.most_of_a_value)
    # A combination needing more cards of one value than a table can show is never playable:
    # the deck's counts are capped at what a table can show, which leaves those out.
    counts = [min(copies, most) for copies in variant.copies]
    return tuple(rules.value_combos(counts, variant.per_move, variant.target, MAX_COMBOS))


def high_cards_first(combos: Sequence[Combo]) -> tuple[Combo, ...]:
    """``combos`` sorted high cards first: by each one's values high to low, largest first."""
    return tuple(sorted(combos, key=lambda combo: combo[::-1], reverse=True))


def checked_map(function: Callable[[S], T], items: Sequence[S]) -> tuple[T, ...]:
    """``function`` of each item (one per combination), looking at the clock every ``CHECK_EVERY`` of them."""
    out: list[T] = []
    for start in range(0, len(items), CHECK_EVERY + 1):
        deadline.check()
        out.extend(map(function, items[start : start + CHECK_EVERY + 1]))
    return tuple(out)


def _build(variant: Variant) -> Derived:
    combos = _combinations(variant)
    deadline.check()
    high = high_cards_first(combos)
    most = max(1, variant.most_of_a_value)
    k = variant.per_move
    uses = checked_map(rules.multiplicities, combos)
    position = {combo: i for i, combo in enumerate(combos)}
    partial = Derived(
        variant=variant,
        per_move=k,
        target=variant.target,
        top=variant.max_value,
        most=most,
        combos=combos,
        uses=uses,
        high_first=high,
        high_uses=tuple(uses[position[combo]] for combo in high),
        binomial=tuple(tuple(comb(n, m) for m in range(k + 1)) for n in range(most + 1)),
        counts=None,  # type: ignore[arg-type]  # filled just below: it reads the rest
    )
    object.__setattr__(partial, "counts", _layout(partial, most.bit_length() + 1))
    return partial


def _layout(tables: Derived, width: int) -> CountLayout:
    top = tables.top
    shift = (0, *(width * (v - 1) for v in range(1, top + 1)))

    def need(uses: tuple[tuple[int, int], ...]) -> int:
        return sum(m << shift[v] for v, m in uses)

    needs = checked_map(need, tables.uses)
    position = {combo: i for i, combo in enumerate(tables.combos)}
    return CountLayout(
        width=width,
        shift=shift,
        mask=(1 << (width - 1)) - 1,
        guards=sum(1 << (shift[v] + width - 1) for v in range(1, top + 1)),
        units=(0, *(1 << shift[v] for v in range(1, top + 1))),
        needs=needs,
        high_needs=tuple(needs[position[combo]] for combo in tables.high_first),
        end=width * top,
    )


derived = caches.per_variant("derived", _build)
