from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import SEED1, SEED1_TABLE
from triples.session import OPERATIONS, Session

USAGE = {
    "new": 'error: usage: ["new", id, seed_or_deck, variant?]',
    "play": 'error: usage: ["play", id, positions]',
    "table": 'error: usage: ["table", id]',
    "status": 'error: usage: ["status", id]',
    "history": 'error: usage: ["history", id]',
    "moves": 'error: usage: ["moves", id]',
    "undo": 'error: usage: ["undo", id]',
    "autoplay": 'error: usage: ["autoplay", id, strategy?]',
    "best": 'error: usage: ["best", id]',
    "solve": 'error: usage: ["solve", id]',
}


def apply_all(ops: list[Any]) -> list[Any]:
    session = Session()
    return [session.apply(op) for op in ops]


def test_every_operation_is_registered_with_its_usage() -> None:
    assert sorted(OPERATIONS) == sorted(USAGE)
    for name, text in USAGE.items():
        assert "error: " + OPERATIONS[name].usage == text


@pytest.mark.parametrize(
    "op",
    [None, 1, "new", {}, [], [1, "g"], [None], [["new"]], {"op": "new"}, True],
    ids=lambda op: repr(op),
)
def test_malformed_operation(op: object) -> None:
    assert apply_all([op]) == ["error: malformed operation"]


@pytest.mark.parametrize("name", ["", "New", "deal", "new ", "ünïcode"], ids=repr)
def test_unknown_operation_names_the_operation(name: str) -> None:
    assert apply_all([[name, "g"]]) == [f"error: unknown operation '{name}'"]


@pytest.mark.parametrize(
    "op",
    [
        pytest.param(["new"], id="new-no-args"),
        pytest.param(["new", "g"], id="new-no-seed"),
        pytest.param(["new", "g", 1, "classic", "extra"], id="new-too-many"),
        pytest.param(["new", "g", True], id="new-bool-seed"),
        pytest.param(["new", "g", 1.0], id="new-float-seed"),
        pytest.param(["new", "g", "1"], id="new-string-seed"),
        pytest.param(["new", "g", None], id="new-null-seed"),
        pytest.param(["new", "g", {"seed": 1}], id="new-dict-seed"),
        pytest.param(["new", "g", 1, 5], id="new-int-variant"),
        pytest.param(["new", "g", 1, None], id="new-null-variant"),
        pytest.param(["new", True, 1], id="new-bool-id"),
        pytest.param(["new", 1.5, 1], id="new-float-id"),
        pytest.param(["new", None, 1], id="new-null-id"),
        pytest.param(["new", ["g"], 1], id="new-list-id"),
        pytest.param(["play", "g"], id="play-no-positions"),
        pytest.param(["play", "g", [0, 1, 2], 3], id="play-too-many"),
        pytest.param(["play", False, [0, 1, 2]], id="play-bool-id"),
        pytest.param(["table"], id="table-no-id"),
        pytest.param(["table", "g", "h"], id="table-too-many"),
        pytest.param(["status", 1.0], id="status-float-id"),
        pytest.param(["history", {}], id="history-dict-id"),
        pytest.param(["moves"], id="moves-no-id"),
        pytest.param(["undo", "g", 1], id="undo-too-many"),
        pytest.param(["autoplay", "g", 1], id="autoplay-int-strategy"),
        pytest.param(["best"], id="best-no-id"),
        pytest.param(["solve", "g", "g"], id="solve-too-many"),
    ],
)
def test_usage_errors_show_the_shape(op: list[Any]) -> None:
    # A game exists, so only the shape can be at fault.
    out = apply_all([["new", "g", 1], op])
    assert out[1] == USAGE[op[0]]


@pytest.mark.parametrize("name", ["play", "table", "status", "history", "moves", "undo", "autoplay", "best", "solve"])
def test_unknown_game(name: str) -> None:
    args = [[0, 1, 2]] if name == "play" else []
    assert apply_all([["new", "g", 1], [name, "h", *args]]) == [SEED1_TABLE_FOR_SEED_1, "error: unknown game"]


SEED1_TABLE_FOR_SEED_1 = ["7D", "9C", "4D", "8H", "8D", "5S", "JD", "6D", "9S", "JC"]


def test_ids_are_strings_or_integers_and_never_confused() -> None:
    out = apply_all([["new", 1, 1], ["new", "1", 0], ["table", 1], ["table", "1"], ["table", 2]])
    assert out[2] == SEED1_TABLE_FOR_SEED_1
    assert out[3] == ["8S", "JH", "9C", "2S", "2D", "QD", "6S", "10C", "3D", "AC"]
    assert out[4] == "error: unknown game"


def test_huge_and_negative_integer_ids() -> None:
    out = apply_all([["new", -(2**80), 1], ["status", -(2**80)], ["status", 2**80]])
    assert out[1:] == [{"cleared": 0, "stock": 42, "over": False}, "error: unknown game"]


def test_new_replaces_a_game() -> None:
    out = apply_all([["new", "g", SEED1], ["play", "g", [0, 2, 5]], ["new", "g", 1], ["history", "g"], ["status", "g"]])
    assert out[2:] == [SEED1_TABLE_FOR_SEED_1, [], {"cleared": 0, "stock": 42, "over": False}]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        pytest.param(
            ["new", "g", -1], "error: seed must be an integer from 0 to 18446744073709551615", id="negative-seed"
        ),
        pytest.param(
            ["new", "g", 2**64], "error: seed must be an integer from 0 to 18446744073709551615", id="seed-too-big"
        ),
        pytest.param(["new", "g", 1, "nope"], "error: unknown variant 'nope'", id="unknown-variant"),
        pytest.param(["new", "g", SEED1, "Classic"], "error: unknown variant 'Classic'", id="variant-case"),
        pytest.param(["new", "g", SEED1[:-1]], "error: deck is missing 1 card(s): AS", id="missing-card"),
        pytest.param(
            ["new", "g", [*SEED1[:-1], "9D"]], "error: card '9D' appears twice in the deck", id="repeated-card"
        ),
        pytest.param(["new", "g", [*SEED1, "AS"]], "error: card 'AS' appears twice in the deck", id="extra-card"),
        pytest.param(
            ["new", "g", ["ZZ", *SEED1[1:]]], "error: unknown card 'ZZ' for variant 'classic'", id="unknown-card"
        ),
        pytest.param(
            ["new", "g", SEED1, "sum15"], "error: unknown card 'AH' for variant 'sum15'", id="wrong-deck-for-variant"
        ),
        pytest.param(["new", "g", [1, *SEED1[1:]]], "error: deck must be a list of card codes", id="non-string-card"),
        pytest.param(["new", "g", []], "error: deck is missing 52 card(s): AC 2C 3C 4C 5C", id="empty-deck"),
    ],
)
def test_rejected_new_keeps_the_game_that_was_there(bad: list[Any], error: str) -> None:
    out = apply_all(
        [["new", "g", SEED1], ["play", "g", [0, 2, 5]], bad, ["table", "g"], ["history", "g"], ["status", "g"]]
    )
    assert out[2:] == [
        error,
        ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
        [[0, 2, 5]],
        {"cleared": 3, "stock": 39, "over": False},
    ]


def test_explicit_deck_deals_top_first() -> None:
    assert apply_all([["new", "g", SEED1]]) == [SEED1_TABLE]


def test_explicit_numeric_deck() -> None:
    deck = [f"{r}{s}" for s in "SHDC" for r in range(9, 0, -1)]
    out = apply_all([["new", "n", deck, "sum15"], ["status", "n"]])
    assert out == [["9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S", "1S"], {"cleared": 0, "stock": 27, "over": False}]


def test_rejected_play_changes_nothing() -> None:
    out = apply_all(
        [
            ["new", "g", SEED1],
            ["play", "g", [0, 1, 2]],
            ["table", "g"],
            ["status", "g"],
            ["history", "g"],
            ["undo", "g"],
        ]
    )
    assert out[1:] == [
        "error: cards sum to 14, need 20",
        SEED1_TABLE,
        {"cleared": 0, "stock": 42, "over": False},
        [],
        "error: nothing to undo",
    ]


def test_undo_chain_back_to_the_deal() -> None:
    out = apply_all(
        [
            ["new", "g", SEED1],
            ["play", "g", [5, 0, 2]],
            ["play", "g", [6, 0, 5]],
            ["history", "g"],
            ["undo", "g"],
            ["table", "g"],
            ["undo", "g"],
            ["table", "g"],
            ["status", "g"],
            ["undo", "g"],
        ]
    )
    assert out[1:] == [
        "ok",
        "ok",
        [[0, 2, 5], [0, 5, 6]],
        "ok",
        ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
        "ok",
        SEED1_TABLE,
        {"cleared": 0, "stock": 42, "over": False},
        "error: nothing to undo",
    ]


def test_status_reports_game_over() -> None:
    # Seed 2^64-1 deals a classic table with no legal move at all.
    out = apply_all([["new", "g", 2**64 - 1], ["status", "g"], ["moves", "g"]])
    assert out[1:] == [{"cleared": 0, "stock": 42, "over": True}, []]


def test_unknown_strategy_changes_nothing() -> None:
    out = apply_all([["new", "g", SEED1], ["autoplay", "g", "nope"], ["history", "g"]])
    assert out[1:] == ["error: unknown strategy 'nope'", []]
