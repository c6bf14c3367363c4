from __future__ import annotations

import random
from collections.abc import Iterator
from fractions import Fraction
from itertools import combinations

import pytest

from triples import run
from triples.engines import fair, search, strategies
from triples.model import rules
from triples.model.deal import seeded
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import VARIANTS, parse_variant

STOCK_VARIANTS = sorted(name for name in VARIANTS if name != "grid100")


def dealt(variant: str, seed: int) -> Table:
    v = parse_variant(variant)
    return Table(v, shuffled(v.cards, seed))


# --- the brute-force expectimax: slot combinations, every draw, no memo, exact fractions ----


def brute_expected(variant: str, table: list[int], unseen: list[int]) -> Fraction:
    """Optimal fair play's expected further cards cleared, literally: a refill draws the
    unseen cards one at a time, each card equally likely; a move is any k slots adding up."""
    v = parse_variant(variant)
    if unseen and len(table) < v.slots:
        total = sum(
            (brute_expected(variant, [*table, card], unseen[:i] + unseen[i + 1 :]) for i, card in enumerate(unseen)),
            Fraction(0),
        )
        return total / len(unseen)
    best = Fraction(0)
    for picked in combinations(range(len(table)), v.per_move):
        if sum(table[i] for i in picked) == v.target:
            rest = [card for i, card in enumerate(table) if i not in picked]
            best = max(best, v.per_move + brute_expected(variant, rest, unseen))
    return best


def brute_win(variant: str, table: list[int], unseen: list[int]) -> Fraction:
    """The largest probability of clearing every card, by the same literal recursion."""
    v = parse_variant(variant)
    if unseen and len(table) < v.slots:
        total = sum(
            (brute_win(variant, [*table, card], unseen[:i] + unseen[i + 1 :]) for i, card in enumerate(unseen)),
            Fraction(0),
        )
        return total / len(unseen)
    best = Fraction(int(not table and not unseen))
    for picked in combinations(range(len(table)), v.per_move):
        if sum(table[i] for i in picked) == v.target:
            rest = [card for i, card in enumerate(table) if i not in picked]
            best = max(best, brute_win(variant, rest, unseen))
    return best


def small_positions(variant: str, count: int, most_unseen: int) -> Iterator[tuple[list[int], list[int]]]:
    """Random full tables with a few cards unseen (the rest of the deck counts as cleared)."""
    v = parse_variant(variant)
    rng = random.Random(variant)
    for _ in range(count):
        deck = list(Table(v, v.cards).deck_values)
        rng.shuffle(deck)
        unseen = rng.randint(1, most_unseen)
        yield deck[: v.slots], deck[v.slots : v.slots + unseen]


def counts(variant: str, values: list[int]) -> list[int]:
    return rules.histogram(values, parse_variant(variant).max_value)


@pytest.mark.parametrize("variant", STOCK_VARIANTS)
def test_exact_part_equals_brute_force_expectimax(variant: str) -> None:
    exact = fair.Expectimax(parse_variant(variant))  # one memo for every position: it must stay right
    checked = 0
    for table, unseen in small_positions(variant, 12, 3):
        valued = exact.move_values(counts(variant, table), counts(variant, unseen))
        assert (
            abs(
                exact.expected(counts(variant, table), counts(variant, unseen))
                - max((value for _, value in valued), default=0.0)
            )
            < 1e-9
        )
        for combo, value in valued:
            rest = list(table)
            for card in combo:
                rest.remove(card)
            expected = parse_variant(variant).per_move + brute_expected(variant, rest, unseen)
            assert abs(value - float(expected)) < 1e-9, (table, unseen, combo)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("variant", ["sum15", "pairs"])  # grid's 12 slots are too many for brute force
def test_win_probability_equals_brute_force(variant: str) -> None:
    # Late positions of real games (few cards unseen), where clearing everything can happen.
    v = parse_variant(variant)
    solver = fair.ExpectimaxWin(v)
    checked = wins = 0
    for seed in range(1, 16):
        table = dealt(variant, seed)
        while table.stock_size > 3 and (move := strategies.lookahead(table)) is not None:
            table.push(move)
        table_values = [x for x in table.values if x]
        unseen = list(table.deck_values[table.next_card :])
        value = solver.value(counts(variant, table_values), counts(variant, unseen))
        assert abs(value.real - float(brute_expected(variant, table_values, unseen))) < 1e-9
        win = brute_win(variant, table_values, unseen)
        assert abs(value.imag - float(win)) < 1e-9
        checked += 1
        wins += win > 0
    assert 0 < wins < checked


def test_mirror_images_share_an_entry_and_a_value() -> None:
    v = parse_variant("sum15")
    packing = fair.packing_for(v)
    assert packing.mirror == 10
    assert fair.packing_for(parse_variant("classic")).mirror == 0
    table = [1, 1, 2, 5, 6, 8, 9, 9, 4]
    unseen = [3, 7, 7]
    mirrored = [10 - x for x in table], [10 - x for x in unseen]
    exact = fair.Expectimax(v)
    value = exact.expected(counts("sum15", table), counts("sum15", unseen))
    entries = len(exact.memo)
    assert exact.expected(counts("sum15", mirrored[0]), counts("sum15", mirrored[1])) == value
    assert len(exact.memo) == entries  # the mirror image was already there
    assert abs(value - float(brute_expected("sum15", table, unseen))) < 1e-9


# --- it never peeks -------------------------------------------------------------------------


def positions_with_a_stock(variant: str, seeds: range) -> Iterator[Table]:
    """Positions along lookahead games that still have a stock to hide."""
    for seed in seeds:
        table = dealt(variant, seed)
        while table.stock_size and (move := strategies.lookahead(table)) is not None:
            yield table
            table.push(move)


def with_stock_shuffled(table: Table, rng: random.Random) -> Table:
    """The same table, history and cleared over a differently ordered stock."""
    stock = list(table.stock)
    rng.shuffle(stock)
    # Replay the same moves: the dealt part of the deck is unchanged, so they refill alike.
    replayed = Table(table.variant, [*table.deck[: table.next_card], *stock])
    for move in table.history():
        replayed.push(move)
    assert replayed.values == table.values and replayed.cleared == table.cleared
    assert replayed.history() == table.history()
    return replayed


@pytest.mark.parametrize(
    ("variant", "seeds", "samples", "exact_unseen"),
    [
        pytest.param("sum15", range(1, 9), fair.DEFAULT_SAMPLES, None, id="sum15-defaults"),
        pytest.param("grid", range(1, 5), 10, 6, id="grid"),
        pytest.param("classic", range(1, 5), 10, 9, id="classic"),
        pytest.param("quads", range(1, 3), 10, 9, id="quads"),
    ],
)
def test_shuffling_the_stock_never_changes_the_move(
    variant: str, seeds: range, samples: int, exact_unseen: int | None
) -> None:
    rng = random.Random(1)
    sampled = exact = 0
    for table in positions_with_a_stock(variant, seeds):
        fair.forget(memos=False)  # no kept choice may answer for the second table
        choice = fair.choose(table, samples, exact_unseen)
        fair.forget(memos=False)
        assert fair.choose(with_stock_shuffled(table, rng), samples, exact_unseen) == choice
        sampled += not choice.exact
        exact += choice.exact
    assert sampled and exact  # both parts were asked


def test_the_same_position_gets_the_same_orders_in_every_process() -> None:
    # blake2b, not hash(): the seed and the orders are pinned, so neither PYTHONHASHSEED, nor
    # the process, nor --jobs can change a fair move.
    v = parse_variant("sum15")
    table_counts, unseen_counts = [0, 1, 0, 2, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 1, 2]
    assert fair.position_seed(v, table_counts, [0, 3, 4, 2, 4, 4, 4, 4, 4, 4], 3) == 4116822425516051009
    assert fair.sample_orders(v, table_counts, unseen_counts, 30, 3) == [[9, 8, 9], [9, 8, 9], [9, 9, 8]]


# --- the sampling's exact search: one memo per order serves every candidate ----------------


@pytest.mark.parametrize("variant", ["classic", "sum15", "grid", "quads"])
def test_fixed_deck_scores_equal_fresh_searches(variant: str) -> None:
    v = parse_variant(variant)
    roots = 0
    for seed in range(1, 11):
        # Every candidate after one opening move: several roots over one deck, one memo.
        table = dealt(variant, seed)
        if opening := rules.legal_moves(table):
            table.push(opening[0])
        order = list(table.deck_values[table.next_card :])
        deck = search.FixedDeck(v, order)
        base = [x for x in table.values if x]
        for combo in rules.value_combos(counts(variant, base), v.per_move, v.target):
            move = rules.first_slots(combo, rules.slots_by_value(table.values))
            table.push(move)
            fresh = search.best_cleared(table) - table.cleared
            refill = min(v.per_move, len(order))
            assert deck.best_gain(table.values, refill) == fresh, (seed, combo)
            assert deck.reaches(table.values, refill, fresh)
            assert not deck.reaches(table.values, refill, fresh + 1)
            table.pop()
            roots += 1
    assert roots > 10


def test_sampled_scores_are_exact_best_scores_of_each_order() -> None:
    v = parse_variant("sum15")
    table = dealt("sum15", 3)
    table_counts, unseen_counts = fair.seen_counts(table)
    candidates = fair.playable(v, table_counts)
    assert len(candidates) > 1
    totals = fair.sampled_scores(v, table_counts, unseen_counts, 0, candidates, 4)
    expected = [0] * len(candidates)
    for order in fair.sample_orders(v, table_counts, unseen_counts, 0, 4):
        for i, combo in enumerate(candidates):
            # The dealt cards in front, the sampled order behind them: an ordinary game.
            other = Table(v, [*table.deck[: table.next_card], *cards_in_order(table, order)])
            move = rules.first_slots(combo, rules.slots_by_value(other.values))
            other.push(move)
            expected[i] += search.best_cleared(other)
    assert totals == expected


def test_sample_orders_are_the_generators_own_shuffles() -> None:
    # sample_orders writes rng.shuffle out draw for draw: the same orders, pinned to it.
    v = parse_variant("sum15")
    rng = random.Random(3)
    for _ in range(300):
        table_counts = [0] * 10
        unseen_counts = [0, *(rng.randint(0, 4) for _ in range(9))]
        cleared, samples = rng.randint(0, 30), rng.randint(0, 4)
        generator = random.Random(fair.position_seed(v, table_counts, unseen_counts, cleared))
        unseen = [value for value in range(1, 10) for _ in range(unseen_counts[value])]
        expected = []
        for _ in range(samples):
            order = list(unseen)
            generator.shuffle(order)
            expected.append(order)
        assert fair.sample_orders(v, table_counts, unseen_counts, cleared, samples) == expected


def custom(name: str, **changed: object) -> Variant:
    return parse_variant(name).replace(**changed)


def random_positions(v: Variant, count: int, unseen: tuple[int, int]) -> Iterator[tuple[list[int], list[int]]]:
    """Full tables with some cards unseen, as value counts (the rest of the deck is cleared)."""
    rng = random.Random(f"{v.name} {v.slots} {v.target} {v.suits}")
    for _ in range(count):
        deck = list(Table(v, v.cards).deck_values)
        rng.shuffle(deck)
        hidden = rng.randint(*unseen)
        yield (
            rules.histogram(deck[: v.slots], v.max_value),
            rules.histogram(deck[v.slots : v.slots + hidden], v.max_value),
        )


OWN_VARIANTS = [
    pytest.param(parse_variant("sum15"), id="sum15"),
    pytest.param(parse_variant("classic"), id="classic"),
    pytest.param(parse_variant("grid"), id="grid"),
    pytest.param(parse_variant("quads"), id="quads"),
    pytest.param(custom("classic", slots=11, target=21), id="classic-11-21"),
    pytest.param(custom("sum15", suits=3, target=14), id="sum15-3suits-14"),
]


@pytest.mark.parametrize("v", OWN_VARIANTS)
def test_sampled_choice_picks_what_every_total_picks(v: Variant) -> None:
    # The naive model: every candidate scored on every order (sampled_scores), the first of
    # the best total chosen. sampled_choice drops candidates that can no longer win.
    checked = dropped = 0
    for table_counts, unseen_counts in random_positions(v, 30, (6, 14)):
        candidates = fair.playable(v, table_counts)
        if len(candidates) > 1:
            totals = fair.sampled_scores(v, table_counts, unseen_counts, 0, candidates, 6)
            chosen, kept = fair.sampled_choice(v, table_counts, unseen_counts, 0, candidates, 6)
            assert candidates[chosen] == fair._first_best(candidates, totals, 0.0)
            assert all(score in (None, total) for score, total in zip(kept, totals, strict=True))
            assert kept[chosen] == totals[chosen]
            checked += 1
            dropped += kept.count(None)
    assert checked >= 20 and dropped > 0


@pytest.mark.parametrize("v", OWN_VARIANTS)
def test_exact_choice_is_the_choice_over_every_move_value(v: Variant) -> None:
    checked = cut = 0
    for table_counts, unseen_counts in random_positions(v, 40, (1, 6)):
        candidates = fair.playable(v, table_counts)
        if len(candidates) > 1:
            values = [value for _, value in fair.Expectimax(v).move_values(table_counts, unseen_counts)]
            choice = fair._exact_choice(v, table_counts, unseen_counts, candidates)
            assert choice.combo == fair._first_best(candidates, values, fair.TIE)
            scored = [score for score in choice.scores if score is not None]
            assert scored == values[: len(scored)]
            assert choice.scores[len(scored) :] == (None,) * (len(values) - len(scored))
            checked += 1
            cut += len(scored) < len(values)
    assert checked >= 20 and cut > 0


def cards_in_order(table: Table, order: list[int]) -> list[object]:
    """The stock's cards rearranged so that their values come in ``order``."""
    by_value: dict[int, list[object]] = {}
    for card in table.stock:
        by_value.setdefault(table.variant.value(card), []).append(card)
    return [by_value[value].pop() for value in order]


# --- the strategy ---------------------------------------------------------------------------


def test_fair_is_registered_and_plays_through_autoplay() -> None:
    assert strategies.strategy_named("fair") is strategies.fair_player
    table = dealt("sum15", 2)
    expected = [list(m) for m in strategies.play_out(table, strategies.fair_player)]
    out = run([["new", "g", 2, "sum15"], ["autoplay", "g", "fair"], ["status", "g"], ["history", "g"]])
    assert out[1] == {"moves": expected, "cleared": table.cleared}
    assert out[2] == {"cleared": table.cleared, "stock": 0 if table.cleared == 36 else table.stock_size, "over": True}
    assert out[3] == expected


@pytest.mark.parametrize("variant", STOCK_VARIANTS)
def test_play_fair_plays_legal_moves_to_the_end_and_never_beats_best(variant: str) -> None:
    for seed in range(1, 4):
        table = dealt(variant, seed)
        best = search.best_cleared(dealt(variant, seed))
        cleared = fair.play_fair(table)
        assert cleared == table.cleared <= best
        assert not rules.has_legal_move(table)
        replay = dealt(variant, seed)
        for move in table.history():
            replay.push(rules.check_move(replay, list(move)))


def test_pairs_fair_play_clears_what_best_play_clears() -> None:
    # A pairs card pairs with one value only: every order of play ends the same.
    for seed in range(1, 21):
        assert fair.play_fair(dealt("pairs", seed)) == search.best_cleared(dealt("pairs", seed))
        fair_game = strategies.play_out(dealt("pairs", seed), strategies.fair_player)
        assert fair_game == strategies.play_out(dealt("pairs", seed), strategies.high_cards_first)


def test_with_nothing_hidden_the_choice_is_the_first_optimal_one_in_high_order() -> None:
    # Once the stock is empty nothing is hidden: the fair player takes the first combination,
    # in the high order, whose best equals the position's. Positions where the first candidate
    # falls short tell it from "the first candidate"; positions where several reach the best
    # tell it from "any optimal one": the test counts both kinds.
    v = parse_variant("sum15")
    first_falls_short = several_reach = 0
    for seed in range(1, 60):
        table = dealt("sum15", seed)
        while table.stock_size and (move := strategies.lookahead(table)) is not None:
            table.push(move)
        while rules.has_legal_move(table):
            best = search.best_cleared(table)
            candidates = fair.playable(v, rules.histogram(table.values, 9))
            reaching = []
            for combo in candidates:
                table.push(rules.first_slots(combo, rules.slots_by_value(table.values)))
                reaching.append(search.best_cleared(table) == best)
                table.pop()
            choice = fair.choose(table)
            assert choice.combo == candidates[reaching.index(True)], (seed, table.values)
            first_falls_short += not reaching[0]
            several_reach += sum(reaching) >= 2
            table.push(rules.first_slots(choice.combo, rules.slots_by_value(table.values)))
    assert first_falls_short >= 3 and several_reach >= 3, (first_falls_short, several_reach)


def test_a_dealt_game_is_won_more_often_than_by_high() -> None:
    fair_wins = high_wins = 0
    for seed in range(1, 11):  # 9 wins to 5; benchmarks/fair.py measures 500 deals
        fair_wins += fair.play_fair(dealt("sum15", seed)) == 36
        table = dealt("sum15", seed)
        strategies.play_out(table, strategies.high_cards_first)
        high_wins += table.cleared == 36
    assert fair_wins > high_wins


def test_no_move_means_none() -> None:
    table = dealt("sum15", 1)
    table.values[:] = [1, 1, 1, 1, 2, 2, 2, 2, 3]  # the strategies read only the values
    assert fair.fair(table) is None
    assert strategies.fair_player(table) is None


def test_the_fair_player_stops_at_the_deadline() -> None:
    from triples.support import deadline

    table = dealt("classic", 4)
    with pytest.raises(deadline.TimeLimitExceeded), deadline.limited(0.05):
        for _ in range(50):  # a whole game is some seconds of sampled searches
            fair.forget()
            fair.choose(table, samples=200)
    # How promptly it stops is measured, as a ratio to the limit, by benchmarks/deadline.py.


def test_whether_the_candidates_differ_in_worth() -> None:
    table = seeded(parse_variant("sum15"), 51)
    counts, unseen = fair.seen_counts(table)
    candidates = fair.playable(table.variant, counts)
    assert len(candidates) >= 2
    pair = candidates[:2]
    # Scored the same (within the exact player's tie, or half a card of sampled totals): no.
    assert not fair.differ(table, counts, unseen, pair, fair.Choice(pair[0], True, (5.0, 5.0 - fair.TIE / 2)))
    assert not fair.differ(table, counts, unseen, pair, fair.Choice(pair[0], False, (150.0, 149.6)))
    assert fair.differ(table, counts, unseen, pair, fair.Choice(pair[0], True, (5.0, 4.9)))
    assert fair.differ(table, counts, unseen, pair, fair.Choice(pair[0], False, (150.0, 149.0)))
    # The fair player's own judgement of the position: it stopped scoring three candidates, which
    # are finished over its orders as far as the comparison needs; their totals do differ.
    choice = fair.choose(table)
    assert choice.scores[1:] == (None, None, None)
    totals = fair.sampled_scores(table.variant, counts, unseen, 0, candidates, fair.DEFAULT_SAMPLES)
    assert min(totals) < max(totals) - 0.5
    assert fair.differ(table, counts, unseen, candidates, choice)
