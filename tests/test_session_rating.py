"""The explorer's operations on a Triples game: ``rating`` (how hard the deal is),
``fair_move`` (what the fair player plays from here) and ``explain`` (where a line falls below
the best), against the engines called directly."""

from __future__ import annotations

from typing import Any

import pytest

from triples.engines import difficulty, explain, fair, search
from triples.engines.strategies import strategy_named
from triples.interpreter.session import Session
from triples.model.shuffle import shuffled
from triples.model.table import Move, Table
from triples.model.variants import parse_variant


def apply_all(ops: list[Any]) -> list[Any]:
    session = Session()
    return [session.apply(op) for op in ops]


def deal_of(variant: str, seed: int) -> Table:
    rules = parse_variant(variant)
    return Table(rules, shuffled(rules.cards, seed))


def expected_rating(variant: str, seed: int) -> dict[str, Any]:
    table = deal_of(variant, seed)
    best = search.best_cleared(table)
    high = difficulty.played_out(table, strategy_named("high"))
    fair_cleared = difficulty.played_out(table, strategy_named("fair"))
    chance = difficulty.p_random(table, best) if table.variant.slots < table.variant.deck_size else None
    band = difficulty.band(high=high, fair=fair_cleared, best=best)
    return {"band": band, "p_random": chance, "best": best, "high": high, "fair": fair_cleared}


@pytest.mark.parametrize(
    ("variant", "seed"),
    [("classic", 1), ("classic", 2), ("quads", 1), ("sum15", 2), ("grid", 2), ("pairs", 2), ("grid100", 1)],
)
def test_rating_is_the_engines_verdict_on_the_deal(variant: str, seed: int) -> None:
    answer = apply_all([["new", "g", seed, variant], ["rating", "g"]])[1]
    assert answer == expected_rating(variant, seed)


def test_rating_of_seed_1_in_figures() -> None:
    # The figures the engines give today, written out so that a change in them is seen here.
    answer = apply_all([["new", "g", 1], ["rating", "g"]])[1]
    assert answer == {
        "band": "medium",
        "p_random": pytest.approx(0.0806761772524799),
        "best": 48,
        "high": 12,
        "fair": 48,
    }
    exact = difficulty.p_random_exact(deal_of("classic", 1))
    assert answer["p_random"] == pytest.approx(float(exact), abs=1e-12)


def test_grid100_has_no_random_chance() -> None:
    answer = apply_all([["new", "g", 2, "grid100"], ["rating", "g"]])[1]
    assert answer["p_random"] is None and answer["band"] in difficulty.BANDS


def test_a_small_deck_dealt_whole_has_no_random_chance_either() -> None:
    # Nine slots for sum15's nine spades: every card is dealt at once, however few (random
    # play would reach best with chance 0.75 here, but the rule is the deal's shape).
    nine = {"base": "sum15", "suits": 1, "slots": 9}
    answer = apply_all([["new", "g", 1, nine], ["rating", "g"]])[1]
    assert answer == {"band": "easy", "p_random": None, "best": 9, "high": 9, "fair": 9}


def test_rating_judges_the_deal_whatever_was_played_and_changes_nothing() -> None:
    session = Session()
    session.apply(["new", "g", 1])
    at_deal = session.apply(["rating", "g"])
    assert session.apply(["play", "g", [0, 2, 5]]) == "ok"
    before = session.apply(["table", "g"]), session.apply(["history", "g"])
    assert session.apply(["rating", "g"]) == at_deal
    assert (session.apply(["table", "g"]), session.apply(["history", "g"])) == before


@pytest.mark.parametrize(
    ("variant", "seed", "moves"),
    [("classic", 1, []), ("classic", 1, [[0, 2, 5]]), ("sum15", 3, []), ("grid", 5, []), ("quads", 1, [])],
)
def test_fair_move_is_the_fair_players_move(variant: str, seed: int, moves: list[list[int]]) -> None:
    table = deal_of(variant, seed)
    for move in moves:
        table.push(Move(move))
    expected = fair.fair(table)
    assert expected is not None
    ops: list[Any] = [
        ["new", "g", seed, variant],
        *(["play", "g", m] for m in moves),
        ["fair_move", "g"],
        ["history", "g"],
    ]
    outputs = apply_all(ops)
    assert outputs[-2] == list(expected)
    assert outputs[-1] == moves  # asking plays nothing


def test_fair_move_of_seed_1_is_the_first_move_of_fair_autoplay() -> None:
    outputs = apply_all([["new", "g", 1], ["fair_move", "g"], ["autoplay", "g", "fair"]])
    assert outputs[1] == [0, 2, 5] == outputs[2]["moves"][0]


def test_fair_move_when_no_move_is_legal() -> None:
    assert apply_all([["new", "g", 1, "pairs"], ["moves", "g"], ["fair_move", "g"]])[1:] == [[], []]


@pytest.mark.parametrize("name", ["rating", "fair_move", "explain"])
def test_errors(name: str) -> None:
    assert apply_all([[name, "g"], [name], [name, "g", 1], [name, 1.5]]) == [
        "error: unknown game",
        f'error: usage: ["{name}", id]',
        f'error: usage: ["{name}", id]',
        f'error: usage: ["{name}", id]',
    ]


def test_explain_is_the_engines_explanation_of_the_games_line() -> None:
    outputs = apply_all(
        [["new", "g", 1], ["play", "g", [0, 3, 6]], ["explain", "g"], ["history", "g"], ["status", "g"]]
    )
    table = deal_of("classic", 1)
    table.push(Move([0, 3, 6]))
    assert outputs[2] == explain.explain(table).as_json()
    assert outputs[2]["moves"][0] == {
        "turn": 1,
        "by": "played",
        "move": [0, 3, 6],
        "cards": ["9D", "9H", "2S"],
        "expected": None,
        "best_before": 48,
        "best_after": 12,
        "lost": 36,
        "best_line": {"move": [0, 2, 5], "cards": ["9D", "4H", "7H"]},
    }
    assert outputs[3:] == [[[0, 3, 6]], {"cleared": 3, "stock": 39, "over": False}]  # the game is as it was


def test_explain_of_a_deal_is_the_fair_players_game() -> None:
    outputs = apply_all([["new", "g", 51, "sum15"], ["explain", "g"], ["autoplay", "g", "fair"]])
    assert (outputs[1]["cleared"], outputs[1]["lost"]) == (outputs[2]["cleared"], 6)
    assert [move["move"] for move in outputs[1]["moves"]] == outputs[2]["moves"][:2]
