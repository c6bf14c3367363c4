"""The fair player's exact part: optimal play for a player who cannot see the stock.

A state is the count of each value on the table and among the unseen cards, packed into one
int. Value v owns a table field (with a guard bit above it) and
an unseen field, so a move subtracts a constant (its ``need``), drawing a card of value v adds
one (``+1`` in the table field, ``-1`` in the unseen field), and "can this combination be
played" is one borrow test on the guard bits. A state whose table has room while cards are
unseen is a chance node that draws one card: a refill of r cards is r single draws, so a
chance node has at most one child per value and partially refilled tables are shared. Slots
never matter (only values add up), and the cards cleared are the deck minus both multisets.
When the values and the deck are symmetric under v -> s - v with k * s = 2 * target (sum15,
grid: v -> 10 - v; pairs: v -> 14 - v), the moves map onto moves, so a state and its mirror
image share one memo entry; the mirror key is carried along as a second int, and a state is
always worked out from the smaller of its two keys, so its float never depends on which image
came first. A decision node stops trying moves once one reaches what the cards left allow
(``most_in_play`` for positions of play: the deck less whole moves).

The memo is kept per variant between moves and games (``triples.engines.fair.exact_player``), bounded,
and so are the draws of each unseen multiset (``Expectimax.drawn``): a chance node walks only
the values it can draw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from triples.engines import search
from triples.model.derived import Combo, derived
from triples.model.variant import Variant
from triples.support import caches, deadline

# What a state is worth: expected cards cleared, or that and the chance of a clear (``ExpectimaxWin``).
Value = TypeVar("Value", float, complex)
# The recursion: (key, its mirror key, cards on the table, cards unseen) -> the state's worth.
Recursion = Callable[[int, int, int, int], Value]
# A decision node's worth, given the recursion for its children and the node's four numbers.
Decide = Callable[[Recursion[Value], int, int, int, int], Value]

# The exact memo is kept between moves and games; past this size its oldest entries go first.
MEMO_LIMIT = 1_000_000
# Unseen multisets whose draws are kept (``_recursion``), the oldest dropped first past it.
DRAWS_LIMIT = 200_000
# A chance node's draws: per value unseen, its count and what drawing it adds to both keys.
Draws = tuple[tuple[int, int, int], ...]
# The deadline is checked once per so many states the expectimax settles: 1024 on rules with
# few combinations, more often with more (``triples.support.deadline.check_mask``).


@dataclass(frozen=True)
class Packing:
    """A variant's state encoding for the exact part (see the module docstring)."""

    variant: Variant
    per_move: int
    slots: int
    top: int
    table_shift: tuple[int, ...]  # per value: where its table field starts
    unseen_shift: tuple[int, ...]  # per value: where its unseen field starts
    unseen_mask: int  # an unseen field's bits, at the bottom
    guards: int  # every table field's guard bit
    # Per combination, in high-cards-first order: (values, need, the mirror image's need).
    moves: tuple[tuple[Combo, int, int], ...]
    # Per value: (value, unseen shift, what drawing it adds, what it adds to the mirror key).
    draws: tuple[tuple[int, int, int, int], ...]
    mirror: int  # s in v -> s - v, or 0 when the variant has no such symmetry
    # In play, the cards left (on the table and unseen) are the deck less whole moves, so
    # their worth follows from their number: per number of cards left, the most a line can
    # still clear (``most_in_play``).
    deck_size: int
    deck_value: int
    most_in_play: tuple[int, ...]

    def pack(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> tuple[int, int]:
        """The key of a state and the key of its mirror image (the key itself when none)."""
        return self._key(table_counts, unseen_counts, False), self._key(table_counts, unseen_counts, bool(self.mirror))

    def _key(self, table_counts: Sequence[int], unseen_counts: Sequence[int], mirrored: bool) -> int:
        key = 0
        for v in range(1, self.top + 1):
            w = self.mirror - v if mirrored else v
            key |= table_counts[v] << self.table_shift[w] | unseen_counts[v] << self.unseen_shift[w]
        return key


def _build_packing(variant: Variant) -> Packing:
    tables = derived(variant)
    top, copies, layout = tables.top, variant.copies, tables.counts
    table_shift = layout.shift  # the shared count layout: a guard bit above each count
    unseen_width = max(copies).bit_length()
    base = layout.end
    unseen_shift = (0, *(base + unseen_width * (v - 1) for v in range(1, top + 1)))
    s = top + 1
    symmetric = variant.per_move * s == 2 * variant.target and all(copies[v] == copies[s - v] for v in range(1, s))
    mirror = s if symmetric else 0

    def need(combo: Combo, mirrored: bool) -> int:
        return sum(1 << table_shift[mirror - v if mirrored else v] for v in combo)

    moves = tuple((combo, need(combo, False), need(combo, bool(mirror))) for combo in tables.high_first)
    draws = []
    for v in range(1, top + 1):
        w = mirror - v if mirror else v
        add = (1 << table_shift[v]) - (1 << unseen_shift[v])
        mirror_add = (1 << table_shift[w]) - (1 << unseen_shift[w])
        draws.append((v, unseen_shift[v], add, mirror_add))
    return Packing(
        variant=variant,
        per_move=variant.per_move,
        slots=variant.slots,
        top=top,
        table_shift=table_shift,
        unseen_shift=unseen_shift,
        unseen_mask=(1 << unseen_width) - 1,
        guards=layout.guards,
        moves=moves,
        draws=tuple(draws),
        mirror=mirror,
        deck_size=variant.deck_size,
        deck_value=sum(v * c for v, c in enumerate(copies)),
        most_in_play=most_in_play(variant),
    )


def most_in_play(variant: Variant) -> tuple[int, ...]:
    """Per number c of cards left in play, an upper bound on the cards still cleared: m more
    moves take m * k cards worth m * target, and the cards they leave must be able to make up
    the worth left over (none left: nothing; one: a card's value; more: between one and the
    top value each). With the deck less whole moves left, the worth left is the deck's less a
    target per move; a count off that lattice bounds nothing (-1 there)."""
    k, target, top, size = variant.per_move, variant.target, variant.max_value, variant.deck_size
    value = sum(v * c for v, c in enumerate(variant.copies))
    out = []
    for cards in range(size + 1):
        if (size - cards) % k:
            out.append(-1)
            continue
        worth = value - target * ((size - cards) // k)
        moves = max(0, min(cards // k, worth // target))
        while moves > 0:
            left, rest = cards - moves * k, worth - moves * target
            if rest == 0 if left == 0 else 1 <= rest <= top if left == 1 else left <= rest <= left * top:
                break
            moves -= 1
        out.append(moves * k)
    return tuple(out)


packing_for = caches.per_variant("fair packings", _build_packing)


def _recursion(
    packing: Packing,
    memo: dict[int, Value],
    zero: Value,
    decide: Decide[Value],
    drawn: dict[int, Draws],
) -> Recursion[Value]:
    """The memoised recursion over (key, its mirror key, cards on the table, cards unseen).
    A chance node (the table has room while cards are unseen) is the average over its draws,
    written here; a decision node's worth is ``decide``'s, given the recursion to call on the
    moves' children (each goal picks its own best move). ``zero`` is the nothing of the goal.
    ``drawn`` keeps each unseen multiset's draws (``draws_of``)."""
    slots, mask, base = packing.slots, packing.unseen_mask, packing.unseen_shift[1]
    every = deadline.check_mask(len(packing.moves))
    draws = tuple((shift - base, add, mirror_add) for _, shift, add, mirror_add in packing.draws)

    def draws_of(unseen: int) -> Draws:
        """Per value unseen, in value order: its count, what drawing it adds to the key and
        to the mirror key. Remembered per unseen multiset (the key's top fields): a chance
        node then walks only the values it can draw, without reading their counts."""
        made = drawn[unseen] = tuple(
            [(unseen >> shift & mask, add, mirror_add) for shift, add, mirror_add in draws if unseen >> shift & mask]
        )
        return made

    def settle(key: int, mirror_key: int, n: int, u: int) -> Value:
        """The worth of a state not in the memo (its callers looked it up already)."""
        if mirror_key < key:
            # Worked out from the smaller of the two images, always: a state's value is then
            # the same float whichever image was met first (its sums in one order).
            key, mirror_key = mirror_key, key
        if u and n < slots:
            total = zero
            kinds = drawn.get(key >> base)
            if kinds is None:
                kinds = draws_of(key >> base)
            for count, add, mirror_add in kinds:
                # Most children are memo hits: look them up here, not in a call.
                child, mirror_child = key + add, mirror_key + mirror_add
                found = memo.get(child if child < mirror_child else mirror_child)
                if found is None:
                    found = settle(child, mirror_child, n + 1, u - 1)
                total += count * found
            result = total / u
        else:
            result = decide(settle, key, mirror_key, n, u)
        memo[key] = result
        if not len(memo) & every:
            deadline.check()
        return result

    def value(key: int, mirror_key: int, n: int, u: int) -> Value:
        found = memo.get(key if key < mirror_key else mirror_key)
        return settle(key, mirror_key, n, u) if found is None else found

    return value


class Expectimax:
    """Exact optimal fair play for one variant: ``expected`` is the largest expected number of
    cards a player who cannot see the stock still clears. One memo serves every position."""

    def __init__(self, variant: Variant) -> None:
        self.packing = packing_for(variant)
        # Values of a pure function of the key: shared by threads, trimmed between moves.
        self.kept: caches.Memo[int, float] = caches.Memo("fair exact", MEMO_LIMIT)
        self.memo = self.kept.data
        self.drawn: caches.Memo[int, Draws] = caches.Memo("fair exact draws", DRAWS_LIMIT)
        packing, k = self.packing, self.packing.per_move
        # Two walks over the one memo, each with bounds true of the states it meets (the
        # entries are exact either way): positions of play, and any counts at all.
        self._in_play = _recursion(packing, self.memo, 0.0, self._best_move(packing.most_in_play), self.drawn.data)
        every = tuple(c // k * k for c in range(packing.deck_size + 1))
        self._any_counts = _recursion(packing, self.memo, 0.0, self._best_move(every), self.drawn.data)

    def memos(self) -> tuple[caches.Memo[int, float], caches.Memo[int, Draws]]:
        """Its memos, counted with it against the caches' budget (``triples.support.caches``)."""
        return self.kept, self.drawn

    def trim(self) -> None:
        """Keep the memos within their bounds, in entries and (with every other cache) in bytes:
        between moves, never during a walk."""
        self.kept.trim()
        self.drawn.trim()
        caches.settle()

    def most(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> int:
        """An upper bound on the cards still cleared from this state, whatever is drawn."""
        cards = sum(table_counts[1:]) + sum(unseen_counts[1:])
        return self._bounds(table_counts, unseen_counts)[1][cards]

    def _bounds(
        self, table_counts: Sequence[int], unseen_counts: Sequence[int]
    ) -> tuple[Callable[[int, int, int, int], float], tuple[int, ...]]:
        """The walk for the state and its bounds: ``most_in_play``'s when its cards are the
        deck less whole moves (every position of a game), else cards left in whole moves."""
        packing = self.packing
        size, k = packing.deck_size, packing.per_move
        cards = sum(table_counts[1:]) + sum(unseen_counts[1:])
        worth = sum(v * (table_counts[v] + unseen_counts[v]) for v in range(1, packing.top + 1))
        moves_made, off = divmod(size - cards, k)
        if cards <= size and not off and worth == packing.deck_value - packing.variant.target * moves_made:
            return self._in_play, packing.most_in_play
        if cards > size:  # more cards than the deck holds: a walk with room for them
            every = tuple(c // k * k for c in range(cards + 1))
            return _recursion(packing, self.memo, 0.0, self._best_move(every), self.drawn.data), every
        return self._any_counts, tuple(c // k * k for c in range(size + 1))

    def expected(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> float:
        """The expected cards still cleared under optimal fair play from this state."""
        key, mirror_key = self.packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        walk = self._bounds(table_counts, unseen_counts)[0]
        search.ensure_room(2 * (n + u))  # a frame per move and one per drawn card
        return walk(key, mirror_key, n, u)

    def move_values(
        self, table_counts: Sequence[int], unseen_counts: Sequence[int], until: float | None = None
    ) -> list[tuple[Combo, float]]:
        """Each playable combination (high-cards-first order) with the expected cards cleared
        by playing it (its own cards included) and then playing optimally; with ``until``,
        only up to the first whose value reaches it."""
        packing = self.packing
        key, mirror_key = packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        guards, k = packing.guards, packing.per_move
        walk = self._bounds(table_counts, unseen_counts)[0]
        out: list[tuple[Combo, float]] = []
        search.ensure_room(2 * (n + u))
        for combo, need, mirror_need in packing.moves:
            if ((key | guards) - need) & guards == guards:
                out.append((combo, k + walk(key - need, mirror_key - mirror_need, n - k, u)))
                if until is not None and out[-1][1] >= until:
                    break
        return out

    def _best_move(self, mosts: Sequence[int]) -> Decide[float]:
        """The decision node; ``mosts[c]`` bounds what a state with c cards left can still
        clear (see ``_bounds``)."""
        packing, memo = self.packing, self.memo
        k, guards = packing.per_move, packing.guards
        moves = tuple((need, mirror_need) for _, need, mirror_need in packing.moves)

        def best_move(
            expected: Callable[[int, int, int, int], float], key: int, mirror_key: int, n: int, u: int
        ) -> float:
            """The decision node: the largest expected cards cleared over the playable moves.
            No line clears more than ``mosts`` allows: once a move reaches that, no other can
            beat it, and the maximum is the same float."""
            result = 0.0
            guarded = key | guards
            most = mosts[n + u]
            for need, mirror_need in moves:
                if (guarded - need) & guards == guards:
                    child, mirror_child = key - need, mirror_key - mirror_need
                    found = memo.get(child if child < mirror_child else mirror_child)
                    if found is None:
                        found = expected(child, mirror_child, n - k, u)
                    if found + k > result:
                        result = found + k
                        if result >= most:
                            break
            return result

        return best_move


class ExpectimaxWin:
    """Exact optimal fair play for both goals at once, the whole game from the deal: per state
    a complex number, real part the largest expected cards cleared, imaginary part the largest
    probability of clearing every card (each maximised by its own policy). A complex number is
    one object holding two floats, which keeps the memo at one value object per state."""

    def __init__(self, variant: Variant) -> None:
        self.packing = packing_for(variant)
        self.memo: dict[int, complex] = {}
        self._value = _recursion(self.packing, self.memo, 0j, self._best_moves(), {})

    def from_deal(self) -> complex:
        """The root chance node: every opening table, dealt from the whole deck."""
        packing = self.packing
        deck = packing.variant.copies
        return self.value([0] * len(deck), deck)

    def value(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> complex:
        key, mirror_key = self.packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        search.ensure_room(2 * (n + u))
        return self._value(key, mirror_key, n, u)

    def _best_moves(self) -> Decide[complex]:
        packing, memo = self.packing, self.memo
        k, guards = packing.per_move, packing.guards
        moves = tuple((need, mirror_need) for _, need, mirror_need in packing.moves)

        def best_moves(
            value: Callable[[int, int, int, int], complex], key: int, mirror_key: int, n: int, u: int
        ) -> complex:
            """The decision node, each goal maximised over the playable moves on its own."""
            cleared, won = 0.0, 1.0 if n == 0 and u == 0 else 0.0
            guarded = key | guards
            for need, mirror_need in moves:
                if (guarded - need) & guards == guards:
                    child, mirror_child = key - need, mirror_key - mirror_need
                    found = memo.get(child if child < mirror_child else mirror_child)
                    if found is None:
                        found = value(child, mirror_child, n - k, u)
                    if found.real + k > cleared:
                        cleared = found.real + k
                    if found.imag > won:
                        won = found.imag
            return complex(cleared, won)

        return best_moves
