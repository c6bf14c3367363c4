from __future__ import annotations

import random
from functools import cache
from itertools import combinations_with_replacement

import pytest

from triples.engines.expectimax import Expectimax, ExpectimaxWin
from triples.model.variant import Variant


def literal_expected(variant: Variant, table: tuple[int, ...], unseen: tuple[int, ...]) -> float:
    """Optimal expected cards cleared, by the definition: refill the table from the unseen
    cards one uniformly random card at a time, then take the best combination, recursively."""
    k, target, slots = variant.per_move, variant.target, variant.slots

    @cache
    def value(table: tuple[int, ...], unseen: tuple[int, ...]) -> float:
        if unseen and len(table) < slots:
            return sum(
                value(tuple(sorted((*table, v))), unseen[:i] + unseen[i + 1 :]) for i, v in enumerate(unseen)
            ) / len(unseen)
        best = 0.0
        for combo in set(combinations_with_replacement(sorted(set(table)), k)):
            if sum(combo) == target and all(table.count(v) >= combo.count(v) for v in combo):
                left = list(table)
                for v in combo:
                    left.remove(v)
                best = max(best, k + value(tuple(left), unseen))
        return best

    return value(tuple(sorted(table)), tuple(sorted(unseen)))


def small_variants() -> list[Variant]:
    rng = random.Random(11)
    out = []
    while len(out) < 12:
        suits, top, k = rng.randint(1, 3), rng.randint(2, 5), rng.randint(2, 3)
        if suits * top < 6:
            continue
        slots = rng.randint(k, 4)
        target = rng.randint(k + 1, k * top - 1)
        out.append(
            Variant(name="small", slots=slots, per_move=k, target=target, deck="numeric", top_rank=top, suits=suits)
        )
    return out


@pytest.mark.parametrize("variant", small_variants(), ids=lambda v: f"{v.suits}x{v.top_rank}-k{v.per_move}-t{v.target}")
def test_the_expectimax_is_the_literal_recursion(variant: Variant) -> None:
    deck = variant.copies
    empty = [0] * len(deck)
    expected = literal_expected(variant, (), tuple(v for v in range(1, len(deck)) for _ in range(deck[v])))
    assert Expectimax(variant).expected(empty, deck) == pytest.approx(expected, abs=1e-9)
    assert ExpectimaxWin(variant).from_deal().real == pytest.approx(expected, abs=1e-9)


def test_a_states_value_is_the_same_float_whatever_was_worked_out_before() -> None:
    # A state and its mirror image share one entry; it is always worked out from the smaller
    # image, so its float does not depend on which image came first (summed from the other
    # image, 8 of these 30 positions came out a rounding apart).
    from triples.model.variants import parse_variant

    sum15 = parse_variant("sum15")
    rng = random.Random(7)
    for _ in range(30):
        deck = [v for v in range(1, 10) for _ in range(4)]
        rng.shuffle(deck)
        table, unseen = deck[:9], deck[9 : 9 + rng.randint(9, 12)]
        position = [table.count(v) for v in range(10)], [unseen.count(v) for v in range(10)]
        mirrored = [10 - v for v in table], [10 - v for v in unseen]
        mirror = [mirrored[0].count(v) for v in range(10)], [mirrored[1].count(v) for v in range(10)]
        alone = Expectimax(sum15).move_values(*position)
        after_its_mirror = Expectimax(sum15)
        after_its_mirror.move_values(*mirror)
        assert after_its_mirror.move_values(*position) == alone  # the same floats, exactly


def test_move_values_until_stops_at_the_first_move_reaching_it() -> None:
    from triples.model.variants import parse_variant

    sum15 = parse_variant("sum15")
    table = [0, 1, 1, 1, 1, 1, 1, 1, 1, 1]  # one card of each value: many moves
    unseen = [0, 1, 1, 1, 1, 0, 1, 1, 1, 1]
    every = Expectimax(sum15).move_values(table, unseen)
    most = 15  # 9 + 8 cards: at most five whole moves
    reached = [i for i, (_, value) in enumerate(every) if value >= most]
    assert reached and reached[0] < len(every) - 1
    assert Expectimax(sum15).move_values(table, unseen, until=most) == every[: reached[0] + 1]
    assert Expectimax(sum15).move_values(table, unseen, until=99.0) == every


def test_most_in_play_is_the_value_sum_argument_on_the_cards_left() -> None:
    from triples.engines.expectimax import most_in_play
    from triples.model.variants import parse_variant

    classic = most_in_play(parse_variant("classic"))
    # 52 cards worth 340: 17 moves would leave one card worth 0, so 16 moves at most.
    assert classic[52] == 48 and classic[49] == 45 and classic[4] == 0 and classic[1] == 0
    assert classic[51] == -1  # 51 cards are never left in play: one off a whole move
    sum15 = most_in_play(parse_variant("sum15"))
    assert [sum15[c] for c in (36, 33, 3, 0)] == [36, 33, 3, 0]


@pytest.mark.parametrize("name", ["classic", "sum15", "quads"])
def test_positions_of_play_and_any_counts_get_the_same_floats(name: str) -> None:
    # Positions of real games walk with the tighter bound of play: the literal recursion's
    # value, and the same floats as the walk with the bound for any counts.
    from triples.engines import search, strategies
    from triples.model.deal import seeded
    from triples.model.rules import histogram
    from triples.model.variants import parse_variant

    v = parse_variant(name)
    checked = 0
    for seed in range(1, 30):
        table = seeded(v, seed)
        for move in search.solve(table)[1]:
            if table.stock_size <= 4:
                break
            table.push(move)
        if table.stock_size > 4 or not strategies.lookahead(table):
            continue
        on_table, unseen = [x for x in table.values if x], list(table.deck_values[table.next_card :])
        counts = histogram(on_table, v.max_value), histogram(unseen, v.max_value)
        in_play = Expectimax(v)
        assert in_play._bounds(*counts)[0] == in_play._in_play
        key, mirror_key = in_play.packing.pack(*counts)
        n, u = len(on_table), len(unseen)
        value = in_play._in_play(key, mirror_key, n, u)
        assert value == Expectimax(v)._any_counts(key, mirror_key, n, u)
        assert value == pytest.approx(literal_expected(v, tuple(sorted(on_table)), tuple(sorted(unseen))), abs=1e-9)
        assert value <= in_play.most(*counts)
        checked += 1
    assert checked >= 5


def test_trimmed_memos_change_no_value() -> None:
    # The memos (values per state, draws per unseen multiset) are bounded and trimmed between
    # moves: a player whose memos keep a handful of entries gets the same floats as a fresh one.
    from triples.model.variants import parse_variant

    sum15 = parse_variant("sum15")
    rng = random.Random(8)
    player = Expectimax(sum15)
    player.kept.limit, player.drawn.limit = 50, 5
    for _ in range(12):
        deck = [v for v in range(1, 10) for _ in range(4)]
        rng.shuffle(deck)
        table, unseen = deck[:9], deck[9 : 9 + rng.randint(6, 10)]
        position = [table.count(v) for v in range(10)], [unseen.count(v) for v in range(10)]
        player.trim()
        assert len(player.kept) <= 50 and len(player.drawn) <= 5
        assert player.move_values(*position) == Expectimax(sum15).move_values(*position)
    assert len(player.drawn) > 5  # the walks filled it past its bound, and trim cut it back
