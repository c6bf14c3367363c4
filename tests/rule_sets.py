"""Random small rule sets, built as Variant objects directly, and an independent brute force.

Shared by the engines' tests of "exact and working on any rule set": standard one-suit decks
with random court values, numeric decks of one to four suits, k from 2 to 4, decks of 8 to 24
cards, now and then a table that takes the whole deck at once.
"""

from __future__ import annotations

import random
from typing import Any

from tests.helpers import slot_moves
from triples.model.table import Table
from triples.model.variant import Variant


def random_variant(rng: random.Random) -> Variant:
    deck: dict[str, Any]
    if rng.random() < 0.25:
        deck = {"deck": "standard", "court": tuple(rng.randint(1, 15) for _ in range(3)), "suits": 1}
        size = 13
    else:
        suits = rng.randint(1, 4)
        top = rng.randint(-(-8 // suits), 24 // suits)
        deck = {"deck": "numeric", "top_rank": top, "suits": suits}
        size = suits * top
    k = rng.randint(2, 4)
    all_at_once = rng.random() < 0.15 and size <= 12  # every card dealt, some slots empty
    slots = rng.randint(max(k, size), size + 3) if all_at_once else rng.randint(k, min(7, size))
    values = list(Variant(name="probe", slots=slots, per_move=k, target=1, **deck).card_values.values())
    # Mostly a target some k cards make; now and then any target, moves or none.
    target = sum(rng.sample(values, k)) if rng.random() < 0.9 else rng.randint(1, 60)
    return Variant(name="random", slots=slots, per_move=k, target=target, **deck)


def brute_best(table: Table) -> int:
    """The exact best the obvious way: every slot move of every position (``slot_moves``),
    played with the real refill rule on a slot-by-slot copy of the table, memoised on the stock
    position and the table's values as a multiset (which slot holds which value changes nothing
    that can follow). Nothing here knows about value space, bounds or packing."""
    k, target, deck = table.variant.per_move, table.variant.target, table.deck_values
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def more(p: int, values: tuple[int, ...]) -> int:
        key = (p, tuple(sorted(values)))
        found = memo.get(key)
        if found is not None:
            return found
        found = 0
        for move in slot_moves(values, k, target):
            after, q = list(values), p
            for i in move:  # refilled in increasing slot order
                after[i] = deck[q] if q < len(deck) else 0
                q += q < len(deck)
            found = max(found, k + more(q, tuple(after)))
        memo[key] = found
        return found

    return table.cleared + more(table.next_card, tuple(table.values))
