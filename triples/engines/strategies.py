"""Auto-play strategies, looked up by name; each picks one of the current legal moves.

A strategy sees only the face-up slots (``table.values``), never the stock. ``high`` and
``lookahead`` work in value space: only values matter to a sum, so they choose a value
combination first and realise it by ``rules.first_slots``, the lexicographically smallest slot
move with those values, which is what their tie rules ask for among moves of equal values.
``first`` walks the slots in order instead, checking on a value histogram that the slots
after each one can still complete the sum.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from triples.engines import DEFAULT_STRATEGY as DEFAULT_STRATEGY  # re-exported: where the strategies are looked for
from triples.model import rules
from triples.model.derived import Combo, derived
from triples.model.table import Move, Table
from triples.model.variant import Variant
from triples.support import caches, deadline
from triples.support.errors import TriplesError

Strategy = Callable[[Table], "Move | None"]
_REGISTERED: dict[str, Strategy] = {}

Scored = list[tuple[Combo, int]]  # (values, lookahead score) per available combination


class UnknownStrategy(TriplesError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown strategy '{name}'")


def strategy(name: str) -> Callable[[Strategy], Strategy]:
    """Register a strategy under ``name`` while this module loads; a name taken twice is a
    defect, refused at once. ``STRATEGIES`` is the registry, fixed once the module is loaded."""

    def register(choose: Strategy) -> Strategy:
        if name in _REGISTERED:
            raise ValueError(f"strategy {name!r} is registered twice")
        _REGISTERED[name] = choose
        return choose

    return register


def strategy_named(name: str) -> Strategy:
    try:
        return _REGISTERED[name]
    except KeyError:
        raise UnknownStrategy(name) from None


def play_out(table: Table, choose: Strategy) -> list[Move]:
    """Play ``choose``'s moves until none is legal; the moves made, in order."""
    played: list[Move] = []
    while True:
        deadline.check()  # a move of a strategy can take a while on rules with many combinations
        move = choose(table)
        if move is None:
            return played
        table.push(move)
        played.append(move)


@strategy("high")
def high_cards_first(table: Table) -> Move | None:
    """The move whose values, sorted high to low, are largest; ties to the smallest slot list."""
    tables = derived(table.variant)
    counts = rules.histogram(table.values, tables.top)
    # Every slot move of one value combination shares its value list, so the winner is the
    # first combination in high-cards-first order the table can supply, from its lowest slots.
    for combo, uses in zip(tables.high_first, tables.high_uses, strict=True):
        for v, m in uses:
            if counts[v] < m:
                break
        else:
            return rules.first_slots(combo, rules.slots_by_value(table.values))
    return None


# --- first-found ---------------------------------------------------------------------------


@strategy("first")
def first_found(table: Table) -> Move | None:
    """The lexicographically first legal move (the naive position-order solver)."""
    variant = table.variant
    values = table.values
    counts = rules.histogram(values, variant.max_value)
    left, need = variant.per_move, variant.target
    if not can_make(counts, left, need):
        return None
    # Greedy by slot: a slot joins the move when the slots after it can still complete the
    # sum, which makes each chosen slot the smallest possible given those before it.
    # ``counts`` always holds the values of the occupied slots after the current one.
    picked: list[int] = []
    slot = 0
    while left > 1:
        v = values[slot]
        if v:
            counts[v] -= 1
            if v < need and can_make(counts, left - 1, need - v):
                picked.append(slot)
                left -= 1
                need -= v
        slot += 1
    picked.append(values.index(need, slot))
    return Move(picked)


def can_make(counts: list[int], k: int, need: int, low: int = 1) -> bool:
    """Whether ``counts`` holds k cards with values of at least ``low`` summing to ``need``.

    ``counts`` is borrowed: it is changed while searching and restored before returning.
    """
    top = len(counts) - 1
    if k == 1:
        return low <= need <= top and counts[need] > 0
    if k == 2:
        # a pair of equal values needs two cards of that value
        return any(counts[w] and counts[need - w] > (w + w == need) for w in range(max(low, need - top), need // 2 + 1))
    if k > 3:  # the levels above pairs: a few of them per pass over the pairs
        deadline.check()
    for w in range(max(low, need - top * (k - 1)), need // k + 1):
        if counts[w]:
            counts[w] -= 1
            found = can_make(counts, k - 1, need - w, w)
            counts[w] += 1
            if found:
                return True
    return False


# --- lookahead -----------------------------------------------------------------------------


@dataclass(frozen=True)
class VariantCombos:
    """What lookahead counting needs about a variant, read off its derived tables
    (``triples.model.derived``) once per variant.

    ``combos`` are all value combinations of a move (ascending values, lexicographic order);
    ``needs`` gives each as (value, multiplicity) pairs; ``binomial[n][m]`` is C(n, m) for
    every count a value can have and m up to k. ``triples`` (k = 3 only) are the combos as
    (a, b, c, count of a, of b, of c, equal pairs).
    """

    variant: Variant
    combos: tuple[Combo, ...]
    needs: tuple[tuple[tuple[int, int], ...], ...]
    binomial: tuple[tuple[int, ...], ...]
    triples: tuple[tuple[int, int, int, int, int, int, int], ...]


def _build_combos(variant: Variant) -> VariantCombos:
    tables = derived(variant)
    triples: tuple[tuple[int, int, int, int, int, int, int], ...] = ()
    if tables.per_move == 3:
        triples = tuple(
            (a, b, c, combo.count(a), combo.count(b), combo.count(c), (a == b) + (a == c) + (b == c))
            for combo in tables.combos
            for a, b, c in [(combo[0], combo[1], combo[2])]
        )
    return VariantCombos(variant, tables.combos, tables.uses, tables.binomial, triples)


combos_for = caches.per_variant("lookahead combos", _build_combos)


def count_moves(combos: VariantCombos, counts: Sequence[int]) -> int:
    """How many slot moves a table with this value histogram has: for each value combination,
    the product over its values of C(cards of that value, times used)."""
    binomial = combos.binomial
    total = 0
    for needs in combos.needs:
        ways = 1
        for v, m in needs:
            ways *= binomial[counts[v]][m]
            if not ways:
                break
        total += ways
    return total


def combo_scores(combos: VariantCombos, counts: list[int]) -> Scored:
    """Each available value combination with its lookahead score, any k: the moves left after
    taking its cards out of the histogram, counted by ``count_moves``."""
    scored: Scored = []
    for combo, needs in zip(combos.combos, combos.needs, strict=True):
        if all(counts[v] >= m for v, m in needs):
            deadline.check()  # each counts the moves of every combination
            for v, m in needs:
                counts[v] -= m
            scored.append((combo, count_moves(combos, counts)))
            for v, m in needs:
                counts[v] += m
    return scored


def triple_scores(combos: VariantCombos, counts: Sequence[int]) -> Scored:
    """``combo_scores`` for k = 3 in O(1) per combination, by inclusion-exclusion over the three
    cards taken: the triples left are all triples T, minus those through each taken card,
    plus those through each taken pair, minus the taken triple itself.

    For taken cards of values a, b, c (a + b + c = target): the triples through a card of
    value a are the pairs of other cards summing to target - a; those through two of the
    taken cards are the other cards of the third value, so the pair terms add up to
    counts[a] + counts[b] + counts[c] - 2 * (equal pairs among a, b, c).
    """
    target = combos.variant.target
    top = len(counts) - 1
    available = [
        (a, b, c, equal)
        for a, b, c, ma, mb, mc, equal in combos.triples
        if counts[a] >= ma and counts[b] >= mb and counts[c] >= mc
    ]
    if not available:
        return []
    present = [v for v in range(1, top + 1) if counts[v]]
    pairs_by_sum = [0] * (2 * top + 1)
    for i, v in enumerate(present):
        here = counts[v]
        pairs_by_sum[v + v] += here * (here - 1) // 2
        for w in present[i + 1 :]:
            pairs_by_sum[v + w] += here * counts[w]
    # excess[v]: triples through one card of value v, less the cards of value v
    excess = [0] * (top + 1)
    through_all = 0
    for v in present:
        rest = target - v
        through = pairs_by_sum[rest] if 0 <= rest <= 2 * top else 0
        partner = rest - v
        if 1 <= partner <= top:  # pairs of this very card with a partner are not "other" pairs
            through -= counts[partner] - (partner == v)
        through_all += counts[v] * through
        excess[v] = through - counts[v]
    remaining = through_all // 3 - 1  # every triple is counted once through each of its cards
    return [((a, b, c), remaining - excess[a] - excess[b] - excess[c] - 2 * equal) for a, b, c, equal in available]


def best_scored(scored: Scored) -> Combo | None:
    """The highest score; among equals the first listed, which is the smallest value list."""
    best: Combo | None = None
    best_score = -1
    for combo, score in scored:
        if score > best_score:
            best, best_score = combo, score
    return best


def lookahead_move(table: Table, *, fast: bool = True) -> Move | None:
    """The lookahead choice; ``fast`` = False forces the general counting even when k = 3."""
    combos = combos_for(table.variant)
    counts = rules.histogram(table.values, table.variant.max_value)
    scored = triple_scores(combos, counts) if fast and combos.triples else combo_scores(combos, counts)
    best = best_scored(scored)
    if best is None:
        return None
    return rules.first_slots(best, rules.slots_by_value(table.values))


@strategy("lookahead")
def lookahead(table: Table) -> Move | None:
    """The move leaving the most legal moves once its cards are gone (no refill: the stock is
    not looked at); ties to the smallest ascending value list, then the smallest slot list."""
    return lookahead_move(table)


@strategy("fair")
def fair_player(table: Table) -> Move | None:
    """The move of the best expected cards cleared for a player who cannot see the stock
    (``triples.engines.fair``: exact expectimax when few cards are unseen, else sampled orders of
    them); ties to the ``high`` order. Imported on first use: it brings the search along."""
    from triples.engines import fair

    return fair.fair(table)


# Every strategy is registered above: from here on the registry is read-only.
STRATEGIES: Mapping[str, Strategy] = MappingProxyType(_REGISTERED)
