"""The original problems' interfaces (triples.compat) against their texts' own examples."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from tests.helpers import SPEC_SECTION_9, SPEC_SECTION_9_IDS
from tests.reference import REFERENCE_STRATEGIES, ReferenceGame, brute_best, naive_deal, naive_value_deck
from triples import run
from triples.compat import GREEDY_STRATEGY, CardGame, GridCard, Solver, SumFifteenSolver
from triples.engines import search
from triples.engines.strategies import play_out, strategy_named
from triples.interpreter.session import MIXED_DECK, deal
from triples.model.variant import Variant
from triples.model.variants import parse_variant

SUM15 = parse_variant("sum15")
GRID = parse_variant("grid")
GRID100 = parse_variant("grid100")


def values_of(codes: list[str]) -> list[int]:
    return [int(code[:-1]) for code in codes]


def complete(top: list[int], variant: Variant = SUM15) -> list[int]:
    """``top`` followed by every value the deck still holds, ascending: a whole deck of values."""
    copies = variant.copies
    return top + [v for v in range(1, len(copies)) for _ in range(copies[v] - top.count(v))]


def codes_by_appearance(values: list[int], variant: Variant) -> list[str]:
    """Numeric decks as values spelled out (the property tests' literal reading of it)."""
    codes = naive_value_deck(variant, values)
    assert codes is not None, values
    return codes


# --- the sum-fifteen problem ----------------------------------------------------------------


def test_example_1_as_printed_breaks_the_texts_own_constraint() -> None:
    # Nine 5s on the first board, but the text's deck holds four of each value.
    with pytest.raises(ValueError, match=r"^value 5 appears more than 4 times$"):
        SumFifteenSolver().can_win_optimal([5, 5, 5, 5, 5, 5, 5, 5, 5, 1, 2, 3])


def test_example_1_move_takes_three_fives_and_refills_1_2_3() -> None:
    deck = complete([5, 5, 5, 5, 9, 9, 9, 9, 8, 1, 2, 3])
    out = run([["new", "s", deck, "sum15"], ["play", "s", [0, 1, 2]], ["table", "s"]])
    assert out == [
        ["5S", "5H", "5D", "5C", "9S", "9H", "9D", "9C", "8S"],
        "ok",
        ["1S", "2S", "3S", "5C", "9S", "9H", "9D", "9C", "8S"],
    ]
    solver = SumFifteenSolver()
    assert (solver.can_win_optimal(deck), solver.can_win_greedy(deck)) == (False, False)


def test_example_2_no_triple_on_the_first_board_loses_at_once() -> None:
    deck = complete([1, 1, 1, 1, 2, 2, 2, 2, 3])
    solver = SumFifteenSolver()
    assert (solver.can_win_optimal(deck), solver.can_win_greedy(deck)) == (False, False)
    assert run([["new", "s", deck, "sum15"], ["status", "s"]])[1] == {"cleared": 0, "stock": 27, "over": True}


@pytest.mark.parametrize(
    ("seed", "optimal", "greedy"),
    [
        pytest.param(3, True, True, id="both-win"),
        pytest.param(1, True, False, id="only-best-play-wins"),
        pytest.param(5, False, False, id="nobody-wins"),
    ],
)
def test_seeded_decks(seed: int, optimal: bool, greedy: bool) -> None:
    deck = values_of(naive_deal(SUM15, seed))
    solver = SumFifteenSolver()
    assert (solver.can_win_optimal(deck), solver.can_win_greedy(deck)) == (optimal, greedy)


def test_can_win_optimal_is_best_equals_deck_size_on_500_seeds() -> None:
    solver = SumFifteenSolver()
    wins = 0
    for seed in range(1, 501):
        expected = search.best_cleared(deal(SUM15, seed)) == SUM15.deck_size
        assert solver.can_win_optimal(values_of(naive_deal(SUM15, seed))) is expected, seed
        wins += expected
    assert wins == 459


@pytest.mark.parametrize("seed", range(1, 21))
def test_can_win_optimal_agrees_with_brute_force(seed: int) -> None:
    deck = values_of(naive_deal(SUM15, seed))
    assert SumFifteenSolver().can_win_optimal(deck) is (brute_best(SUM15, deck, deck[:9], 9) == 36)


def test_can_win_greedy_plays_high_and_never_wins_where_optimal_loses() -> None:
    solver = SumFifteenSolver()
    high = strategy_named(GREEDY_STRATEGY)
    assert GREEDY_STRATEGY == "high"
    wins = 0
    for seed in range(1, 501):
        deck = values_of(naive_deal(SUM15, seed))
        greedy = solver.can_win_greedy(deck)
        assert not greedy or solver.can_win_optimal(deck), seed
        table = deal(SUM15, seed)
        play_out(table, high)
        assert greedy is (table.cleared == 36), seed
        wins += greedy
    assert wins == 317


def test_code_decks_give_the_same_answers_as_value_decks() -> None:
    solver = SumFifteenSolver()
    for seed in range(1, 31):
        codes = naive_deal(SUM15, seed)
        values = values_of(codes)
        assert solver.can_win_optimal(codes) is solver.can_win_optimal(values)
        assert solver.can_win_greedy(codes) is solver.can_win_greedy(values)


FULL = complete([])


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        pytest.param([10, *FULL[1:]], "unknown value 10 for variant 'sum15'", id="value-too-high"),
        pytest.param([0, *FULL[1:]], "unknown value 0 for variant 'sum15'", id="value-zero"),
        pytest.param([*FULL[:-1], -9], "unknown value -9 for variant 'sum15'", id="value-negative"),
        pytest.param([5, 5, 5, 5, 5, 10], "unknown value 10 for variant 'sum15'", id="unknown-before-too-often"),
        pytest.param([*FULL, 9], "value 9 appears more than 4 times", id="extra-value"),
        pytest.param([5] * 9 + [1, 2, 3], "value 5 appears more than 4 times", id="too-often-before-missing"),
        pytest.param(FULL[:-1], "deck is missing 1 card(s): 9", id="one-missing"),
        pytest.param([1], "deck is missing 35 card(s): 1 1 1 2 2", id="missing-ascending"),
        pytest.param([True, *FULL[1:]], MIXED_DECK, id="bool-value"),
        pytest.param([1.0, *FULL[1:]], MIXED_DECK, id="float-value"),
        pytest.param(["1S", *FULL[1:]], MIXED_DECK, id="codes-and-values"),
        pytest.param([None, 10], MIXED_DECK, id="kind-before-value"),
        pytest.param(7, MIXED_DECK, id="not-a-list"),
        pytest.param("1S2S", MIXED_DECK, id="a-string"),
        pytest.param([], "deck is missing 36 card(s): 1S 2S 3S 4S 5S", id="empty"),
        pytest.param(["5S", "5S"], "card '5S' appears twice in the deck", id="code-deck-error"),
    ],
)
def test_bad_decks_raise_value_error_with_the_interpreters_message(deck: Any, message: str) -> None:
    solver = SumFifteenSolver()
    for method in (solver.can_win_optimal, solver.can_win_greedy):
        with pytest.raises(ValueError) as raised:
            method(deck)
        assert str(raised.value) == message
    if isinstance(deck, list):
        assert run([["new", "s", deck, "sum15"]]) == [f"error: {message}"]


# --- the card-game-grid problem: the game ---------------------------------------------------


def grid_codes(game: CardGame) -> dict[int, str]:
    return {position: card.code for position, card in game.get_grid().items()}


@pytest.mark.parametrize(
    ("rows", "cols", "variant", "target"),
    [pytest.param(3, 4, GRID, 15, id="3x4"), pytest.param(10, 10, GRID100, 39, id="10x10")],
)
def test_a_seed_deals_what_the_interpreter_deals(rows: int, cols: int, variant: Variant, target: int) -> None:
    game = CardGame(7, grid_rows=rows, grid_cols=cols)
    table = run([["new", "g", 7, variant.name]])[0]
    assert grid_codes(game) == dict(enumerate(table))
    assert len(game.get_grid()) == rows * cols
    assert (game.get_target_sum(), game.get_turns_played(), game.grid_rows, game.grid_cols) == (target, 0, rows, cols)
    assert game.table.stock_size == variant.deck_size - rows * cols


def test_the_default_game_is_the_3x4_grid_of_seed_0() -> None:
    assert grid_codes(CardGame()) == grid_codes(CardGame(0)) == dict(enumerate(run([["new", "g", 0, "grid"]])[0]))


def test_the_grid_maps_positions_to_cards_with_values() -> None:
    grid = CardGame(deck=complete([9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9], GRID)).get_grid()
    assert grid[0] == GridCard(9, "S")
    assert (grid[0].value, grid[0].suit, grid[0].code, str(grid[11])) == (9, "S", "9S", "9C")
    assert [card.value for card in grid.values()] == [9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9]


def test_the_grid_is_a_copy() -> None:
    game = CardGame(3)
    game.get_grid().clear()
    assert len(game.get_grid()) == 12


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        pytest.param(
            {"grid_rows": 4, "grid_cols": 6},
            ValueError,
            "no 4x6 game: the grids are 3x4 and 10x10",
            id="4x6",
        ),
        pytest.param({"seed": 1, "deck": FULL}, ValueError, "give a seed or a deck, not both", id="seed-and-deck"),
        pytest.param({"seed": "1"}, TypeError, "seed must be an integer", id="string-seed"),
        pytest.param({"seed": True}, TypeError, "seed must be an integer", id="bool-seed"),
        pytest.param({"deck": FULL[:-1]}, ValueError, "deck is missing 1 card(s): 9", id="short-deck"),
        pytest.param(
            {"deck": FULL, "grid_rows": 10, "grid_cols": 10},
            ValueError,
            "deck is missing 64 card(s): 10 10 10 10 11",
            id="small-deck-on-10x10",
        ),
    ],
)
def test_bad_games(kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    with pytest.raises(error) as raised:
        CardGame(**kwargs)
    assert str(raised.value) == message


def test_a_move_takes_three_positions_and_refills_them() -> None:
    game = CardGame(deck=complete([9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9], GRID))
    assert game.has_valid_move() and game.has_valid_triple()
    game.play_move((0, 4, 8))  # 9 + 5 + 1; a tuple works as well as a list
    assert game.get_turns_played() == 1
    assert [grid_codes(game)[p] for p in (0, 4, 8)] == ["1H", "1D", "1C"]  # the deck goes on 1 1 1 2 ...


def finished_game() -> CardGame:
    """A 3x4 game played to the end with every card cleared, so every position is empty."""
    game = CardGame(1)
    assert Solver(game).play_game_optimized() == 12
    return game


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        pytest.param([0, 1], "pick exactly 3 cards", id="two"),
        pytest.param([0, 1, 2, 3], "pick exactly 3 cards", id="four"),
        pytest.param(7, "pick exactly 3 cards", id="not-a-list"),
        pytest.param([0, 1, "2"], "positions must be integers", id="string"),
        pytest.param([0, 1, 12], "position out of range", id="past-the-grid"),
        pytest.param([-1, 0, 1], "position out of range", id="negative"),
        pytest.param([0, 0, 1], "positions must be distinct", id="repeated"),
        pytest.param([0, 1, 2], "cards sum to 24, need 15", id="wrong-sum"),
    ],
)
def test_a_rejected_move_raises_the_rules_message_and_changes_nothing(positions: Any, message: str) -> None:
    game = CardGame(deck=complete([9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9], GRID))
    before = game.table.snapshot()
    with pytest.raises(ValueError) as raised:
        game.play_move(positions)
    assert str(raised.value) == message
    assert game.table.snapshot() == before


def test_a_move_on_an_empty_position_is_rejected() -> None:
    game = finished_game()
    assert (game.get_grid(), game.has_valid_move()) == ({}, False)
    with pytest.raises(ValueError, match=r"^empty slot$"):
        game.play_move([0, 1, 2])
    assert game.get_turns_played() == 12


# --- the card-game-grid problem: the solver --------------------------------------------------


def naive_triples(game: CardGame) -> list[list[int]]:
    """The text's naive enumeration: every three positions in position order whose cards sum up."""
    grid = game.get_grid()
    return [
        list(triple)
        for triple in combinations(sorted(grid), 3)
        if sum(grid[p].value for p in triple) == game.get_target_sum()
    ]


@pytest.mark.parametrize("seed", range(1, 31))
def test_find_triple_is_the_first_in_position_order_at_every_step(seed: int) -> None:
    game, fresh = CardGame(seed), CardGame(seed)
    solver = Solver(game)
    while triples := naive_triples(game):
        assert solver.find_triple() == triples[0]
        assert solver.find_all_triples() == triples
        game.play_move(triples[0])
    assert (solver.find_triple(), solver.find_all_triples()) == (None, [])
    assert Solver(fresh).play_game() == game.get_turns_played()
    assert fresh.table.history() == game.table.history()


def test_find_triple_plays_nothing() -> None:
    game = CardGame(5)
    Solver(game).find_triple()
    assert game.get_turns_played() == 0


@pytest.mark.parametrize("seed", range(1, 31))
def test_play_game_optimized_is_the_lookahead(seed: int) -> None:
    game = CardGame(seed)
    turns = Solver(game).play_game_optimized()
    reference = ReferenceGame(GRID, naive_deal(GRID, seed))
    assert [list(move) for move in game.table.history()] == reference.autoplay(REFERENCE_STRATEGIES["lookahead"])
    assert turns == game.get_turns_played() == len(reference.moves)
    assert not game.has_valid_move()


def test_play_returns_the_games_turns_including_moves_made_before() -> None:
    game = CardGame(deck=complete([9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 9, 9], GRID))
    game.play_move([0, 4, 8])
    turns = Solver(game).play_game()
    assert turns == game.get_turns_played() == len(game.table.history())
    assert Solver(game).play_game() == turns  # nothing left to play


def test_the_10x10_optimisation_check() -> None:
    seeds = range(1, 31)
    optimized = [Solver(CardGame(seed, grid_rows=10, grid_cols=10)).play_game_optimized() for seed in seeds]
    naive = [Solver(CardGame(seed, grid_rows=10, grid_cols=10)).play_game() for seed in seeds]
    assert sum(optimized) / len(seeds) >= 32  # the text's bar
    assert optimized == [33] * 30  # the ceiling: 100 cards leave one
    assert sum(naive) == 936  # 31.2 turns a game, near the text's 31.27 (1,000 seeds)
    assert min(naive) == 29 and max(naive) == 33


# --- int decks and code decks -------------------------------------------------------------------


@pytest.mark.parametrize("variant", [SUM15, GRID, GRID100], ids=lambda v: v.name)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_int_decks_and_code_decks_of_the_same_cards_give_the_same_games(variant: Variant, seed: int) -> None:
    values = values_of(naive_deal(variant, seed))
    codes = codes_by_appearance(values, variant)
    game = [["autoplay", "g", "first"], ["status", "g"], ["history", "g"], ["table", "g"]]
    assert run([["new", "g", values, variant.name], *game]) == run([["new", "g", codes, variant.name], *game])
    if variant is not SUM15:
        rows, cols = (3, 4) if variant is GRID else (10, 10)
        by_values = CardGame(deck=values, grid_rows=rows, grid_cols=cols)
        by_codes = CardGame(deck=codes, grid_rows=rows, grid_cols=cols)
        assert grid_codes(by_values) == grid_codes(by_codes) == dict(enumerate(codes[: rows * cols]))
        assert Solver(by_values).play_game() == Solver(by_codes).play_game()
        assert by_values.table.snapshot() == by_codes.table.snapshot()


# --- Uniscraper ----------------------------------------------------------------


@pytest.mark.parametrize(("config", "expected"), SPEC_SECTION_9, ids=SPEC_SECTION_9_IDS)
def test_uniscraper_best_run_is_the_specs(config: str, expected: list[int]) -> None:
    from triples.compat import Uniscraper

    assert Uniscraper().bestRun(config) == expected
    assert run([["bestrun", config]]) == [expected]


@pytest.mark.parametrize(
    "config", ["", ".", "KX", "KKKKK", "K.2", "K" * 38], ids=["empty", "dot", "char", "rank", "covering", "long"]
)
def test_uniscraper_bad_config_raises_value_error_with_the_interpreters_message(config: str) -> None:
    from triples.compat import Uniscraper

    with pytest.raises(ValueError) as caught:
        Uniscraper().bestRun(config)
    assert f"error: {caught.value}" == run([["bestrun", config]])[0]
    assert str(caught.value).startswith("bad config: ")


@pytest.mark.parametrize("config", [None, 5, ["KJQKA2A"], b"KJQKA2A"], ids=["none", "int", "list", "bytes"])
def test_uniscraper_config_must_be_a_string(config: Any) -> None:
    from triples.compat import Uniscraper

    with pytest.raises(TypeError, match="config must be a string"):
        Uniscraper().bestRun(config)
