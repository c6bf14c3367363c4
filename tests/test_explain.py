"""Why is this deal hard (triples/engines/explain.py): the line is the game's moves then the fair
player's, every best before and after is the search's, the losses add up to what the line
falls short by, and what the best line plays instead keeps the best."""

from __future__ import annotations

import pytest

from triples.engines import explain, fair, search
from triples.model.deal import deal
from triples.model.table import Move, Table
from triples.model.variants import parse_variant


def dealt(variant: str | dict[str, object], seed: int) -> Table:
    return deal(parse_variant(variant), seed)


def test_sum15_seed_51_in_full() -> None:
    # The deal of docs/fair.md where the fair player falls short: its second move loses 6.
    answer = explain.explain(dealt("sum15", 51)).as_json()
    assert answer == {
        "best": 36,
        "cleared": 30,
        "lost": 6,
        "moves": [
            {
                "turn": 1,
                "by": "fair",
                "move": [0, 4, 5],
                "cards": ["3S", "3H", "9H"],
                "expected": 35.8,
                "best_before": 36,
                "best_after": 36,
                "lost": 0,
                "best_line": None,
            },
            {
                "turn": 2,
                "by": "fair",
                "move": [1, 4, 6],
                "cards": ["8H", "3C", "4C"],
                "expected": 35.3,
                "best_before": 36,
                "best_after": 30,
                "lost": 6,
                "best_line": {"move": [0, 3, 5], "cards": ["5S", "1C", "9S"]},
            },
        ],
    }


@pytest.mark.parametrize(
    ("variant", "seed"), [("sum15", 51), ("classic", 3), ("quads", 36), ("grid", 5), ("pairs", 2), ("grid100", 1)]
)
def test_the_line_is_the_fair_players_game_with_the_searchs_bests(variant: str, seed: int) -> None:
    table = dealt(variant, seed)
    before = table.snapshot()
    explanation = explain.explain(table)
    assert table.snapshot() == before  # explained on a copy
    replay = dealt(variant, seed)
    assert explanation.best == search.best_cleared(replay)
    for number, step in enumerate(explanation.steps, start=1):
        assert (step.turn, step.by) == (number, "fair")
        assert step.best_before == search.best_cleared(replay)
        assert step.move == fair.fair(replay)
        assert step.cards == tuple(replay.cards[slot].code for slot in step.move)  # type: ignore[union-attr]
        if step.lost:  # the best line's move keeps the best
            assert step.best_move is not None
            replay.push(step.best_move)
            assert search.best_cleared(replay) == step.best_before
            replay.pop()
        else:
            assert step.best_move is None
        replay.push(step.move)
        assert step.best_after == search.best_cleared(replay)
    assert fair.fair(replay) is None  # the line goes to the end of the game
    assert explanation.cleared == replay.cleared == fair.play_fair(dealt(variant, seed))
    assert sum(step.lost for step in explanation.steps) == explanation.lost == explanation.best - explanation.cleared


def test_only_the_moves_that_fall_short_are_listed() -> None:
    explanation = explain.explain(dealt("quads", 36))
    listed = explanation.shortfalls
    assert [step.turn for step in listed] == [1, 2, 3, 4, 5, 7]
    assert all(step.lost > 0 or (step.expected is not None and step.expected < step.best_before) for step in listed)
    left_out = [step for step in explanation.steps if step not in listed]
    assert left_out and all(step.lost == 0 for step in left_out)
    assert all(step.expected is None or step.expected >= step.best_before for step in left_out)


def test_the_games_own_moves_come_first_and_are_judged_by_the_best_only() -> None:
    table = dealt("classic", 1)
    table.push(Move([0, 3, 6]))  # the high strategy's first move: 36 cards lost at once
    explanation = explain.explain(table)
    first = explanation.steps[0]
    assert (first.turn, first.by, first.move, first.cards) == (1, "played", Move([0, 3, 6]), ("9D", "9H", "2S"))
    assert (first.best_before, first.best_after, first.lost, first.expected) == (48, 12, 36, None)
    assert (first.best_move, first.best_cards) == (Move([0, 2, 5]), ("9D", "4H", "7H"))
    assert explanation.played == 1
    assert {step.by for step in explanation.steps[1:]} == {"fair"}
    assert explanation.cleared == 12


def test_with_nothing_unseen_the_fair_player_expects_the_best() -> None:
    # grid100 deals every card at once: nothing is hidden, so it never expects less than best.
    explanation = explain.explain(dealt("grid100", 1))
    assert {step.expected for step in explanation.steps} == {99.0}
    assert explanation.shortfalls == ()


def test_a_game_over_at_the_deal_has_nothing_to_explain() -> None:
    explanation = explain.explain(dealt({"base": "classic", "target": 999}, 1))
    assert explanation.as_json() == {"best": 0, "cleared": 0, "lost": 0, "moves": []}


def test_a_forced_move_has_no_estimate() -> None:
    table = dealt("classic", 1)
    steps = explain.explain(table).steps
    forced = [step for step in steps if step.expected is None]
    assert forced  # seed 1 has some: the fair player had one move only
    for step in forced:
        replay = dealt("classic", 1)
        for earlier in steps[: step.turn - 1]:
            replay.push(earlier.move)
        assert len(fair.playable(replay.variant, fair.seen_counts(replay)[0])) == 1
