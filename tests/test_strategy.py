from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests import helpers
from triples import run
from triples.engines import strategies
from triples.model import rules
from triples.model.cards import Card
from triples.model.shuffle import shuffled
from triples.model.table import Move, Table
from triples.model.variants import VARIANTS, parse_variant

FIXTURES = Path(__file__).parent.parent / "fixtures"
STRATEGY_NAMES = ["first", "high", "lookahead"]
TRIPLE_VARIANTS = sorted(name for name, v in VARIANTS.items() if v.per_move == 3)
SEED1: list[str] = orjson.loads((FIXTURES / "autoplay-spec-seed1.json").read_bytes())["operations"][0][2]

SlotMove = tuple[int, ...]


def dealt(variant: str, seed: int) -> Table:
    v = parse_variant(variant)
    return Table(v, shuffled(v.cards, seed))


def seed1_table() -> Table:
    return Table(parse_variant("classic"), [Card.parse(c) for c in SEED1])


# --- the brute-force references: every slot combination, sorted by the strategy's rule ----
#
# They work in slot space only (no histogram, no binomials). grid100 is too big for trying
# every slot combination each turn (C(100, 3) = 161,700) and for comparing every move with
# every other, so there the moves come from every slot pair plus a matching third slot, and
# the lookahead counts by inclusion-exclusion over slots; both are checked against the
# literal versions below.


def all_slot_combinations(table: Table) -> list[SlotMove]:
    values, variant = table.values, table.variant
    occupied = [s for s, v in enumerate(values) if v]
    value_of = values.__getitem__
    return [c for c in combinations(occupied, variant.per_move) if sum(map(value_of, c)) == variant.target]


def slot_pairs_and_third(table: Table) -> list[SlotMove]:
    """Every k - 1 occupied slots with each later slot that completes the sum (for k = 3, every
    pair and a matching third slot)."""
    return list(helpers.slot_moves(table.values, table.variant.per_move, table.variant.target))


def slot_moves(table: Table) -> list[SlotMove]:
    if table.variant.slots > 12:
        return slot_pairs_and_third(table)
    return all_slot_combinations(table)


def moves_left_literally(moves: list[SlotMove]) -> dict[SlotMove, int]:
    """The moves left once a move's cards are gone: the moves sharing no slot with it."""
    taken = {m: set(m) for m in moves}
    return {m: sum(1 for other in moves if taken[m].isdisjoint(other)) for m in moves}


def moves_left_by_slot_counts(moves: list[SlotMove]) -> dict[SlotMove, int]:
    """k = 3: all moves, minus those through each of the move's slots, plus those through each
    two of them, minus the move itself (which goes through all three)."""
    through_slot = Counter(s for m in moves for s in m)
    through_pair = Counter(pair for a, b, c in moves for pair in ((a, b), (a, c), (b, c)))
    total = len(moves)
    return {
        (a, b, c): total
        - through_slot[a]
        - through_slot[b]
        - through_slot[c]
        + through_pair[a, b]
        + through_pair[a, c]
        + through_pair[b, c]
        - 1
        for a, b, c in moves
    }


def move_values(table: Table, move: SlotMove) -> list[int]:
    return sorted(table.values[s] for s in move)


def reference_first(table: Table, moves: list[SlotMove]) -> SlotMove:
    return min(moves)


def reference_high(table: Table, moves: list[SlotMove]) -> SlotMove:
    values = table.values
    # the negated values in ascending order are the values high to low, compared reversed
    return min(moves, key=lambda m: (sorted([-values[s] for s in m]), m))


def reference_lookahead(table: Table, moves: list[SlotMove]) -> SlotMove:
    count = moves_left_by_slot_counts if table.variant.slots > 12 else moves_left_literally
    left = count(moves)
    most = max(left.values())  # the first key, applied alone: it rules out most moves cheaply
    return min((move_values(table, m), m) for m in moves if left[m] == most)[1]


REFERENCES: dict[str, Callable[[Table, list[SlotMove]], SlotMove]] = {
    "first": reference_first,
    "high": reference_high,
    "lookahead": reference_lookahead,
}


def reference_game(table: Table, name: str) -> list[Move]:
    played: list[Move] = []
    while moves := slot_moves(table):
        move = Move(REFERENCES[name](table, moves))
        table.push(move)
        played.append(move)
    return played


def seeds_for(variant: str) -> range:
    return range(1, 21) if variant == "grid100" else range(1, 201)


def test_grid100_reference_moves_are_every_slot_combination() -> None:
    for seed in (1, 2):
        table = dealt("grid100", seed)
        for _ in range(2):
            moves = all_slot_combinations(table)
            assert slot_pairs_and_third(table) == moves
            table.push(Move(moves[len(moves) // 2]))


@pytest.mark.parametrize("variant", [name for name in TRIPLE_VARIANTS if name != "grid100"])
def test_slot_count_inclusion_exclusion_equals_literal_count(variant: str) -> None:
    for seed in range(1, 31):
        table = dealt(variant, seed)
        while moves := all_slot_combinations(table):
            assert moves_left_by_slot_counts(moves) == moves_left_literally(moves)
            table.push(Move(moves[-1]))


@pytest.mark.parametrize("name", STRATEGY_NAMES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_strategy_plays_the_reference_game(variant: str, name: str) -> None:
    choose = strategies.strategy_named(name)
    for seed in seeds_for(variant):
        table = dealt(variant, seed)
        played = strategies.play_out(table, choose)
        assert played == reference_game(dealt(variant, seed), name), (variant, name, seed)
        assert table.history() == played
        assert not rules.has_legal_move(table)


def test_lookahead_ties_are_exercised() -> None:
    """The whole-game comparisons above only test the tie rules if ties happen: count the turns
    where the best score is shared by several value lists and the value rule picks a move that
    is not the smallest slot list among them."""
    decided_by_values = 0
    for seed in range(1, 201):
        table = dealt("grid", seed)
        while moves := slot_moves(table):
            counts = rules.histogram(table.values, table.variant.max_value)
            scored = strategies.combo_scores(strategies.combos_for(table.variant), counts)
            top = max(score for _, score in scored)
            tied = [combo for combo, score in scored if score == top]
            chosen = strategies.lookahead(table)
            assert chosen is not None
            smallest_tied_slots = min(m for m in moves if tuple(move_values(table, m)) in tied)
            decided_by_values += len(tied) > 1 and chosen != smallest_tied_slots
            table.push(chosen)
    assert decided_by_values > 0


@pytest.mark.parametrize("name", STRATEGY_NAMES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_strategies_do_not_look_at_the_stock(variant: str, name: str) -> None:
    choose = strategies.strategy_named(name)
    slots = parse_variant(variant).slots
    for seed in range(1, 21):
        table = dealt(variant, seed)
        reversed_stock = Table(table.variant, [*table.deck[:slots], *table.deck[: slots - 1 : -1]])
        assert reversed_stock.values == table.values
        assert choose(reversed_stock) == choose(table)


# --- hand-checked positions ----------------------------------------------------------------


def test_seed1_scores_by_hand() -> None:
    # values 9 1 4 9 3 7 2 2 1 7. Taking 2+9+9 leaves 1 4 3 7 2 1 7 (best sum 18); taking
    # 4+7+9 leaves 1 9 3 2 2 1 7 (9 needs 11 from two others: 7+4, gone): no move either way.
    table = seed1_table()
    counts = rules.histogram(table.values, 10)
    combos = strategies.combos_for(table.variant)
    assert strategies.triple_scores(combos, counts) == [((2, 9, 9), 0), ((4, 7, 9), 0)]
    # The tie goes to the smaller value list [2, 9, 9], though [0, 2, 5] is the smaller slot list.
    assert strategies.lookahead(table) == Move([0, 3, 6])
    assert strategies.high_cards_first(table) == Move([0, 3, 6])  # [9, 9, 2] beats [9, 7, 4]
    assert strategies.first_found(table) == Move([0, 2, 5])


def test_first_is_the_first_in_slot_order_not_in_value_order() -> None:
    # After [0, 2, 5] on SEED1: 10 1 5 9 3 8 2 2 1 7. Slot 0 (10) goes with 1+9 (slots 1, 3)
    # before any other pair; a move from slot 1 is never reached.
    table = seed1_table()
    table.push(Move([0, 2, 5]))
    assert table.values == [10, 1, 5, 9, 3, 8, 2, 2, 1, 7]
    assert strategies.first_found(table) == Move([0, 1, 3])


@pytest.mark.parametrize(
    ("values", "move"),
    [
        pytest.param([0, 0, 0, 0, 0, 0, 0, 0, 6, 9], None, id="no-move"),
        pytest.param([8, 0, 0, 0, 0, 0, 0, 6, 6, 6], Move([0, 7, 8]), id="repeated-value"),
        pytest.param([1, 9, 9, 10, 0, 0, 0, 0, 9, 1], Move([0, 1, 3]), id="first-slot-can-finish"),
        pytest.param([10, 9, 9, 0, 0, 0, 0, 0, 0, 2], Move([1, 2, 9]), id="first-slot-cannot"),
    ],
)
def test_first_on_sparse_tables(values: list[int], move: Move | None) -> None:
    table = seed1_table()
    table.values[:] = values  # the strategies read only the values
    assert strategies.first_found(table) == move


# --- the counting: the k = 3 fast path, the general path and brute force agree --------------


def positions_along_games(variant: str, seeds: range) -> Iterator[Table]:
    """Every position of lookahead and first-found games, the final one included (the one
    table is yielded, then played on)."""
    for seed in seeds:
        for name in ("lookahead", "first"):
            table = dealt(variant, seed)
            choose = strategies.strategy_named(name)
            while True:
                yield table
                move = choose(table)
                if move is None:
                    break
                table.push(move)


@pytest.mark.parametrize("variant", TRIPLE_VARIANTS)
def test_fast_scores_equal_general_scores_along_games(variant: str) -> None:
    combos = strategies.combos_for(parse_variant(variant))
    seeds = range(1, 4) if variant == "grid100" else range(1, 41)
    for table in positions_along_games(variant, seeds):
        counts = rules.histogram(table.values, table.variant.max_value)
        assert strategies.triple_scores(combos, counts) == strategies.combo_scores(combos, counts)


@pytest.mark.parametrize("variant", TRIPLE_VARIANTS)
@given(data=st.data())
def test_fast_scores_equal_general_scores_on_any_table(variant: str, data: st.DataObject) -> None:
    v = parse_variant(variant)
    cards = data.draw(st.permutations(range(v.deck_size)))
    size = data.draw(st.integers(0, v.slots))
    counts = rules.histogram([v.value(v.cards[i]) for i in cards[:size]], v.max_value)
    combos = strategies.combos_for(v)
    assert strategies.triple_scores(combos, counts) == strategies.combo_scores(combos, counts)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_count_moves_equals_brute_force(variant: str) -> None:
    combos = strategies.combos_for(parse_variant(variant))
    seeds = range(1, 3) if variant == "grid100" else range(1, 21)
    for table in positions_along_games(variant, seeds):
        counts = rules.histogram(table.values, table.variant.max_value)
        assert strategies.count_moves(combos, counts) == len(slot_moves(table))


@pytest.mark.parametrize("variant", TRIPLE_VARIANTS)
def test_fast_and_general_lookahead_play_the_same_games(variant: str) -> None:
    def general(table: Table) -> Move | None:
        return strategies.lookahead_move(table, fast=False)

    for seed in range(1, 6) if variant == "grid100" else range(1, 51):
        fast_game = strategies.play_out(dealt(variant, seed), strategies.lookahead)
        assert fast_game == strategies.play_out(dealt(variant, seed), general), (variant, seed)


def test_counting_tables_are_built_once_per_variant() -> None:
    grid = parse_variant("grid")
    assert strategies.combos_for(grid) is strategies.combos_for(grid)
    assert strategies.combos_for(grid).combos == tuple(rules.value_combos([3] * 10, 3, 15))


# --- autoplay through the operations -------------------------------------------------------


def test_registry() -> None:
    # fair is tested in tests/test_fair.py: it has no slot-space reference game here.
    assert sorted(strategies.STRATEGIES) == sorted([*STRATEGY_NAMES, "fair"])
    assert strategies.strategy_named("high") is strategies.high_cards_first
    assert strategies.strategy_named("fair") is strategies.fair_player


def test_unknown_strategy_changes_nothing() -> None:
    out = run(
        [
            ["new", "g", SEED1],
            ["play", "g", [5, 0, 2]],
            ["status", "g"],
            ["autoplay", "g", "greedy"],
            ["autoplay", "g", "High"],
            ["status", "g"],
            ["history", "g"],
        ]
    )
    assert out[3:5] == ["error: unknown strategy 'greedy'", "error: unknown strategy 'High'"]
    assert out[5] == out[2]
    assert out[6] == [[0, 2, 5]]


@pytest.mark.parametrize("name", STRATEGY_NAMES)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_autoplay_from_mid_game_then_undo_everything(variant: str, name: str) -> None:
    # Two opening moves the strategies would not all choose: the last legal move each time.
    table = dealt(variant, 11)
    opening = []
    for _ in range(2):
        move = rules.legal_moves(table)[-1]
        table.push(move)
        opening.append(list(move))
    before = table.snapshot()
    expected = [list(m) for m in strategies.play_out(table, strategies.strategy_named(name))]
    assert expected

    ops: list[Any] = [["new", "g", 11, variant]]
    ops += [["play", "g", m] for m in opening]
    ops += [["table", "g"], ["autoplay", "g", name], ["history", "g"], ["status", "g"]]
    ops += [["undo", "g"]] * len(expected)
    ops += [["table", "g"], ["history", "g"]]
    out = run(ops)
    assert out[1:3] == ["ok", "ok"]
    assert out[3] == list(before[0])
    assert out[4] == {"moves": expected, "cleared": table.cleared}
    assert out[5] == opening + expected
    assert out[6] == {"cleared": table.cleared, "stock": table.stock_size, "over": True}
    assert out[7 : 7 + len(expected)] == ["ok"] * len(expected)
    assert out[-2:] == [list(before[0]), opening]


def test_autoplay_on_a_finished_game_plays_nothing() -> None:
    out = run([["new", "g", SEED1], ["autoplay", "g"], ["autoplay", "g", "lookahead"], ["history", "g"]])
    assert out[2] == {"moves": [], "cleared": 12}
    assert out[3] == out[1]["moves"]


def test_undo_steps_back_through_autoplay_one_move_at_a_time() -> None:
    out = run(
        [
            ["new", "g", SEED1],
            ["autoplay", "g"],
            ["undo", "g"],
            ["history", "g"],
            ["status", "g"],
            ["autoplay", "g", "first"],
            ["undo", "g"],
            ["undo", "g"],
            ["undo", "g"],
            ["undo", "g"],
            ["undo", "g"],
            ["table", "g"],
        ]
    )
    assert out[1]["moves"] == [[0, 3, 6], [0, 6, 7], [0, 4, 5], [0, 3, 5]]
    assert out[2:5] == ["ok", [[0, 3, 6], [0, 6, 7], [0, 4, 5]], {"cleared": 9, "stock": 33, "over": False}]
    # left: 5 1 4 5 4 10 10 10 1 7, whose moves are 5+5+10 with the 10 in slot 5, 6 or 7
    assert out[5] == {"moves": [[0, 3, 5]], "cleared": 12}
    assert out[6:11] == ["ok", "ok", "ok", "ok", "error: nothing to undo"]
    assert out[11] == out[0]


# --- fixtures ------------------------------------------------------------------------------


def autoplay_fixtures() -> list[dict[str, Any]]:
    return [orjson.loads(p.read_bytes()) for p in sorted(FIXTURES.glob("autoplay-*.json"))]


def test_every_variant_and_strategy_has_an_autoplay_fixture() -> None:
    covered = set()
    for fixture in autoplay_fixtures():
        for op in fixture["operations"]:
            if op[0] == "new":
                variant = op[3] if len(op) > 3 else "classic"
            if op[0] == "autoplay":
                covered.add((variant, op[2] if len(op) > 2 else "high"))
    assert covered == {(v, s) for v in VARIANTS for s in STRATEGY_NAMES}


@pytest.mark.parametrize("fixture", autoplay_fixtures(), ids=lambda f: f["name"])
def test_autoplay_fixture_moves_are_the_reference_moves(fixture: dict[str, Any]) -> None:
    """The recorded outputs came from the engine; check their autoplay moves independently."""
    new = fixture["operations"][0]
    variant = parse_variant(new[3] if len(new) > 3 else "classic")
    deck = shuffled(variant.cards, new[2]) if isinstance(new[2], int) else [Card.parse(c) for c in new[2]]
    op, output = next(
        (op, out) for op, out in zip(fixture["operations"], fixture["outputs"], strict=True) if op[0] == "autoplay"
    )
    table = Table(variant, deck)
    assert output["moves"] == [list(m) for m in reference_game(table, op[2] if len(op) > 2 else "high")]
    assert output["cleared"] == table.cleared


def test_every_strategy_plays_legal_moves_on_random_rule_sets() -> None:
    # Rule sets nobody registered: each strategy's moves pass the rules' own check, it stops
    # only when no move is legal, and never clears more than the exact best.
    import random

    from tests.rule_sets import random_variant
    from triples.engines import search
    from triples.model.deal import seeded

    rng = random.Random(22)
    for _ in range(40):
        variant = random_variant(rng)
        deck = seeded(variant, rng.randrange(2**32)).deck
        best = search.best_cleared(Table(variant, deck))
        for name in ("high", "first", "lookahead", "fair"):
            table = Table(variant, deck)
            choose = strategies.strategy_named(name)
            while (move := choose(table)) is not None:
                table.push(rules.check_move(table, list(move)))
            assert not rules.has_legal_move(table) and table.cleared <= best, (variant, name)
        high = Table(variant, deck)
        strategies.play_out(high, strategies.high_cards_first)
        assert high.history() == reference_high_line(Table(variant, deck)), variant


def reference_high_line(table: Table) -> list[Move]:
    """``high`` by its definition, over every legal slot move: values high to low, largest
    first, ties to the smallest slot list."""
    line: list[Move] = []
    while moves := rules.legal_moves(table):
        move = max(moves, key=lambda m: (sorted((table.values[p] for p in m), reverse=True), [-p for p in m]))
        table.push(move)
        line.append(move)
    return line
