"""The fair player: it never sees the stock, and maximises the expected number of cards cleared.

A fair player sees the table and knows every card dealt so far, so it knows the multiset of
unseen cards; for it the stock is a uniformly random order of them, and each refill is a
chance event: single cards drawn without replacement from the unseen multiset.

Exact part (``triples.engines.expectimax``): when few cards are unseen, the expectimax over the values
on the table and the unseen multiset, with the draws as chance nodes.

Sampling part (``sampled_scores``): when too many cards are unseen for the exact part to be
cheap, N random orders of the unseen cards are drawn (the same N for every candidate
combination), and each candidate is scored on each order by the exact search of
``triples.engines.search`` over that fixed order (one memo per order, shared by all candidates, and
the variant's memo of the phase after the stock, shared by all orders). The
candidate with the best total wins; ties go to the ``high`` order. ``sampled_choice`` finds it
without finishing candidates that can no longer win; ``sampled_scores``, every candidate on
every order, is the naive model the tests hold it to. The orders come from a
generator seeded with what the player sees (table, cleared and unseen multisets), so one
position always gets one move, whatever the stock, the process or the number of jobs.

With nothing unseen the deterministic search is exact (``_open_choice``). In pairs every
candidate is worth the same (a card pairs with one value only), so ``high``'s choice is
taken without search. Choices are kept per seen position (and per variant: its rules, not its
name), and the exact memo across games, both bounded (``triples.support.caches``).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from triples.engines import search
from triples.engines.expectimax import Expectimax, ExpectimaxWin, Packing, packing_for
from triples.model import rules
from triples.model.derived import Combo
from triples.model.variant import Variant
from triples.support import caches, deadline

__all__ = ["Choice", "Expectimax", "ExpectimaxWin", "Packing", "choose", "fair", "forget", "packing_for", "play_fair"]
from triples.model.table import Move, Table

# The exact part is used when at most this many cards are unseen (by variant; measured on
# 60 deals each: sum15 and classic pay 1.3-2x for 12 over 9; grid, whose 12 slots make
# its state space several times larger, pays 2x for 12 over 9 and 5x for 15).
EXACT_UNSEEN = 12
EXACT_UNSEEN_BY_VARIANT = {"grid": 9}
# Random orders per candidate in the sampling part.
DEFAULT_SAMPLES = 30
# With nothing hidden, tables up to this size get every earlier candidate checked (see
# ``_open_choice``).
SMALL_TABLE = 16
# Two expected values closer than this are equal: float sums in different orders differ.
TIE = 1e-9


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
    # ``rng.shuffle(order)`` written out, draw for draw (Fisher-Yates from the end, each index
    # drawn below i + 1 by rejection on ``getrandbits`` of its bit length): the same orders,
    # without two Python calls per card (test_fair holds it to ``rng.shuffle``).
    getrandbits = rng.getrandbits
    draws = [(i, (i + 1).bit_length()) for i in range(len(unseen) - 1, 0, -1)]
    orders = []
    for _ in range(samples):
        order = list(unseen)
        for i, bits in draws:
            j = getrandbits(bits)
            while j > i:
                j = getrandbits(bits)
            order[i], order[j] = order[j], order[i]
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


def sampled_choice(
    variant: Variant,
    table_counts: Sequence[int],
    unseen_counts: Sequence[int],
    cleared: int,
    candidates: Sequence[Combo],
    samples: int,
) -> tuple[int, tuple[int | None, ...]]:
    """``sampled_scores``' choice, the first candidate with the largest total, found with less
    work: the index of that candidate, and per candidate its total (None for one dropped).

    A candidate's position holds the same cards over every order, so the search's bound on
    it (``FixedDeck.upper_bound``) holds in each. Candidates are scored in order, one order
    after the other (those the best candidate yet did worst on first), and one is dropped as
    soon as its total so far plus that bound for each order left cannot beat the best total
    yet: it could not be chosen (ties go to the earlier). The orders, the exact scores and the
    winner are ``sampled_scores``' own."""
    k = variant.per_move
    base = [v for v in range(1, len(table_counts)) for _ in range(table_counts[v])]
    orders = sample_orders(variant, table_counts, unseen_counts, cleared, samples)
    if not orders:
        return 0, (0,) * len(candidates)
    # Once the stock is out every order meets the same tables: the decks share the variant's
    # memo of that phase (``FixedDeck``), across positions and games too.
    decks = [search.FixedDeck(variant, order) for order in orders]
    refills = [order[:k] for order in orders]
    totals: list[int | None] = [None] * len(candidates)
    best, chosen = -1, 0
    # The orders in the sequence a candidate is scored on them: first those the best
    # candidate so far scored lowest on. One that cannot beat it mostly falls short on the
    # same orders, so it is dropped after fewer searches (sum15: a fifth fewer); a total is
    # a sum over every order, the same in any sequence.
    sequence = list(range(len(orders)))
    for i, combo in enumerate(candidates):
        left = list(base)
        for v in combo:
            left.remove(v)
        cap = k + decks[0].upper_bound([*left, *refills[0]], len(refills[0]))
        total = 0
        scores = [0] * len(orders)
        for done, o in enumerate(sequence):
            if total + (len(orders) - done) * cap <= best:
                break
            score = scores[o] = k + decks[o].best_gain([*left, *refills[o]], len(refills[o]))
            total += score
        else:
            totals[i] = total
            if total > best:
                best, chosen = total, i
                sequence.sort(key=scores.__getitem__)
    return chosen, tuple(totals)


@dataclass(frozen=True)
class Choice:
    """What the fair player decided at one position, and how."""

    combo: Combo | None
    exact: bool
    # Per candidate: expected cleared (exact) or total over samples; None for a candidate
    # left unscored once it could no longer be chosen (``sampled_choice``, ``_exact_choice``).
    scores: tuple[float | None, ...]


_exact_players = caches.per_variant("fair exact players", Expectimax)


def exact_player(variant: Variant) -> Expectimax:
    """The strategy's expectimax for a variant, kept between calls (its memo bounded)."""
    player = _exact_players(variant)
    player.trim()
    return player


# The choice is a function of what the player sees, so it is kept: on grid100 every deal
# shows the same cards, and in any variant openings and endings recur across games. Keyed by
# the variant itself (its rules), never by its name alone.
CHOICE_LIMIT = 200_000
_choices: caches.Memo[tuple[object, ...], Choice] = caches.memo("fair choices", CHOICE_LIMIT)


def forget(memos: bool = True) -> None:
    """Empty the kept choices, and the exact memos too unless ``memos`` is False (benchmarks
    and tests start cold with this; ``triples.support.caches.clear`` empties every cache)."""
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
    found = _choices.data.get(seen)
    if found is None:
        _choices.trim()
        caches.settle()
        found = _choices.data[seen] = _choose(
            variant, table_counts, unseen_counts, table.cleared, samples, exact_unseen
        )
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
        return _exact_choice(variant, table_counts, unseen_counts, candidates)
    chosen, totals = sampled_choice(variant, table_counts, unseen_counts, cleared, candidates, samples)
    return Choice(candidates[chosen], False, totals)


def _exact_choice(
    variant: Variant, table_counts: Sequence[int], unseen_counts: Sequence[int], candidates: Sequence[Combo]
) -> Choice:
    """The first candidate (high order) within ``TIE`` of the best expected value. No line
    clears more than ``Expectimax.most``: once a candidate reaches that, it is the best, and
    the ones after it could only tie later, so they are left unscored."""
    player = exact_player(variant)
    valued = player.move_values(table_counts, unseen_counts, until=player.most(table_counts, unseen_counts))
    scores = [value for _, value in valued]
    chosen = _first_best(candidates[: len(scores)], scores, TIE)
    return Choice(chosen, True, (*scores, *[None] * (len(candidates) - len(scores))))


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


def differ(table: Table, counts: list[int], unseen: list[int], candidates: list[Combo], choice: Choice) -> bool:
    """Whether some of the position's candidates is worth less than the best, as ``choice``
    judged them: exact expected values, or totals over its sampled orders (a candidate it left
    unscored is finished over them only as far as the comparison needs). The scored ones are
    compared first, for free."""
    scores: list[float | None] = list(choice.scores)
    if choice.exact and (len(scores) < len(candidates) or None in scores):
        player = exact_player(table.variant)
        scores = [value for _, value in player.move_values(counts, unseen)]
    best = max(s for s in scores if s is not None)
    tie = TIE if choice.exact else 0.5  # sampled totals are whole cards

    def below(i: int) -> bool:
        score = scores[i]
        if score is not None:
            return score < best - tie
        return _sampled_below(table, counts, unseen, candidates[i], best)

    return any(below(i) for i in sorted(range(len(candidates)), key=lambda i: scores[i] is None))


def _sampled_below(table: Table, counts: list[int], unseen: list[int], combo: Combo, best: float) -> bool:
    """Whether ``combo``'s total over the sampled orders falls short of ``best``: known as soon
    as what is left of the orders cannot make up the gap."""
    variant = table.variant
    k = variant.per_move
    orders = sample_orders(variant, counts, unseen, table.cleared, DEFAULT_SAMPLES)
    left = [v for v in table.values if v]
    for v in combo:
        left.remove(v)
    total = 0
    for done, order in enumerate(orders):
        deck = search.FixedDeck(variant, order)
        refill = order[:k]
        cap = k + deck.upper_bound([*left, *refill], len(refill))
        if total + (len(orders) - done) * cap < best:
            return True
        total += k + deck.best_gain([*left, *refill], len(refill))
    return total < best
