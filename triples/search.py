"""Exact best score: a branch-and-bound search over (stock position, values on the table).

It is a depth-first search that keeps the best line found so far (the incumbent), cuts every
state whose upper bound cannot beat it, and stops outright once the incumbent reaches the
starting position's bound. The bound (``_value_bound``: cards left and the value-sum argument;
on classic also a few fixed dual weight vectors, ``_Family``) depends only on the multiset of
cards not yet cleared, so it is remembered per multiset across states and deals. Moves are
value combinations, one per distinct combination, never slot combinations. The first line
tried, the dive (always the first playable combination, high cards first), runs before the
search without its memo and bounds: when it reaches the bound the search is skipped.

Slots and suits never change a score, so a state is the stock position plus how many cards of
each value lie on the table, packed into one int, two ways. While the stock lasts the counts
are binary fields (``_Rules.offsets``) with the stock position above: a move changes the key
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

import random
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate, islice
from math import lcm
from operator import mul
from typing import Literal

from triples import rules
from triples.config import Variant
from triples.table import Move, Table

Combo = tuple[int, ...]
# A move of the stock phase: the combination, its delta in the binary layout, and its cards'
# weight under the family (``_Family.weighed``; 0 without a family).
_Move = tuple[Combo, int, int]
_Kit = tuple["_Rules", "_Caches", "_Family | None", tuple[_Move, ...]]


@dataclass(frozen=True)
class SearchResult:
    """What the search proved about a position.

    ``best`` is the largest total cleared any line reaches (cards already cleared included),
    ``states`` how many states the search expanded (its effort: memo hits and states cut off
    by the bound are not counted), ``line`` one line of value combinations reaching ``best``
    and ``bound`` the upper bound at the start (``best == bound`` means the bound proved it).
    """

    best: int
    states: int
    line: tuple[Combo, ...]
    bound: int


class _Stop(Exception):
    """The incumbent reached the root's upper bound: nothing can beat it."""


@dataclass(frozen=True)
class _Rules:
    """Everything about a variant the search precomputes once (memoised per variant)."""

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
    # The packing phase's memo key puts the stock position (one past the end) above every
    # count field of either layout.
    position_shift: int
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


_RULES: dict[Variant, _Rules] = {}


def _rules_for(variant: Variant) -> _Rules:
    cached = _RULES.get(variant)
    if cached is not None:
        return cached
    top = variant.max_value
    copies = variant.copies
    # A field must hold the largest count a table can show of one value.
    width = max(1, variant.most_of_a_value)
    # High cards first: the order the stock phase tries moves in and the greedy breaks ties by.
    combos = tuple(
        sorted(
            (
                combo
                for combo in rules.value_combos(copies, variant.per_move, variant.target)
                if all(combo.count(v) <= width for v in combo)
            ),
            key=lambda combo: combo[::-1],
            reverse=True,
        )
    )
    needs = tuple(_need(combo, width) for combo in combos)
    by_low: list[list[tuple[Combo, int]]] = [[] for _ in range(top + 1)]
    for combo, need in zip(combos, needs, strict=True):
        by_low[combo[0]].append((combo, need))
    # Partners nearest each other first: on grid100 that finds a full packing in far fewer
    # states than pairing the smallest value with the largest.
    for group in by_low:
        group.sort(key=lambda item: item[0][::-1])
    uses = tuple(rules.multiplicities(combo) for combo in combos)
    # A byte per value (byte v for value v, byte 0 empty): ``int.to_bytes`` then reads every
    # count at once, in C. Its top bit is a guard bit, always clear in a key (no value has 128
    # copies), that lets one subtraction test every field of a move at once (``playable_at``).
    binary_width = 8
    offsets = tuple(binary_width * v for v in range(top + 1))
    deltas = tuple(sum(m << offsets[v] for v, m in used) for used in uses)
    holders = tuple(
        tuple(sum(1 << i for i, combo in enumerate(combos) if combo.count(v) > j) for j in range(width + 1))
        for v in range(top + 1)
    )
    built = _Rules(
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
        position_shift=max(width * top, binary_width * (top + 1)),
        binary_width=binary_width,
        stock_shift=binary_width * (top + 1),
        offsets=offsets,
        units=tuple(1 << offset if v else 0 for v, offset in enumerate(offsets)),
        ones=sum(1 << offset for offset in offsets[1:]),
        spans=tuple(sum(1 << (offsets[v] + binary_width - 1) for v, _ in used) for used in uses),
        guards=sum(1 << (offset + binary_width - 1) for offset in offsets[1:]),
        moves=tuple(zip(combos, deltas, strict=True)),
        containing=tuple(sum(1 << i for i, combo in enumerate(combos) if v in combo) for v in range(top + 1)),
        fields=tuple(((1 << width) - 1) << (width * (v - 1)) if v else 0 for v in range(top + 1)),
        every=(1 << len(combos)) - 1,
    )
    _RULES[variant] = built
    return built


def packing_weights(variant: Variant, pool: Sequence[int]) -> list[float] | None:
    """Weights y (one per value) with y >= 0 and, for every combination c, the weights of its
    cards adding up to at least 1, as small on ``pool`` as possible: an optimal solution of
    the dual of the linear relaxation of "pack as many disjoint combinations as possible".

    Whatever cards are left, a packing's moves then number at most the sum of their weights,
    since every move uses cards weighing 1 or more. This is the value-sum bound with the best
    weights for this pool in place of value / target; on grid100 positions that already lost
    their chance of 99 it is often exact where the value sum is not. Solved by the simplex
    method with Bland's rule (no cycling), in floats; the result is then checked and scaled
    so that every combination's weight really is at least 1, and None means give up.
    ``pool`` counts cards by value (``rules.histogram``); the weights are indexed the same way.
    """
    rule = _rules_for(variant)
    values = [v for v in range(1, rule.top + 1) if pool[v]]
    columns = [c for c in rule.combos if all(pool[v] for v in c)]
    weights = [1.0] * (rule.top + 1)  # a value the pool lacks: any combination using it weighs 1
    weights[0] = 0.0
    if columns:
        width, height = len(columns), len(values)
        # Rows: one per value, the combinations' card counts, then the slacks, then the pool.
        tableau = [
            [float(c.count(v)) for c in columns] + [float(i == j) for j in range(height)] + [float(pool[v])]
            for i, v in enumerate(values)
        ]
        costs = [-1.0] * width + [0.0] * (height + 1)
        basis = [width + i for i in range(height)]
        for _ in range(50 * (width + height)):
            entering = next((j for j in range(width + height) if costs[j] < -1e-9), -1)
            if entering < 0:
                break
            row, ratio = -1, 0.0
            for i in range(height):
                a = tableau[i][entering]
                if a > 1e-9:
                    r = tableau[i][-1] / a
                    if row < 0 or r < ratio - 1e-12 or (r <= ratio + 1e-12 and basis[i] < basis[row]):
                        row, ratio = i, r
            if row < 0:
                return None
            pivot = tableau[row]
            scale = pivot[entering]
            pivot[:] = [x / scale for x in pivot]
            for other in (*tableau[:row], *tableau[row + 1 :], costs):
                factor = other[entering]
                if factor:
                    other[:] = [x - factor * y for x, y in zip(other, pivot, strict=True)]
            basis[row] = entering
        else:
            return None
        for i, v in enumerate(values):
            weights[v] = max(0.0, costs[width + i])
    lightest = min(sum(weights[v] for v in c) for c in rule.combos)
    if lightest < 0.5:
        return None
    if lightest < 1.0:
        weights = [w / lightest for w in weights]
    return weights


def _need(combo: Combo, width: int) -> int:
    """The key bits a state must have set to supply ``combo``."""
    need = 0
    for v in set(combo):
        need |= ((1 << combo.count(v)) - 1) << (width * (v - 1))
    return need


def _value_bound(rule: _Rules, cards: int, value: int, pool: Sequence[int]) -> int:
    """An upper bound on what can still be cleared from ``cards`` cards worth ``value``,
    ``pool`` counting them by value.

    Each move takes k cards worth exactly ``target`` together, so m more moves need
    m * k cards and m * target of value; the cards left over must then make up the value
    left over, so it lies between the sum of that many smallest and that many largest
    cards (the classic deck: 340 = 17 x 20, yet 17 moves would leave one card worth 0,
    so 48; quads: 11 moves would leave 8 cards worth 10, but its 8 smallest make 12).
    """
    k, target, top = rule.per_move, rule.target, rule.top
    moves = min(cards // k, value // target)
    while moves > 0:
        left, rest = cards - moves * k, value - moves * target
        if left <= 1:
            if (left == 0 and rest == 0) or (left == 1 and rest <= top and pool[rest]):
                break
        else:
            smallest, need = 0, left
            for v in range(1, top + 1):
                if pool[v] >= need:
                    smallest += need * v
                    break
                smallest += pool[v] * v
                need -= pool[v]
            if smallest <= rest:
                largest, need = 0, left
                for v in range(top, 0, -1):
                    if pool[v] >= need:
                        largest += need * v
                        break
                    largest += pool[v] * v
                    need -= pool[v]
                if rest <= largest:
                    break
        moves -= 1
    return moves * k


@dataclass(frozen=True)
class _Family:
    """A few fixed dual weight vectors (see ``packing_weights``), packed for a quick minimum.

    Any weights y >= 0 under which every combination weighs at least 1 bound a pool's moves
    by the pool's weight, whatever the pool: the weights need not be optimal for it. So a
    handful of vectors, found once per variant, bound the stock phase's multisets almost as
    tightly as solving the linear program for each (classic: a third fewer states). Weights
    are integers over ``denominator``; ``packed[v]`` holds value v's weight in every vector,
    one field of 1 to 8 bytes each (``code``, as for ``memoryview.cast``), so that one
    multiply-add per value weighs the pool under every vector and the lightest is read off
    the bytes in C.
    """

    denominator: int
    code: Literal["B", "H", "I", "Q"]
    size: int
    packed: tuple[int, ...]

    def weighed(self, pool: Sequence[int]) -> int:
        """The pool's weight under every vector, one field each. Weights add up: the search
        carries a multiset's weight and subtracts each move's (``_Move``)."""
        return sum(map(mul, pool, self.packed))

    def lightest(self, weighed: int) -> int:
        """The fewest moves any vector allows a pool of that weight (``weighed``)."""
        return min(memoryview(weighed.to_bytes(self.size, sys.byteorder)).cast(self.code)) // self.denominator


_FAMILIES: dict[Variant, _Family | None] = {}
# Random plays sampled for the family, linear programs solved, denominators tried, vectors kept.
FAMILY_PLAYS, FAMILY_SOLVED, FAMILY_DENOMINATOR, FAMILY_KEPT = 12, 30, 24, 6


def _family_for(variant: Variant) -> _Family | None:
    """A variant's family: optimal dual vectors of multisets that random play leaves in its
    first half (the kind of multiset the stock phase spends its states on), the vectors that
    beat the value-sum bound most often first. None unless they beat it on a quarter of
    those multisets: otherwise each bound would pay for the family without saving states (the
    linear program beats it on 17 of 32 such multisets on classic, 0-7 of 30-59 on pairs,
    quads, sum15 and grid). Deterministic (a generator seeded by the variant's name), some
    milliseconds of linear programs once per variant."""
    if variant in _FAMILIES:
        return _FAMILIES[variant]
    rule = _rules_for(variant)
    generator = random.Random(variant.name)
    pools: list[list[int]] = []
    for _ in range(FAMILY_PLAYS):
        pool, play = list(variant.copies), []
        while True:
            fits = [c for c, used in zip(rule.combos, rule.uses, strict=True) if all(pool[v] >= m for v, m in used)]
            if not fits:
                break
            for v in generator.choice(fits):
                pool[v] -= 1
            play.append(list(pool))
        pools += play[: len(play) // 2]
    wins: dict[tuple[Fraction, ...], int] = {}
    solved = pools[:: max(1, len(pools) // FAMILY_SOLVED)]
    for pool in solved:
        weights = packing_weights(variant, pool)
        if weights is None:
            continue
        exact = tuple(Fraction(w).limit_denominator(FAMILY_DENOMINATOR) for w in weights)
        # Rounding may have broken a combination's weight of 1: then the vector is no bound.
        if any(sum(exact[v] for v in combo) < 1 for combo in rule.combos):
            continue
        moves = int(sum(y * c for y, c in zip(exact, pool, strict=True)))
        if moves * rule.per_move < _value_bound(rule, sum(pool), sum(v * c for v, c in enumerate(pool)), pool):
            wins[exact] = wins.get(exact, 0) + 1
    family = None
    if sum(wins.values()) * 4 >= len(solved):
        kept = sorted(wins, key=lambda vector: -wins[vector])[:FAMILY_KEPT]
        denominator = lcm(*(y.denominator for vector in kept for y in vector))
        scaled = [[int(y * denominator) for y in vector] for vector in kept]
        # A field holds the heaviest pool's weight: the whole deck's.
        heaviest = max(sum(y * c for y, c in zip(vector, variant.copies, strict=True)) for vector in scaled)
        width = next(width for width in (1, 2, 4, 8) if heaviest < 1 << (8 * width))
        packed = tuple(
            sum(vector[v] << (8 * width * i) for i, vector in enumerate(scaled)) for v in range(rule.top + 1)
        )
        code: Literal["B", "H", "I", "Q"] = "B" if width == 1 else "H" if width == 2 else "I" if width == 4 else "Q"
        family = _Family(denominator=denominator, code=code, size=width * len(kept), packed=packed)
    _FAMILIES[variant] = family
    return family


def _make_room(depth: int) -> int:
    """Make sure ``depth`` more frames fit on top of whatever called us, and return the
    recursion limit to restore afterwards (0: it was left alone). Each search level removes
    at least one card, so the deck size bounds the depth: about a hundred frames for grid100,
    inside Python's default limit unless the caller is already deep."""
    limit = sys.getrecursionlimit()
    # Asking for a frame deeper than the stack raises: the common case, told without walking
    # the stack in Python (which cost as much as a small classic search).
    try:
        sys._getframe(max(0, limit - depth - 50))
    except ValueError:
        return 0
    used, frame = 0, sys._getframe()
    while frame.f_back is not None:
        used, frame = used + 1, frame.f_back
    wanted = used + depth + 50
    if wanted <= limit:
        return 0
    sys.setrecursionlimit(wanted)
    return limit


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """``_make_room`` for a block (the fair player's expectimax recurses as deep, and uses it too)."""
    restore = _make_room(depth)
    try:
        yield
    finally:
        if restore:
            sys.setrecursionlimit(restore)


def analyse(table: Table) -> SearchResult:
    """Search the table's position to the end. Reads the table only; never changes it."""
    searcher = _Search(table.variant, table.deck_values)
    searcher.root(table.values, table.next_card, table.cleared)
    # ``recursion_room`` without the generator: a classic search is some tens of microseconds.
    restore = _make_room(searcher.size)
    try:
        return searcher.run()
    finally:
        if restore:
            sys.setrecursionlimit(restore)


def analyse_values(variant: Variant, values: Sequence[int], deck: Sequence[int], next_card: int) -> SearchResult:
    """``analyse`` for a position given as values: ``values`` on the table (0 for an empty
    slot), the stock ``deck[next_card:]``, nothing cleared yet."""
    searcher = _Search(variant, deck)
    searcher.root(values, next_card, 0)
    with recursion_room(len(deck) - next_card + len(values)):
        return searcher.run()


class FixedDeck:
    """Exact best scores of many positions over one deck order, sharing one memo: the fair
    player scores every candidate move on the same sampled order of the unseen cards, and
    their positions lie in that one deck's state space."""

    def __init__(self, variant: Variant, deck: Sequence[int]) -> None:
        """``deck`` holds values, top first; positions index into it."""
        self._search = _Search(variant, deck)
        self._search.lines = False

    def best_gain(self, values: Sequence[int], next_card: int) -> int:
        """The most cards any line clears from the position with ``values`` on the table (0 for
        an empty slot) and the stock ``deck[next_card:]``."""
        searcher = self._search
        searcher.root(values, next_card, 0)
        with recursion_room(searcher.size - next_card + len(values)):
            return searcher.run().best

    def reaches(self, values: Sequence[int], next_card: int, goal: int) -> bool:
        """Whether some line clears at least ``goal`` cards from that position. Cheaper than
        ``best_gain`` when it is not: starting from an incumbent of ``goal - 1`` cuts every
        state that cannot reach the goal."""
        searcher = self._search
        searcher.root(values, next_card, 0)
        searcher.best = max(searcher.best, goal - 1)
        with recursion_room(searcher.size - next_card + len(values)):
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
            move = rules.first_slots(combo, rules.slots_by_value(table.values))
            table.push(move)
            moves.append(move)
    finally:
        for _ in moves:
            table.pop()
    return moves


@dataclass
class _Caches:
    """What searches of one variant remember between them, each emptied when it passes
    ``CACHE_KEPT`` entries: every table and multiset recurs under many stock positions, and
    across deals (one look-up per search finds them all: a classic search is a tenth of a
    millisecond)."""

    # The stock phase's bound per multiset of cards not yet cleared (binary layout): it
    # depends on nothing else.
    bounds: dict[int, int] = field(default_factory=dict)
    # The combinations each pattern of values present can supply (``playable_at``).
    candidates: dict[int, tuple[_Move, ...]] = field(default_factory=dict)
    # The unary key and counts of each table the stock phase hands to ``pack``.
    unary: dict[int, tuple[int, tuple[int, ...]]] = field(default_factory=dict)

    def trim(self) -> None:
        for cache in (self.bounds, self.candidates, self.unary):
            if len(cache) > CACHE_KEPT:
                cache.clear()


_CACHES: dict[Variant, _Caches] = {}
CACHE_KEPT = 500_000
# Per variant: its rules, caches, family (None without a stock) and moves with their family
# weights, one look-up per search.
_KITS: dict[Variant, _Kit] = {}


def _kit_for(variant: Variant) -> _Kit:
    global _LAST_KIT
    kit = _KITS.get(variant)
    if kit is None:
        caches = _CACHES.get(variant)
        if caches is None:
            caches = _CACHES[variant] = _Caches()
        family = _family_for(variant) if variant.deck_size > variant.slots else None
        rule = _rules_for(variant)
        packed = family.packed if family is not None else (0,) * (rule.top + 1)
        moves = tuple((combo, delta, sum(packed[v] for v in combo)) for combo, delta in rule.moves)
        kit = _KITS[variant] = (rule, caches, family, moves)
    _LAST_KIT = (variant, kit)
    return kit


# The last variant searched and its kit: told by identity, since hashing a variant hashes
# all its fields (which costs more than the rest of setting up a search).
_LAST_KIT: tuple[Variant, _Kit] | None = None


class _Search:
    """One search from one position. All mutable state lives here; the table is only read."""

    # Slots: a search is built per deal and its attributes are read in the hot loop.
    __slots__ = (
        "base",
        "best",
        "best_line",
        "bounds",
        "candidates",
        "cap",
        "counts",
        "deck",
        "family",
        "guards",
        "key",
        "lines",
        "memo",
        "moves",
        "on_table",
        "ones",
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

    def __init__(self, variant: Variant, deck: Sequence[int]) -> None:
        self.variant = variant
        self.deck = deck
        self.size = len(deck)
        # Entries depend on the deck only, never on the root: every root over this deck
        # order can share them (``FixedDeck``).
        self.memo: dict[int, int] = {}
        # Whether ``run`` completes a line found through the memo (``FixedDeck`` needs none).
        self.lines = True
        last = _LAST_KIT
        kit = last[1] if last is not None and last[0] is variant else _kit_for(variant)
        rule, caches, self.family, self.moves = kit
        self.rules = rule
        caches.trim()
        self.bounds, self.candidates, self.unary = caches.bounds, caches.candidates, caches.unary
        # Per stock position p: the stock deck[p:] as a binary-layout histogram. The table's
        # key plus this is the multiset the bound reads; the difference of two is a refill.
        self.stock_left = list(accumulate(map(rule.units.__getitem__, reversed(deck)), initial=0))
        self.stock_left.reverse()
        self.table_mask = (1 << rule.stock_shift) - 1
        # The hot loop's constants, one attribute look-up each.
        self.per_move, self.target, self.stock_shift = rule.per_move, rule.target, rule.stock_shift
        self.guards, self.ones = rule.guards, rule.ones

    def root(self, values: Sequence[int], next_card: int, cleared: int) -> None:
        """Start a search from the position with ``values`` on the table (0 for an empty slot),
        the stock ``deck[next_card:]`` and ``cleared`` cards already cleared."""
        rule = self.rules
        # The counts serve the packing phase only: ``from_stock`` and ``into_packing`` fill
        # them when the search gets there.
        self.counts = rules.histogram(values, rule.top) if next_card >= self.size else [0] * (rule.top + 1)
        # The stock phase's memo key (binary layout, position above).
        self.state = sum(map(rule.units.__getitem__, values)) + (next_card << rule.stock_shift)
        self.start = next_card
        self.on_table = len(values) - values.count(0)
        # What every card not yet cleared, on the table or in the stock, is worth.
        self.value = sum(values) + sum(islice(self.deck, next_card, None))
        # Every dealt card is cleared or on the table, so this is 0 for any table built by
        # push/pop; keeping it makes the answer the table's own cleared plus what is gained.
        self.base = cleared - (next_card - self.on_table)
        self.states = 0
        self.path: list[Combo] = []
        self.best = cleared
        self.best_line: tuple[Combo, ...] = ()
        # The state the incumbent's line goes on from, when it was found in the memo.
        self.pending: tuple[int, int, bool] | None = None
        self.cap = cleared
        # Dual weights for the packing phase (packing_weights), when the root has no stock.
        self.weights: list[float] | None = None

    def weighed(self, pool: Sequence[int]) -> int:
        """The packing bound: whole moves weigh at least 1 each (see ``packing_weights``)."""
        weights = self.weights
        if weights is None:
            return self.size
        total = sum(w * c for w, c in zip(weights, pool, strict=False))
        # The slack absorbs float error in the sum; it can only loosen the bound.
        return int(total + 1e-6) * self.rules.per_move

    def dive(self) -> None:
        """The incumbent for a position with a stock: the line that always plays the first
        playable combination, high cards first, to the end. It is the search's own first
        descent, without its memo and bounds: where it reaches the root's bound (about 40% of
        classic deals) the search is skipped, and the dive costs a fraction of that descent."""
        k, size, guards, stock_left = self.per_move, self.size, self.guards, self.stock_left
        moves = self.rules.moves
        table, p, n = self.state & self.table_mask, self.start, self.on_table
        line: list[Combo] = []
        while True:
            raised = table | guards
            for move in moves:
                if raised - move[1] & guards == guards:
                    break
            else:
                break
            combo, delta = move
            line.append(combo)
            # Past the stock's end the refill is empty: the same step plays the packing.
            after = min(p + k, size)
            table += stock_left[p] - stock_left[after] - delta
            n += after - p - k
            p = after
        cleared = self.base + p - n
        if cleared > self.best:
            self.best, self.best_line, self.pending = cleared, tuple(line), None

    def greedy(self) -> None:
        """The incumbent for a position with an empty stock: each turn play the combination
        that leaves the most combinations playable (ties to the first in high-cards-first
        order).

        Without a refill a move only takes cards away, so what stays playable is the playable
        set minus the combinations needing a card it took: as bit sets, a few int operations
        per candidate, which keeps grid100's 33 turns of some 50 candidates cheap.
        """
        rule = self.rules
        k, combos, needs, uses, holders, bits = (
            rule.per_move,
            rule.combos,
            rule.needs,
            rule.uses,
            rule.holders,
            rule.bits,
        )
        counts = list(self.counts)
        key, n = self.key, self.on_table
        line: list[Combo] = []
        while True:
            playable = [i for i, need in enumerate(needs) if key & need == need]
            if not playable:
                break
            playable_set = sum(1 << i for i in playable)
            chosen, chosen_score = playable[0], -1
            for i in playable:
                lost = 0
                for v, m in uses[i]:
                    lost |= holders[v][counts[v] - m]
                score = (playable_set & ~lost).bit_count()
                if score > chosen_score:
                    chosen, chosen_score = i, score
            combo = combos[chosen]
            for v in combo:
                counts[v] -= 1
                key ^= bits[v][counts[v]]
            n -= k
            line.append(combo)
        cleared = self.base + self.start - n
        if cleared > self.best:
            self.best, self.best_line, self.pending = cleared, tuple(line), None

    def run(self) -> SearchResult:
        p, n = self.start, self.on_table
        rest = (self.state & self.table_mask) + self.stock_left[p]
        family = self.family
        weight = family.weighed(rest.to_bytes(self.rules.top + 1, "little")) if family is not None else 0
        cap = self.bounds.get(rest, -1)
        if cap < 0:
            cap = self.bound_of(rest, n + self.size - p, self.value, weight)
        self.cap = self.base + p - n + cap
        if p < self.size:
            if not self.memo.get(self.state, 0) & 1:
                self.dive()
        else:
            width = self.rules.width
            self.key = sum(((1 << c) - 1) << (width * (v - 1)) for v, c in enumerate(self.counts) if v)
            # A lookahead greedy line: packing is where a good incumbent pays (with a stock the
            # plain dive; a lookahead pass there was measured 5-35% slower overall).
            self.greedy()
            if self.best < self.cap:
                self.weights = packing_weights(self.variant, self.counts)
                self.cap = min(self.cap, self.base + p - n + self.weighed(self.counts))
        if self.best < self.cap:
            with suppress(_Stop):
                self.search(p, n, self.value, self.state, self.memo.get(self.state), -1, weight)
        if self.pending is not None and self.lines:
            self.best_line += self.line_from(*self.pending)
        return SearchResult(best=self.best, states=self.states, line=self.best_line, bound=self.cap)

    def line_from(self, key: int, p: int, unary: bool) -> tuple[Combo, ...]:
        """A best line from a state the memo settled: a fresh search of it (whose own line is
        complete, rebuilt the same way from deeper states if need be)."""
        values = self.table_values(key, unary)
        rebuilt = _Search(self.variant, self.deck)
        rebuilt.root(values, p, 0)
        return rebuilt.run().line

    def table_values(self, key: int, unary: bool) -> list[int]:
        """The table's values from a key in either layout (the stock position, if any, above)."""
        rule = self.rules
        if unary:
            counts = [(key & rule.fields[v]).bit_count() for v in range(rule.top + 1)]
        else:
            mask = (1 << rule.binary_width) - 1
            counts = [(key >> rule.offsets[v]) & mask if v else 0 for v in range(rule.top + 1)]
        return [v for v in range(1, rule.top + 1) for _ in range(counts[v])]

    def playable_at(self, table: int) -> tuple[_Move, ...]:
        """The combinations the table (binary layout) can supply, each with its key delta."""
        # With every guard bit set, subtracting the delta borrows a field's guard bit exactly
        # when the field holds fewer cards than the combination takes (and never further).
        rule = self.rules
        guards = rule.guards
        raised = table | guards
        # The guard bits of the values present: few patterns recur (under 800 on classic and
        # quads), and each narrows the combinations to test to those it can supply at all.
        present = raised - rule.ones & guards
        candidates = self.candidates.get(present)
        if candidates is None:
            candidates = self.candidates_of(present)
        return tuple([move for move in candidates if raised - move[1] & guards == guards])

    def candidates_of(self, present: int) -> tuple[_Move, ...]:
        """The moves whose values all lie in ``present`` (guard bits of the values on a
        table), remembered per pattern."""
        candidates = self.candidates[present] = tuple(
            [move for move, ones in zip(self.moves, self.rules.spans, strict=True) if present & ones == ones]
        )
        return candidates

    def bound_of(self, rest: int, cards: int, value: int, weight: int) -> int:
        """``bound`` for the multiset ``rest`` (binary layout) of ``cards`` cards worth
        ``value`` and weighing ``weight`` under the family (``_Family.weighed``), remembered
        per multiset."""
        rule = self.rules
        cap = -1
        family = self.family
        if family is not None:
            # Below the value sum's count of moves the family is the tighter bound (its test
            # of the cards left over would rarely cut further: on classic, never).
            moves = family.lightest(weight)
            if moves < cards // rule.per_move and moves < value // rule.target:
                cap = moves * rule.per_move
        if cap < 0:
            pool = rest.to_bytes(rule.top + 1, "little")  # byte v: value v's count, byte 0 empty
            cap = _value_bound(rule, cards, value, pool)
        self.bounds[rest] = cap
        return cap

    def improve(self, cleared: int) -> None:
        self.best, self.best_line, self.pending = cleared, tuple(self.path), None
        if cleared >= self.cap:
            raise _Stop

    def improve_through(self, cleared: int, key: int, p: int, combo: Combo | None, unary: bool = False) -> None:
        """A new incumbent of ``cleared`` through a state settled exactly in the memo (after
        ``combo``, when given, from the current path), whose line this search never walked:
        the state is kept, and ``run`` rebuilds the line from it.

        A state's memo entry is what it can still clear, but in the packing phase one state
        is reached with different totals cleared (a card set aside is not cleared), and a
        memo shared by several roots (``FixedDeck``) holds states settled by earlier roots."""
        path = tuple(self.path) if combo is None else (*self.path, combo)
        self.best, self.best_line, self.pending = cleared, path, (key, p, unary)
        if cleared >= self.cap:
            raise _Stop

    def search(self, p: int, n: int, value: int, state: int, entry: int | None, bound: int, weight: int) -> int:
        """What the state can still clear, as ``bound << 1 | exact``, while the stock lasts.
        ``value`` is what the cards not yet cleared are worth; ``state`` is the memo key: the
        table's counts in the binary layout, the stock position above. The caller has looked
        up the state's memo ``entry`` already, and its multiset's ``bound`` (-1: not known).
        ``weight`` is the multiset's weight under the family (``_Family.weighed``)."""
        size = self.size
        cleared = self.base + p - n
        if cleared > self.best:
            self.improve(cleared)
        memo = self.memo
        if entry is not None and (entry & 1 or cleared + (entry >> 1) <= self.best):
            if cleared + (entry >> 1) > self.best:
                self.improve_through(cleared + (entry >> 1), state, p, None)
            return entry
        if p == size:
            # Stored under this key too, so that the parent's look-up settles it next time.
            entry = memo[state] = self.from_stock(n, value, state)
            return entry
        table = state & self.table_mask
        # Every card not yet cleared is on the table or in the stock; a move's refill only
        # moves cards from one to the other, so a child's multiset is this minus the move.
        rest = table + self.stock_left[p]
        bounds = self.bounds
        if entry is not None:
            cap = entry >> 1
        else:
            # The bound before the moves: a state it cuts tests none.
            cap = bound if bound >= 0 else bounds.get(rest, -1)
            if cap < 0:
                cap = self.bound_of(rest, n + size - p, value, weight)
            if cleared + cap <= self.best:
                memo[state] = cap << 1
                return cap << 1
        k = self.per_move
        child_p = p + k if p + k < size else size
        # The refill's cards join the table, and the position advances past them.
        refilled = state + rest - table - self.stock_left[child_p] + (child_p - p << self.stock_shift)
        child_n = n - k + child_p - p
        child_value = value - self.target
        child_cleared = cleared + k
        if child_p == size:
            playable = self.playable_at(table)
            if not playable:
                memo[state] = 1
                return 1
            self.states += 1
            return self.into_packing(state, cap, playable, refilled, child_n, child_value, child_cleared)
        # The playable list is not built: each candidate of the table's pattern of values is
        # tested in the loop (most tables occur once, so a list would be built for one use).
        guards = self.guards
        raised = table | guards
        present = raised - self.ones & guards
        candidates = self.candidates.get(present)
        if candidates is None:
            candidates = self.candidates_of(present)
        path = self.path
        # Counted now, taken back below when no candidate turns out playable (a _Stop can
        # only come from a playable one).
        self.states += 1
        exact_best = bound_best = 0
        for combo, delta, lost in candidates:
            if raised - delta & guards != guards:
                continue
            child = refilled - delta
            # A child settled by the memo, or cut by its entry or its multiset's known bound,
            # costs no call: on classic most children are one of these.
            result = memo.get(child)
            if result is None:
                cut = bounds.get(rest - delta, -1)
                if cut < 0 or child_cleared + cut > self.best:
                    path.append(combo)
                    result = self.search(child_p, child_n, child_value, child, None, cut, weight - lost)
                    path.pop()
                else:
                    result = cut << 1
            elif result & 1:
                if child_cleared + (result >> 1) > self.best:
                    self.improve_through(child_cleared + (result >> 1), child, child_p, combo)
            elif child_cleared + (result >> 1) > self.best:
                path.append(combo)
                result = self.search(child_p, child_n, child_value, child, result, -1, weight - lost)
                path.pop()
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        if not bound_best and not exact_best:
            # Nothing was playable: every move gains at least ``k``.
            self.states -= 1
            memo[state] = 1
            return 1
        # ``settle``, inlined: this is the hot path.
        found = exact_best if exact_best > bound_best else bound_best
        if found > cap:
            found = cap
        entry = found << 1 | (exact_best >= found)
        memo[state] = entry
        return entry

    def from_stock(self, n: int, value: int, state: int) -> int:
        """A root with an empty stock: ``pack`` its table."""
        key, self.counts[:] = self.unary_of(state & self.table_mask)
        return self.pack(n, value, key, self.base + self.size - n)

    def unary_of(self, table: int) -> tuple[int, tuple[int, ...]]:
        """The unary key and the counts of a table (binary layout), remembered per table: on
        sum15 and grid, where most states are packing, converting costs a tenth of the time."""
        converted = self.unary.get(table)
        if converted is None:
            rule = self.rules
            counts = tuple(table.to_bytes(rule.top + 1, "little"))  # byte v: value v's count
            key = sum(((1 << c) - 1) << (rule.width * (v - 1)) for v, c in enumerate(counts) if v)
            converted = self.unary[table] = (key, counts)
        return converted

    def into_packing(
        self,
        state: int,
        cap: int,
        playable: tuple[_Move, ...],
        refilled: int,
        n: int,
        value: int,
        cleared: int,
    ) -> int:
        """``search``'s loop for the moves that take the stock's last cards: each child is a
        packing state, handed to ``pack`` in its layout (``pack`` checks its own memo)."""
        k, mask, counts, path = self.rules.per_move, self.table_mask, self.counts, self.path
        exact_best = bound_best = 0
        for combo, delta, _ in playable:
            key, counts[:] = self.unary_of((refilled - delta) & mask)
            path.append(combo)
            result = self.pack(n, value, key, cleared)
            path.pop()
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        return self.settle(state, cap, exact_best, bound_best)

    def pack(self, n: int, value: int, key: int, cleared: int) -> int:
        """The same once the stock is empty, where any disjoint combinations can be played in
        any order. ``cleared`` is passed in because a card set aside leaves the state without
        being cleared; ``value`` is what the table is worth."""
        if cleared > self.best:
            self.improve(cleared)
        rule = self.rules
        memo = self.memo
        # One past the end: the stock phase keeps its own (binary) entries for the end
        # position, and these unary keys must never be read as them.
        at_end = (self.size + 1) << rule.position_shift
        memo_key = key | at_end
        entry = memo.get(memo_key)
        if entry is not None and (entry & 1 or cleared + (entry >> 1) <= self.best):
            if cleared + (entry >> 1) > self.best:
                self.improve_through(cleared + (entry >> 1), key, self.size, None, unary=True)
            return entry
        counts, top = self.counts, rule.top
        blocked = 0
        for v in range(1, top + 1):
            blocked |= rule.holders[v][counts[v]]
        playable = rule.every & ~blocked
        if not playable:
            memo[memo_key] = 1
            return 1
        # A card that no playable combination uses will never be cleared, since taking cards
        # only ever removes combinations: drop it. The smaller state shares its memo entry
        # with every state that differs from it only in such dead cards, and bounds tighter.
        dead = [v for v in range(1, top + 1) if counts[v] and not playable & rule.containing[v]]
        if dead:
            core = key
            for v in dead:
                core &= ~rule.fields[v]
                n -= counts[v]
                value -= v * counts[v]
            dropped = [counts[v] for v in dead]
            for v in dead:
                counts[v] = 0
            entry = self.pack(n, value, core, cleared)
            for v, count in zip(dead, dropped, strict=True):
                counts[v] = count
            memo[memo_key] = entry
            return entry
        if entry is not None:
            cap = entry >> 1
        else:
            cap = _value_bound(rule, n, value, counts)
            if self.weights is not None:
                cap = min(cap, self.weighed(counts))
            if cleared + cap <= self.best:
                memo[memo_key] = cap << 1
                return cap << 1
        k, target, width = rule.per_move, rule.target, rule.width
        bits, path = rule.bits, self.path
        self.states += 1
        low = ((key & -key).bit_length() - 1) // width + 1
        exact_best = bound_best = 0
        for combo, need in rule.by_low[low]:
            if key & need != need:
                continue
            child = key
            for v in combo:
                counts[v] -= 1
                child ^= bits[v][counts[v]]
            result = memo.get(child | at_end, 0)
            if not result & 1:
                path.append(combo)
                result = self.pack(n - k, value - target, child, cleared + k)
                path.pop()
            elif cleared + k + (result >> 1) > self.best:
                # A _Stop here leaves counts changed: the search is over, the rebuild reads the key.
                self.improve_through(cleared + k + (result >> 1), child, self.size, combo, unary=True)
            for v in combo:
                counts[v] += 1
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        if exact_best < cap:
            # No line uses this card of the smallest value: set it aside for good.
            counts[low] -= 1
            result = self.pack(n - 1, value - low, key ^ bits[low][counts[low]], cleared)
            counts[low] += 1
            gained = result >> 1
            if result & 1:
                exact_best = max(exact_best, gained)
            else:
                bound_best = max(bound_best, gained)
        return self.settle(memo_key, cap, exact_best, bound_best)

    def settle(self, memo_key: int, cap: int, exact_best: int, bound_best: int) -> int:
        """Store and return a state's result: exact when the best exact child is at least every
        child's bound; otherwise only the largest bound is known. (Every exact child has
        already raised the incumbent, walked or not: ``improve_through``.)"""
        found = min(cap, max(exact_best, bound_best))
        entry = found << 1 | (exact_best >= found)
        self.memo[memo_key] = entry
        return entry
