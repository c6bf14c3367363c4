from __future__ import annotations

import random
from itertools import combinations_with_replacement
from math import comb

import pytest

from tests.rule_sets import random_variant
from triples.model.derived import derived, high_cards_first
from triples.model.variant import Variant
from triples.model.variants import VARIANTS, parse_variant


def supplied(variant: Variant) -> list[tuple[int, ...]]:
    """Every value combination of a move the deck can supply, by brute force."""
    copies = variant.copies
    top = len(copies) - 1
    return [
        combo
        for combo in combinations_with_replacement(range(1, top + 1), variant.per_move)
        if sum(combo) == variant.target and all(combo.count(v) <= copies[v] for v in combo)
    ]


def variants_to_check() -> list[Variant]:
    rng = random.Random(3)
    return [*VARIANTS.values(), *(random_variant(rng) for _ in range(60))]


@pytest.mark.parametrize("variant", variants_to_check(), ids=lambda v: f"{v.name}-{v.deck}-{v.per_move}")
def test_the_combinations_and_their_orders(variant: Variant) -> None:
    tables = derived(variant)
    most = max(1, variant.most_of_a_value)
    expected = [combo for combo in supplied(variant) if all(combo.count(v) <= most for v in combo)]
    assert list(tables.combos) == expected  # lexicographic
    assert list(tables.high_first) == sorted(expected, key=lambda c: sorted(c, reverse=True), reverse=True)
    assert tables.uses == tuple(tuple((v, c.count(v)) for v in sorted(set(c))) for c in expected)
    assert all(tables.binomial[n][m] == comb(n, m) for n in range(most + 1) for m in range(variant.per_move + 1))


@pytest.mark.parametrize("variant", variants_to_check(), ids=lambda v: f"{v.name}-{v.deck}-{v.per_move}")
def test_the_count_layout_tells_what_a_table_can_supply(variant: Variant) -> None:
    tables = derived(variant)
    layout = tables.counts
    rng = random.Random(variant.target)
    values = list(variant.card_values.values())
    for _ in range(30):
        hand = rng.sample(values, min(variant.slots, len(values)))
        counts = [0] * (tables.top + 1)
        for v in hand:
            counts[v] += 1
        key = layout.key(counts)
        assert [layout.count(key, v) for v in range(1, tables.top + 1)] == counts[1:]
        for combo, uses, need in zip(tables.combos, tables.uses, layout.needs, strict=True):
            assert layout.playable(key, need) == all(counts[v] >= m for v, m in uses), combo


def test_high_cards_first_is_the_spec_order() -> None:
    assert high_cards_first([(4, 7, 9), (2, 9, 9), (5, 5, 10), (3, 8, 9)]) == (
        (5, 5, 10),
        (2, 9, 9),
        (3, 8, 9),
        (4, 7, 9),
    )


def test_derived_once_per_variant_and_kept_by_its_rules() -> None:
    sum15 = parse_variant("sum15")
    assert derived(sum15) is derived(sum15.replace())
    other = sum15.replace(target=12)
    assert derived(other) is not derived(sum15) and all(sum(c) == 12 for c in derived(other).combos)


def test_rules_with_more_combinations_than_the_engines_take_are_refused_in_one_line() -> None:
    from triples import run
    from triples.model.derived import MAX_COMBOS
    from triples.model.rules import TooManyCombinations

    many = {"deck": "numeric", "top_rank": 50, "slots": 100, "per_move": 6, "target": 153}
    with pytest.raises(TooManyCombinations):
        derived(parse_variant(many))
    refusal = f"error: these rules have more than {MAX_COMBOS:,} value combinations a move can take: too many"
    outputs = run([["new", "g", 1, many], ["best", "g"], ["autoplay", "g", "high"], ["status", "g"]])
    assert [output[: len(refusal)] for output in outputs[1:3]] == [refusal, refusal]
    assert outputs[3] == {"cleared": 0, "stock": 100, "over": False}  # the rules themselves still play
    # Grid100 with six cards a move is within the bound.
    assert len(derived(parse_variant({"base": "grid100", "per_move": 6, "target": 78})).combos) == 11958
