"""The fair player: it never sees the stock, and maximises the expected number of cards cleared.

A fair player sees the table and knows every card dealt so far, so it knows the multiset of
unseen cards; for it the stock is a uniformly random order of them, and each refill is a
chance event: single cards drawn without replacement from the unseen multiset.

Exact part (``Expectimax``): a state is the count of each value on the table and among the
unseen cards, packed into one int. Value v owns a table field (with a guard bit above it) and
an unseen field, so a move subtracts a constant (its ``need``), drawing a card of value v adds
one (``+1`` in the table field, ``-1`` in the unseen field), and "can this combination be
played" is one borrow test on the guard bits. A state whose table has room while cards are
unseen is a chance node that draws one card: a refill of r cards is r single draws, so a
chance node has at most one child per value and partially refilled tables are shared. Slots
never matter (only values add up), and the cards cleared are the deck minus both multisets.
When the values and the deck are symmetric under v -> s - v with k * s = 2 * target (sum15,
grid: v -> 10 - v; pairs: v -> 14 - v), the moves map onto moves, so a state and its mirror
image share one memo entry; the mirror key is carried along as a second int.

Sampling part (``sampled_scores``): when too many cards are unseen for the exact part to be
cheap, N random orders of the unseen cards are drawn (the same N for every candidate
combination), and each candidate is scored on each order by the exact search of
``triples.search`` over that fixed order (one memo per order, shared by all candidates). The
candidate with the best total wins; ties go to the ``high`` order. The orders come from a
generator seeded with what the player sees (table, cleared and unseen multisets), so one
position always gets one move, whatever the stock, the process or the number of jobs.

With nothing unseen the deterministic search is exact (``_open_choice``). In pairs every
candidate is worth the same (a card pairs with one value only), so ``high``'s choice is
taken without search. Choices are kept per seen position (and per variant: its rules, not its
name), and the exact memo across games, both bounded (``triples.caches``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from triples import caches, deadline, rules, search
from triples.config import Variant
from triples.derived import derived
from triples.table import Move, Table

Combo = tuple[int, ...]

# The exact part is used when at most this many cards are unseen (by variant; measured on
# 60 deals each: sum15 and classic pay 1.3-2x for 12 over 9; grid, whose 12 slots make
# its state space several times larger, pays 2x for 12 over 9 and 5x for 15).
EXACT_UNSEEN = 12
EXACT_UNSEEN_BY_VARIANT = {"grid": 9}
# Random orders per candidate in the sampling part.
DEFAULT_SAMPLES = 30
# The strategy's exact memo is kept between moves and games; past this size its oldest
# entries go first.
MEMO_LIMIT = 1_000_000
# The deadline is checked once per this many + 1 states the expectimax settles.
CHECK_EVERY = 1023
# With nothing hidden, tables up to this size get every earlier candidate checked (see
# ``_open_choice``).
SMALL_TABLE = 16
# Two expected values closer than this are equal: float sums in different orders differ.
TIE = 1e-9


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
    )


packing_for = caches.per_variant("fair packings", _build_packing)


class Expectimax:
    """Exact optimal fair play for one variant: ``expected`` is the largest expected number of
    cards a player who cannot see the stock still clears. One memo serves every position."""

    def __init__(self, variant: Variant) -> None:
        self.packing = packing_for(variant)
        # Values of a pure function of the key: shared by threads, trimmed between moves.
        self.memo: caches.Memo[int, float] = caches.Memo("fair exact", MEMO_LIMIT)
        self._expected = self._expected_function()

    def expected(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> float:
        """The expected cards still cleared under optimal fair play from this state."""
        key, mirror_key = self.packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        with search.recursion_room(2 * (n + u)):  # a frame per move and one per drawn card
            return self._expected(key, mirror_key, n, u)

    def move_values(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> list[tuple[Combo, float]]:
        """Each playable combination (high-cards-first order) with the expected cards cleared
        by playing it (its own cards included) and then playing optimally."""
        packing = self.packing
        key, mirror_key = packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        guards, k = packing.guards, packing.per_move
        out: list[tuple[Combo, float]] = []
        with search.recursion_room(2 * (n + u)):
            for combo, need, mirror_need in packing.moves:
                if ((key | guards) - need) & guards == guards:
                    out.append((combo, k + self._expected(key - need, mirror_key - mirror_need, n - k, u)))
        return out

    def _expected_function(self) -> Callable[[int, int, int, int], float]:
        packing, memo = self.packing, self.memo
        slots, k, guards, mask = packing.slots, packing.per_move, packing.guards, packing.unseen_mask
        moves = tuple((need, mirror_need) for _, need, mirror_need in packing.moves)
        draws = tuple((shift, add, mirror_add) for _, shift, add, mirror_add in packing.draws)

        def expected(key: int, mirror_key: int, n: int, u: int) -> float:
            """(key, its mirror key, cards on the table, cards unseen): expected cards still cleared."""
            canonical = key if key < mirror_key else mirror_key
            found = memo.get(canonical)
            if found is not None:
                return found
            if u and n < slots:
                total = 0.0
                for shift, add, mirror_add in draws:
                    count = (key >> shift) & mask
                    if count:
                        # Most children are memo hits: look them up here, not in a call.
                        child, mirror_child = key + add, mirror_key + mirror_add
                        found = memo.get(child if child < mirror_child else mirror_child)
                        if found is None:
                            found = expected(child, mirror_child, n + 1, u - 1)
                        total += count * found
                result = total / u
            else:
                result = 0.0
                guarded = key | guards
                for need, mirror_need in moves:
                    if (guarded - need) & guards == guards:
                        child, mirror_child = key - need, mirror_key - mirror_need
                        found = memo.get(child if child < mirror_child else mirror_child)
                        if found is None:
                            found = expected(child, mirror_child, n - k, u)
                        if found + k > result:
                            result = found + k
            memo[canonical] = result
            if not len(memo) & CHECK_EVERY:
                deadline.check()
            return result

        return expected


class ExpectimaxWin:
    """Exact optimal fair play for both goals at once, the whole game from the deal: per state
    a complex number, real part the largest expected cards cleared, imaginary part the largest
    probability of clearing every card (each maximised by its own policy). A complex number is
    one object holding two floats, which keeps the memo at one value object per state."""

    def __init__(self, variant: Variant) -> None:
        self.packing = packing_for(variant)
        self.memo: dict[int, complex] = {}

    def from_deal(self) -> complex:
        """The root chance node: every opening table, dealt from the whole deck."""
        packing = self.packing
        deck = packing.variant.copies
        return self.value([0] * len(deck), deck)

    def value(self, table_counts: Sequence[int], unseen_counts: Sequence[int]) -> complex:
        packing, memo = self.packing, self.memo
        slots, k, guards, mask = packing.slots, packing.per_move, packing.guards, packing.unseen_mask
        moves = tuple((need, mirror_need) for _, need, mirror_need in packing.moves)
        draws = tuple((shift, add, mirror_add) for _, shift, add, mirror_add in packing.draws)

        def value(key: int, mirror_key: int, n: int, u: int) -> complex:
            canonical = key if key < mirror_key else mirror_key
            found = memo.get(canonical)
            if found is not None:
                return found
            if u and n < slots:
                total = 0j
                for shift, add, mirror_add in draws:
                    count = (key >> shift) & mask
                    if count:
                        child, mirror_child = key + add, mirror_key + mirror_add
                        found = memo.get(child if child < mirror_child else mirror_child)
                        if found is None:
                            found = value(child, mirror_child, n + 1, u - 1)
                        total += count * found
                result = total / u
            else:
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
                result = complex(cleared, won)
            memo[canonical] = result
            if not len(memo) & CHECK_EVERY:
                deadline.check()
            return result

        key, mirror_key = packing.pack(table_counts, unseen_counts)
        n, u = sum(table_counts[1:]), sum(unseen_counts[1:])
        with search.recursion_room(2 * (n + u)):
            return value(key, mirror_key, n, u)


# --- what the player sees --------------------------------------------------------------------


def seen_counts(table: Table) -> tuple[list[int], list[int]]:
    """The table's values and the unseen values, each counted by value. The unseen cards are
    the deck less every card dealt so far (on the table or cleared): the stock as a multiset,
    found without reading the stock."""
    variant = table.variant
    top = variant.max_value
    on_table = rules.histogram(table.values, top)
    dealt = rules.histogram(table.deck_values[: table.next_card], top)
    unseen = [copies - d for copies, d in zip(variant.copies, dealt, strict=True)]
    unseen[0] = 0
    return on_table, unseen


def position_seed(variant: Variant, table_counts: Sequence[int], unseen_counts: Sequence[int], cleared: int) -> int:
    """A generator seed from what the player sees, the same in every process (no ``hash``)."""
    text = f"{variant.name}|{list(table_counts)}|{list(unseen_counts)}|{cleared}"
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def sample_orders(
    variant: Variant, table_counts: Sequence[int], unseen_counts: Sequence[int], cleared: int, samples: int
) -> list[list[int]]:
    """``samples`` random orders of the unseen cards, drawn by the position's own generator."""
    rng = random.Random(position_seed(variant, table_counts, unseen_counts, cleared))
    unseen = [v for v in range(1, len(unseen_counts)) for _ in range(unseen_counts[v])]
    orders = []
    for _ in range(samples):
        order = list(unseen)
        rng.shuffle(order)
        orders.append(order)
    return orders


def playable(variant: Variant, table_counts: Sequence[int]) -> list[Combo]:
    """The playable value combinations, high-cards-first (the ``high`` order)."""
    packing = packing_for(variant)
    return [combo for combo, _, _ in packing.moves if all(table_counts[v] >= combo.count(v) for v in set(combo))]


def sampled_scores(
    variant: Variant,
    table_counts: Sequence[int],
    unseen_counts: Sequence[int],
    cleared: int,
    candidates: Sequence[Combo],
    samples: int,
) -> list[int]:
    """Per candidate, the cards cleared over all sampled orders by playing it and then playing
    best for each order (the candidate's own cards included)."""
    k = variant.per_move
    base = [v for v in range(1, len(table_counts)) for _ in range(table_counts[v])]
    totals = [0] * len(candidates)
    for order in sample_orders(variant, table_counts, unseen_counts, cleared, samples):
        deadline.check()
        deck = search.FixedDeck(variant, order)
        refill = order[:k]
        for i, combo in enumerate(candidates):
            left = list(base)
            for v in combo:
                left.remove(v)
            totals[i] += k + deck.best_gain([*left, *refill], len(refill))
    return totals


@dataclass(frozen=True)
class Choice:
    """What the fair player decided at one position, and how."""

    combo: Combo | None
    exact: bool
    scores: tuple[float, ...]  # per candidate: expected cleared (exact) or total over samples


_exact_players = caches.per_variant("fair exact players", Expectimax)


def exact_player(variant: Variant) -> Expectimax:
    """The strategy's expectimax for a variant, kept between calls (its memo bounded)."""
    player = _exact_players(variant)
    player.memo.trim()
    return player


# The choice is a function of what the player sees, so it is kept: on grid100 every deal
# shows the same cards, and in any variant openings and endings recur across games. Keyed by
# the variant itself (its rules), never by its name alone.
CHOICE_LIMIT = 200_000
_choices: caches.Memo[tuple[object, ...], Choice] = caches.memo("fair choices", CHOICE_LIMIT)


def forget(memos: bool = True) -> None:
    """Empty the kept choices, and the exact memos too unless ``memos`` is False (benchmarks
    and tests start cold with this; ``triples.caches.clear`` empties every cache)."""
    _choices.clear()
    if memos:
        _exact_players.clear()


def choose(table: Table, samples: int = DEFAULT_SAMPLES, exact_unseen: int | None = None) -> Choice:
    """The fair player's value combination for the table's position; ``exact_unseen`` is the
    variant's own threshold (``EXACT_UNSEEN_BY_VARIANT``) unless given."""
    variant = table.variant
    if exact_unseen is None:
        exact_unseen = EXACT_UNSEEN_BY_VARIANT.get(variant.name, EXACT_UNSEEN)
    table_counts, unseen_counts = seen_counts(table)
    seen = (variant, tuple(table_counts), tuple(unseen_counts), table.cleared, samples, exact_unseen)
    found = _choices.get(seen)
    if found is None:
        _choices.trim()
        found = _choices[seen] = _choose(variant, table_counts, unseen_counts, table.cleared, samples, exact_unseen)
    return found


def _choose(
    variant: Variant,
    table_counts: list[int],
    unseen_counts: list[int],
    cleared: int,
    samples: int,
    exact_unseen: int,
) -> Choice:
    candidates = playable(variant, table_counts)
    if len(candidates) <= 1 or variant.per_move == 2:
        # With two cards a move, a card pairs with one value only: two moves are disjoint or
        # interchangeable, every order of play clears the same cards, and every candidate is
        # worth the same. The tie goes to the first in high order.
        return Choice(candidates[0] if candidates else None, True, ())
    u = sum(unseen_counts)
    if u == 0:
        return _open_choice(variant, table_counts, candidates)
    if u <= exact_unseen:
        valued = exact_player(variant).move_values(table_counts, unseen_counts)
        scores = [value for _, value in valued]
        return Choice(_first_best(candidates, scores, TIE), True, tuple(scores))
    totals = sampled_scores(variant, table_counts, unseen_counts, cleared, candidates, samples)
    return Choice(_first_best(candidates, totals, 0.0), False, tuple(totals))


def _open_choice(variant: Variant, table_counts: Sequence[int], candidates: Sequence[Combo]) -> Choice:
    """Nothing is hidden, so the deterministic search is exact. Without a stock, any set of
    disjoint combinations can be played in any order, so every combination of an optimal line
    is an optimal first move: the line's first in high order is one. Earlier candidates are
    checked with ``FixedDeck.reaches`` on tables small enough for that to be cheap, so there
    the choice is the first optimal candidate in high order; on a table as large as grid100's
    a failed proof can take a second, and the line's choice stands."""
    k = variant.per_move
    base = [v for v in range(1, len(table_counts)) for _ in range(table_counts[v])]
    result = search.analyse_values(variant, base, [], 0)
    rank = {combo: i for i, combo in enumerate(candidates)}
    chosen = min(result.line, key=rank.__getitem__)
    if len(base) <= SMALL_TABLE:
        deck = search.FixedDeck(variant, [])
        for combo in candidates[: rank[chosen]]:
            left = list(base)
            for v in combo:
                left.remove(v)
            if deck.reaches(left, 0, result.best - k):
                chosen = combo
                break
    return Choice(chosen, True, (float(result.best),))


def _first_best(candidates: Sequence[Combo], scores: Sequence[float], tie: float) -> Combo:
    """The first candidate (high order) whose score is within ``tie`` of the best."""
    top = max(scores)
    return next(combo for combo, score in zip(candidates, scores, strict=True) if score >= top - tie)


def fair(table: Table) -> Move | None:
    """The fair player's move: the combination of the best expected cards cleared (exact or
    sampled), taken from its lowest slots."""
    combo = choose(table).combo
    if combo is None:
        return None
    return rules.first_slots(combo, rules.slots_by_value(table.values))


def play_fair(table: Table) -> int:
    """Play the fair player's moves until none is legal; the table's cleared afterwards."""
    while (move := fair(table)) is not None:
        table.push(move)
    return table.cleared
