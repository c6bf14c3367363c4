from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.helpers import SEED1, SEED1_TABLE
from triples.interpreter.operations import OPERATIONS, Args, Operation, OperationError, exact_test
from triples.interpreter.session import NOT_QUICK, NewArgs, NoArgs, PlayArgs, QuartetsArgs, Session, log_defect
from triples.support import deadline

USAGE = {
    "new": 'error: usage: ["new", id, seed_or_deck, variant?]',
    "play": 'error: usage: ["play", id, positions]',
    "table": 'error: usage: ["table", id]',
    "status": 'error: usage: ["status", id]',
    "history": 'error: usage: ["history", id]',
    "moves": 'error: usage: ["moves", id]',
    "undo": 'error: usage: ["undo", id]',
    "forget": 'error: usage: ["forget", id]',
    "autoplay": 'error: usage: ["autoplay", id, strategy?]',
    "best": 'error: usage: ["best", id]',
    "solve": 'error: usage: ["solve", id]',
    "quartets": 'error: usage: ["quartets", actions]',
    "bestrun": 'error: usage: ["bestrun", config]',
    "fair_move": 'error: usage: ["fair_move", id]',
    "rating": 'error: usage: ["rating", id]',
    "explain": 'error: usage: ["explain", id]',
    "audit": 'error: usage: ["audit", id]',
    "variants": 'error: usage: ["variants"]',
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
    assert apply_all([["new", "g", 1], [name, "h", *args]]) == [SEED1_TABLE, "error: unknown game"]


def test_ids_are_strings_or_integers_and_never_confused() -> None:
    out = apply_all([["new", 1, 1], ["new", "1", 0], ["table", 1], ["table", "1"], ["table", 2]])
    assert out[2] == SEED1_TABLE
    assert out[3] == ["9H", "9D", "10H", "KH", "JS", "10C", "7H", "6C", "KC", "10D"]
    assert out[4] == "error: unknown game"


def test_huge_and_negative_integer_ids() -> None:
    out = apply_all([["new", -(2**80), 1], ["status", -(2**80)], ["status", 2**80]])
    assert out[1:] == [{"cleared": 0, "stock": 42, "over": False}, "error: unknown game"]


def test_forget_ends_a_game_and_frees_its_id() -> None:
    session = Session()
    ops = [["new", "g", 1], ["new", 7, 2], ["forget", "g"], ["table", "g"], ["forget", "g"]]
    out = [session.apply(op) for op in ops]
    assert out[2:] == ["ok", "error: unknown game", "error: unknown game"]
    assert list(session.games) == [7]  # the other game is kept
    assert session.apply(["new", "g", 1]) == SEED1_TABLE  # the id is free for a new game
    assert session.apply(["forget", "g", 1]) == 'error: usage: ["forget", id]'


def test_new_replaces_a_game() -> None:
    out = apply_all([["new", "g", SEED1], ["play", "g", [0, 2, 5]], ["new", "g", 1], ["history", "g"], ["status", "g"]])
    assert out[2:] == [SEED1_TABLE, [], {"cleared": 0, "stock": 42, "over": False}]


@pytest.mark.parametrize(
    ("bad", "error"),
    [
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
        pytest.param(["new", "g", []], "error: deck is missing 52 card(s): AS 2S 3S 4S 5S", id="empty-deck"),
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
    # Seed 0 deals a classic table with no legal move at all (the first test vector of docs/game.md).
    out = apply_all([["new", "g", 0], ["status", "g"], ["moves", "g"]])
    assert out[1:] == [{"cleared": 0, "stock": 42, "over": True}, []]


@pytest.mark.parametrize(
    ("seed", "same_as"),
    [
        pytest.param(-1, 2**32 - 1, id="minus-1"),
        pytest.param(2**32 - 1, -1, id="2^32-1"),
        pytest.param(2**64, 0, id="2^64"),
        pytest.param(10**30, 10**30 % 2**32, id="10^30"),
    ],
)
def test_any_integer_is_a_seed_modulo_2_to_the_32(seed: int, same_as: int) -> None:
    assert apply_all([["new", "g", seed]]) == apply_all([["new", "g", same_as]])


def test_seed_minus_1_deals_the_spec_vector() -> None:
    assert apply_all([["new", "g", -1]])[0][:5] == ["7H", "4S", "AS", "JC", "4D"]
    assert apply_all([["new", "g", 2**64]]) == [["9H", "9D", "10H", "KH", "JS", "10C", "7H", "6C", "KC", "10D"]]


@pytest.mark.parametrize(
    "seed", [True, False, 1.0, 1e30, "1", None], ids=["true", "false", "float", "big-float", "string", "null"]
)
def test_seeds_that_are_not_integers_are_usage_errors(seed: object) -> None:
    assert apply_all([["new", "g", seed]]) == [USAGE["new"]]


def test_unknown_strategy_changes_nothing() -> None:
    out = apply_all([["new", "g", SEED1], ["autoplay", "g", "nope"], ["history", "g"]])
    assert out[1:] == ["error: unknown strategy 'nope'", []]


# --- numeric decks given as values (docs/operations.md) -----------------------------------------

SUM15_VALUES = [v for v in range(1, 10) for _ in range(4)]  # every sum15 value, ascending
MIXED = "error: deck must be a list of card codes, or of values for a numeric deck"


def test_a_value_deck_takes_suits_in_order_of_appearance() -> None:
    top = [5, 5, 5, 5, 9, 9, 9, 9, 8, 1, 2, 3]
    deck = top + [v for v in range(1, 10) for _ in range(4 - top.count(v))]
    out = apply_all([["new", "s", deck, "sum15"], ["play", "s", [0, 1, 2]], ["table", "s"], ["status", "s"]])
    assert out == [
        ["5S", "5H", "5D", "5C", "9S", "9H", "9D", "9C", "8S"],
        "ok",
        ["1S", "2S", "3S", "5C", "9S", "9H", "9D", "9C", "8S"],
        {"cleared": 3, "stock": 24, "over": False},
    ]


@pytest.mark.parametrize("variant", ["grid", "grid100"])
def test_value_decks_for_every_numeric_variant(variant: str) -> None:
    top = 9 if variant == "grid" else 25
    deck = [v for v in range(top, 0, -1) for _ in range(4)]
    table = apply_all([["new", "n", deck, variant]])[0]
    assert table[:6] == [f"{top}S", f"{top}H", f"{top}D", f"{top}C", f"{top - 1}S", f"{top - 1}H"]


@pytest.mark.parametrize(
    ("deck", "variant", "error"),
    [
        pytest.param(["1S", *SUM15_VALUES[1:]], "sum15", MIXED, id="codes-and-values"),
        pytest.param([True, *SUM15_VALUES[1:]], "sum15", MIXED, id="bool"),
        pytest.param([1.0, *SUM15_VALUES[1:]], "sum15", MIXED, id="float"),
        pytest.param([None, *SUM15_VALUES[1:]], "sum15", MIXED, id="null"),
        pytest.param([[1], *SUM15_VALUES[1:]], "sum15", MIXED, id="nested-list"),
        pytest.param([None, 0], "grid", MIXED, id="kind-before-unknown-value"),
        pytest.param([1, *SEED1[1:]], "classic", "error: deck must be a list of card codes", id="values-for-classic"),
        pytest.param(list(range(1, 14)) * 4, "pairs", "error: deck must be a list of card codes", id="pairs-values"),
        pytest.param([0, *SUM15_VALUES[1:]], "sum15", "error: unknown value 0 for variant 'sum15'", id="zero"),
        pytest.param([10, *SUM15_VALUES[1:]], "sum15", "error: unknown value 10 for variant 'sum15'", id="ten"),
        pytest.param([-3, *SUM15_VALUES[1:]], "grid", "error: unknown value -3 for variant 'grid'", id="negative"),
        pytest.param([2**64, 1], "grid100", f"error: unknown value {2**64} for variant 'grid100'", id="huge"),
        pytest.param([26], "grid100", "error: unknown value 26 for variant 'grid100'", id="grid100-26"),
        pytest.param(
            [5, 5, 5, 5, 5, 10], "sum15", "error: unknown value 10 for variant 'sum15'", id="unknown-before-too-often"
        ),
        pytest.param([*SUM15_VALUES, 9], "sum15", "error: value 9 appears more than 4 times", id="extra-copy"),
        pytest.param(
            [5, 5, 5, 5, 1, 1, 1, 1, 1, 5], "sum15", "error: value 1 appears more than 4 times", id="deck-order"
        ),
        pytest.param([5] * 9, "sum15", "error: value 5 appears more than 4 times", id="too-often-before-missing"),
        pytest.param(SUM15_VALUES[:-1], "sum15", "error: deck is missing 1 card(s): 9", id="one-missing"),
        pytest.param([9, 9, 9, 9], "grid", "error: deck is missing 32 card(s): 1 1 1 1 2", id="missing-ascending"),
        pytest.param([1], "grid100", "error: deck is missing 99 card(s): 1 1 1 2 2", id="grid100-missing"),
        pytest.param([], "sum15", "error: deck is missing 36 card(s): 1S 2S 3S 4S 5S", id="empty-is-a-code-deck"),
    ],
)
def test_rejected_value_deck_keeps_the_game_that_was_there(deck: list[Any], variant: str, error: str) -> None:
    out = apply_all([["new", "g", SEED1], ["play", "g", [0, 2, 5]], ["new", "g", deck, variant], ["history", "g"]])
    assert out[2:] == [error, [[0, 2, 5]]]


def test_variants_gives_every_registered_variants_rules() -> None:
    from triples.model.variants import VARIANTS

    listed = apply_all([["variants"]])[0]
    assert [v["name"] for v in listed] == list(VARIANTS)
    assert listed[0] == {
        "name": "classic",
        "slots": 10,
        "per_move": 3,
        "target": 20,
        "deck": "standard",
        "court": [10, 10, 10],
        "suits": 4,
    }
    assert listed[3] == {
        "name": "sum15",
        "slots": 9,
        "per_move": 3,
        "target": 15,
        "deck": "numeric",
        "top_rank": 9,
        "suits": 4,
    }
    assert apply_all([["variants", "g"]]) == ['error: usage: ["variants"]']


def test_each_operation_declares_its_cost() -> None:
    costs = {name: op.cost if isinstance(op.cost, str) else "judged" for name, op in OPERATIONS.items()}
    assert {name for name, cost in costs.items() if cost == "cheap"} == {
        "play",
        "table",
        "history",
        "undo",
        "forget",
        "variants",
    }
    assert {name for name, cost in costs.items() if cost == "judged"} == {"new", "status", "moves"}
    assert {cost for cost in costs.values()} == {"cheap", "judged", "search"}


GRID100_5 = {"base": "grid100", "per_move": 5, "target": 65}


def test_quickly_answers_what_is_surely_quick_and_leaves_the_rest_undone() -> None:
    session = Session()
    assert session.quickly(["new", "g", 1]) == SEED1_TABLE
    assert session.quickly(["moves", "g"]) == session.apply(["moves", "g"])
    assert session.quickly(["status", "g"]) == {"cleared": 0, "stock": 42, "over": False}
    for costly in (["best", "g"], ["solve", "g"], ["autoplay", "g"], ["rating", "g"], ["fair_move", "g"]):
        assert session.quickly(costly) is NOT_QUICK
    assert session.apply(["history", "g"]) == []  # nothing was played
    # Errors the judge meets, or the arguments show, are answered at once.
    assert session.quickly(["moves", "h"]) == session.quickly(["status", "h"]) == "error: unknown game"
    assert session.quickly(["best"]) == 'error: usage: ["best", id]'
    assert session.quickly([1]) == "error: malformed operation"
    assert session.quickly(["frob"]) == "error: unknown operation 'frob'"


def test_quickly_answers_the_cheap_operations_as_apply_does() -> None:
    session = Session()
    assert session.quickly(["new", "g", 1]) == SEED1_TABLE
    assert session.quickly(["play", "g", [0, 3, 6]]) == "ok"
    assert session.quickly(["history", "g"]) == [[0, 3, 6]]
    assert session.quickly(["table", "g"]) == ["10S", "AH", "4H", "5H", "3C", "7H", "8H", "2D", "AC", "7C"]
    assert session.quickly(["undo", "g"]) == "ok"
    assert session.quickly(["forget", "g"]) == "ok"
    assert session.quickly(["variants"]) == session.apply(["variants"])
    assert session.games == {}
    assert repr(NOT_QUICK) == "NOT_QUICK"


def test_quick_follows_the_rules_and_the_position_not_the_name() -> None:
    session = Session()
    # grid100: every card is dealt, so a move of 3 may pick among C(100, 3) slot triples.
    assert session.quickly(["new", "g", 1, "grid100"]) == session.apply(["table", "g"])
    assert session.quickly(["moves", "g"]) is NOT_QUICK
    assert session.quickly(["status", "g"]) == {"cleared": 0, "stock": 0, "over": False}
    assert session.quickly(["new", "h", 1, GRID100_5]) == session.apply(["table", "h"])
    assert session.quickly(["status", "h"]) is NOT_QUICK  # five cards a move: many combinations to try
    # A deck of many items is read to its end for its error.
    assert session.quickly(["new", "d", [1] * 1000, "sum15"]) == "error: value 1 appears more than 4 times"
    assert session.quickly(["new", "d", [1] * 1001, "sum15"]) is NOT_QUICK
    assert "d" not in session.games


def test_moves_refuses_an_answer_too_large_with_the_number_of_moves() -> None:
    outputs = apply_all([["new", "g", 1, GRID100_5], ["moves", "g"], ["status", "g"]])
    assert outputs[1] == "error: 1,842,552 legal moves: more than the 100,000 one answer may list"
    assert outputs[2] == {"cleared": 0, "stock": 0, "over": False}


class Text(str):
    """A ``str`` that is not exactly ``str``: the quick tests pass it on to pydantic."""


ARGUMENT_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=2**64, max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.text(max_size=3).map(Text),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=2) | st.integers(), inner, max_size=2)
    ),
    max_leaves=6,
)


def pydantic_verdict(op: Operation, raw: list[Any]) -> object:
    try:
        return op.validator.validate_python(op.args(*raw))
    except ValidationError:
        return "rejected"


@given(st.sampled_from(sorted(OPERATIONS)), st.lists(ARGUMENT_VALUES, max_size=4))
def test_the_quick_tests_agree_with_the_strict_pydantic_model(name: str, raw: list[Any]) -> None:
    """Arguments are checked without pydantic when every value is of exactly its field's type;
    whatever the quick tests take, the operation's strict pydantic model takes too, as the same
    values, and whatever they leave, pydantic decides."""
    op = OPERATIONS[name]
    if not op.required <= len(raw) <= len(op.fields):
        return
    try:
        parsed: object = op.parse(raw)
    except OperationError as exc:
        assert str(exc) == op.usage
        parsed = "rejected"
    assert parsed == pydantic_verdict(op, raw)
    if all(test(value) for test, value in zip(op.quick, raw, strict=False)):
        assert parsed != "rejected"


@pytest.mark.parametrize(
    ("op", "parsed"),
    [
        pytest.param(["new", "g", 1], NewArgs("g", 1, "classic"), id="new-quick"),
        pytest.param(["new", Text("g"), 1], NewArgs("g", 1, "classic"), id="new-str-subclass-by-pydantic"),
        pytest.param(["play", 7, (0, 1)], PlayArgs(7, (0, 1)), id="play-any-positions"),
        pytest.param(["quartets", ["a", Text("b")]], QuartetsArgs(["a", "b"]), id="quartets-by-pydantic"),
        pytest.param(["variants"], NoArgs(), id="no-arguments"),
    ],
)
def test_arguments_parse_to_their_dataclass(op: list[Any], parsed: object) -> None:
    assert OPERATIONS[op[0]].parse(op[1:]) == parsed


@pytest.mark.parametrize(
    ("annotation", "taken", "left"),
    [
        pytest.param(int, [0, -5, 2**80], [True, 1.0, "1", None, Text("1")], id="int"),
        pytest.param(str, ["", "g"], [Text("g"), 1, b"g"], id="str"),
        pytest.param(str | int, ["g", 3], [False, 3.0, ["g"]], id="str-or-int"),
        pytest.param(list[Any], [[], [1, "x", None]], [(1,), "[]", {}], id="list-of-any"),
        pytest.param(list[str], [[], ["a"]], [[1], ["a", Text("b")], ("a",)], id="list-of-str"),
        pytest.param(dict[str, Any], [{}, {"a": [1]}], [{1: 2}, [], None], id="dict-of-str"),
        pytest.param(Any, [None, object(), True], [], id="any"),
        pytest.param(float, [], [1.0, 1], id="unknown-type-takes-nothing"),
        pytest.param(list[int], [], [[1], []], id="list-of-other-types-takes-nothing"),
        pytest.param(dict[str, int], [], [{"a": 1}, {}], id="dict-of-other-types-takes-nothing"),
    ],
)
def test_exact_tests(annotation: object, taken: list[object], left: list[object]) -> None:
    test = exact_test(annotation)
    assert [test(value) for value in taken] == [True] * len(taken)
    assert [test(value) for value in left] == [False] * len(left)


# --- the edge: a defect is still an answer, a deadline is not ---------------------------------


def defective(session: Session, args: Any) -> str:
    raise KeyError("a defect")


def test_a_defect_in_a_handler_is_an_internal_error_naming_its_exception_and_the_session_goes_on() -> None:
    with OPERATIONS.replaced(Operation("status", Args, defective, "cheap")):
        outputs = apply_all([["new", "g", 1], ["status", "g"], ["table", "g"]])
    assert outputs[1:] == ["error: internal error (KeyError)", SEED1_TABLE]


def test_a_defect_is_logged_with_its_traceback_and_the_operations_name(caplog: pytest.LogCaptureFixture) -> None:
    with OPERATIONS.replaced(Operation("status", Args, defective, "cheap")):
        outputs = apply_all([["new", 7, 1], ["status", 7]])
    assert outputs[1] == "error: internal error (KeyError)"
    [record] = caplog.records
    assert (record.name, record.levelname) == ("triples.interpreter", "ERROR")
    assert record.getMessage() == "internal error in operation 'status'"
    assert record.exc_info is not None and record.exc_info[0] is KeyError


@pytest.mark.parametrize("raw", [5, [], [3, "g"], ("status", "g")], ids=repr)
def test_a_defect_in_what_is_no_operation_is_logged_without_a_name(
    raw: object, caplog: pytest.LogCaptureFixture
) -> None:
    try:
        raise ValueError("a defect")
    except ValueError:
        log_defect(raw)
    [record] = caplog.records
    assert record.getMessage() == "internal error in operation None"


def test_an_operation_written_as_a_tuple_is_taken_as_its_list() -> None:
    session = Session()
    assert session.apply(("new", "g", 1)) == SEED1_TABLE
    assert session.quickly(("play", "g", [0, 3, 6])) == "ok"
    assert session.apply(("history", "g")) == [[0, 3, 6]]
    assert session.apply(()) == "error: malformed operation"


def test_a_deck_written_as_a_tuple_is_taken_as_its_list() -> None:
    # The arguments fail their quick tests as given, and pass them once made lists: no strict
    # model (which takes no tuple for a list) is asked.
    session = Session()
    assert session.apply(["new", "g", tuple(SEED1)]) == SEED1_TABLE
    assert session.apply(["new", "h", tuple(SEED1), {"base": "classic", "court": (10, 10, 10)}]) == SEED1_TABLE
    assert session.apply(["table", "h"]) == SEED1_TABLE
    assert session.apply(["status", "h"]) == {"cleared": 0, "stock": 42, "over": False}
    assert (
        session.apply(["new", "i", (1, 2)])
        == session.apply(["new", "i", [1, 2]])
        == ("error: deck must be a list of card codes")
    )


def test_a_deadline_passes_through_apply_to_whoever_set_it() -> None:
    session = Session()
    session.apply(["new", "g", 1])
    with deadline.limited(-1.0), pytest.raises(deadline.TimeLimitExceeded):
        session.apply(["best", "g"])
    assert session.apply(["best", "g"]) == 48  # the game is as it was, and answers without a limit


# --- what the search-cost operations answer, as the interpreter words it -------------------------


def test_autoplay_answers_the_moves_and_what_they_cleared() -> None:
    outputs = apply_all([["new", "g", 1], ["autoplay", "g", "high"], ["status", "g"]])
    assert outputs[1:] == [
        {"moves": [[0, 3, 6], [0, 6, 7], [0, 4, 5], [0, 3, 5]], "cleared": 12},
        {"cleared": 12, "stock": 30, "over": True},
    ]


def test_solve_answers_best_and_a_line_of_slot_moves_and_plays_nothing() -> None:
    outputs = apply_all([["new", "g", SEED1], ["solve", "g"], ["history", "g"]])
    assert outputs[1:] == [
        {
            "best": 48,
            "moves": [
                [0, 2, 5], [0, 1, 3], [0, 5, 6], [1, 4, 9], [1, 7, 9], [1, 3, 8], [0, 2, 4], [1, 4, 6],
                [1, 2, 4], [1, 2, 3], [2, 3, 6], [0, 3, 7], [0, 1, 3], [0, 1, 3], [0, 4, 5], [1, 7, 8],
            ],
        },
        [],
    ]  # fmt: skip


def test_audit_answers_the_verdict_on_the_moves_played() -> None:
    outputs = apply_all([["new", "g", 1], ["play", "g", [0, 2, 5]], ["audit", "g"]])
    assert outputs[2] == {"moves": 1, "sighted": 0, "p": 1.0, "verdict": "blind", "engine_match": 1.0}


def test_bestrun_and_quartets_answer_without_a_game() -> None:
    cheated = ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3C no"]  # docs/quartets.md
    outputs = apply_all([["bestrun", "KJQKA2A"], ["quartets", cheated], ["quartets", []]])
    assert outputs == [[4, 5, 6, 3, 2, 1], {"cheated": True, "certain_after": 4}, {"cheated": False}]


# --- the operations' registry, as the interpreter leaves it ----------------------------------------


def test_every_operations_arguments_are_a_frozen_dataclass() -> None:
    for name, op in OPERATIONS.items():
        assert dataclasses.is_dataclass(op.args), name
        assert op.args.__dataclass_params__.frozen, name  # type: ignore[attr-defined]


def test_the_interpreter_seals_its_registry_once_every_operation_is_in() -> None:
    with pytest.raises(RuntimeError, match="cannot register 'late': the operations are fixed"):
        OPERATIONS.add(Operation("late", Args, defective, "cheap"))
    assert "late" not in OPERATIONS
