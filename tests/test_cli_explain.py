"""``triples explain`` (triples/doors/cli/explain.py): the explain operation's answer as a table
for the terminal, or as its JSON; moves played first; one-line refusals."""

from __future__ import annotations

import orjson
import pytest

from triples import run
from triples.doors import cli
from triples.doors.cli.explain import explanation_text


def explained(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = cli.main(["explain", *arguments])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_table_of_a_deal_where_the_fair_player_loses_cards(capsys: pytest.CaptureFixture[str]) -> None:
    assert explained(capsys, "--variant", "sum15", "--seed", "51") == (
        0,
        "sum15, seed 51: the best line clears 36; the fair player clears 30: 6 cards lost.\n"
        "move  plays  cards     expects  best      lost  the best line plays\n"
        "   1  0-4-5  3S 3H 9H    35.80  36           -\n"
        "   2  1-4-6  8H 3C 4C    35.30  36 -> 30     6  0-3-5 (5S 1C 9S)\n"
        "Listed: the moves that lose cards, and those where the fair player expects less than the best.\n"
        "Cards are lost at move 2.\n",
        "",
    )


def test_moves_played_first_are_explained_too(capsys: pytest.CaptureFixture[str]) -> None:
    assert explained(capsys, "--seed", "1", "--moves", "0-3-6") == (
        0,
        "classic, seed 1: the best line clears 48; 1 move played, then the fair player, clears 12: 36 cards lost.\n"
        "move  by      plays  cards     expects  best      lost  the best line plays\n"
        "   1  played  0-3-6  9D 9H 2S        -  48 -> 12    36  0-2-5 (9D 4H 7H)\n"
        "Listed: the moves that lose cards, and those where the fair player expects less than the best.\n"
        "Cards are lost at move 1.\n",
        "",
    )


def test_json_is_the_operations_answer(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = explained(capsys, "--variant", "quads", "--seed", "36", "--moves", "0-2-3-5", "--json")
    expected = run([["new", "g", 36, "quads"], ["play", "g", [0, 2, 3, 5]], ["explain", "g"]])[2]
    assert (status, err) == (0, "")
    assert out == orjson.dumps(expected).decode() + "\n"
    assert expected["lost"] == 4


def test_custom_rules_are_named_canonically(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = explained(capsys, "--variant", '{"base": "pairs"}', "--seed", "2")
    assert (status, out) == (
        0,
        "pairs, seed 2: the best line clears 52; the fair player clears 52: no card lost.\n"
        "At every move the fair player kept the best and expected no less.\n",
    )
    status, out, _ = explained(capsys, "--variant", "classic(target=999)", "--seed", "2")
    assert (
        out.splitlines()[0]
        == "classic(target=999), seed 2: the best line clears 0; the fair player clears 0: no card lost."
    )


def test_a_listing_without_losses_says_so() -> None:
    answer = {"best": 3, "cleared": 3, "lost": 0, "moves": [
        {"turn": 1, "by": "fair", "move": [0, 1, 2], "cards": ["AS", "2S", "3S"], "expected": 2.5,
         "best_before": 3, "best_after": 3, "lost": 0, "best_line": None},
    ]}  # fmt: skip
    assert explanation_text("t", answer).splitlines()[-1] == "No move loses cards."


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--seed", "1", "--moves", "0-1-2"], "--moves: move 1 (0-1-2) is refused: cards sum to 14, need 20"),
        (["--seed", "1", "--moves", "0-2-5,x"], "argument --moves: expected moves like 0-2-5,1-3-4, not '0-2-5,x'"),
        (["--seed", "x"], "argument --seed: invalid int value: 'x'"),
        (["--variant", "nope", "--seed", "1"], "argument --variant: unknown variant 'nope'"),
        ([], "the following arguments are required: --seed"),
    ],
)
def test_refusals_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert explained(capsys, *arguments) == (2, "", f"triples explain: error: {message}\n")
