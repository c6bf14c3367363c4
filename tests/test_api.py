from __future__ import annotations

import orjson
import pytest

import triples
import triples.api
from tests.helpers import SEED1, SEED1_TABLE, SPEC_SECTION_7


def test_run_is_importable_from_the_package_and_the_api_module() -> None:
    assert triples.run is triples.api.run


def test_spec_worked_example() -> None:
    out = triples.run(
        [["new", "g", SEED1], ["play", "g", [5, 0, 2]], ["table", "g"], ["status", "g"], ["history", "g"]]
    )
    assert out == [
        SEED1_TABLE,
        "ok",
        ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
        {"cleared": 3, "stock": 39, "over": False},
        [[0, 2, 5]],
    ]


@pytest.mark.parametrize("name", sorted(SPEC_SECTION_7))
def test_spec_section_7_seeded_examples(name: str) -> None:
    operations, outputs = SPEC_SECTION_7[name]
    assert orjson.dumps(triples.run(operations)) == orjson.dumps(outputs)


@pytest.mark.parametrize("value", [None, 0, "new", {"new": 1}, 1.5, True], ids=lambda v: type(v).__name__)
def test_input_that_is_not_a_list_gets_one_error(value: object) -> None:
    assert triples.run(value) == ["error: operations must be a list"]


def test_empty_input() -> None:
    assert triples.run([]) == []


def test_each_run_is_a_fresh_session() -> None:
    triples.run([["new", "g", 1]])
    assert triples.run([["table", "g"]]) == ["error: unknown game"]


def test_one_output_per_operation_and_all_serialise() -> None:
    ops: list[object] = [
        ["new", "g", 1],
        "junk",
        [["nested", [1]]],
        ["play", "g", [[0], [1], [2]]],
        ["moves", "g"],
        ["new", "g", 2**200],
        {"a": [1]},
    ]
    out = triples.run(ops)
    assert len(out) == len(ops)
    assert orjson.loads(orjson.dumps(out)) == out
    assert out[1:4] == ["error: malformed operation", "error: malformed operation", "error: positions must be integers"]


def test_deeply_nested_argument_is_an_answer_not_a_crash() -> None:
    deep: object = 1
    for _ in range(10_000):
        deep = [deep]
    assert triples.run([["new", "g", deep]]) == ["error: deck must be a list of card codes"]
    assert triples.run([["play", "g", deep]]) == ["error: unknown game"]


# ----------------------------------------------------------------- sequences from Python


class Unreadable(tuple[int, ...]):
    """A sequence of the caller's own whose items cannot be read."""

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("no")

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        raise RuntimeError("no")


def test_tuples_stand_for_lists_from_python() -> None:
    as_lists = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["history", "g"], ["status", "g"]]
    as_tuples = (("new", "g", 1), ["play", "g", (0, 2, 5)], ("history", "g"), ("status", "g"))
    assert (
        triples.run(as_tuples)
        == triples.run(as_lists)
        == [
            SEED1_TABLE,
            "ok",
            [[0, 2, 5]],
            {"cleared": 3, "stock": 39, "over": False},
        ]
    )


def test_tuples_inside_arguments_stand_for_lists() -> None:
    values = tuple(range(1, 10)) * 4
    out = triples.run(
        [
            ("new", "s", values, "sum15"),
            ("quartets", ("1 A 2 3C no",)),
            ("new", "c", 1, {"base": "classic", "court": (11, 12, 13)}),
            ("play", "s", range(3)),
        ]
    )
    assert out == triples.run(
        [
            ["new", "s", list(values), "sum15"],
            ["quartets", ["1 A 2 3C no"]],
            ["new", "c", 1, {"base": "classic", "court": [11, 12, 13]}],
            ["play", "s", [0, 1, 2]],
        ]
    )
    assert (
        out[0][:3] == ["1S", "2S", "3S"] and out[1] == {"cheated": False} and out[3] == "error: cards sum to 6, need 15"
    )


@pytest.mark.parametrize("operations", ["new", b"new", bytearray(b"new"), {"new": 1}, iter([["new", "g", 1]])])
def test_text_bytes_and_other_non_sequences_are_not_operations(operations: object) -> None:
    assert triples.run(operations) == ["error: operations must be a list"]


@pytest.mark.parametrize(
    "positions", ["025", b"\x00\x02\x05", {0, 2, 5}, {0: 0, 2: 2, 5: 5}, (0, 2), Unreadable((0, 2, 5))], ids=repr
)
def test_positions_that_are_no_sequence_of_three_are_refused_as_any_non_list(positions: object) -> None:
    assert triples.run([["new", "g", 1], ["play", "g", positions], ["history", "g"]])[1:] == [
        "error: pick exactly 3 cards",
        [],
    ]


def test_operations_that_cannot_be_read_are_one_error_and_an_operation_a_malformed_one() -> None:
    assert triples.run(Unreadable((1, 2))) == ["error: operations must be a list"]
    assert triples.run([Unreadable((1, 2)), "new", b"new"]) == ["error: malformed operation"] * 3


def test_a_huge_range_is_refused_without_being_copied() -> None:
    assert triples.run([["new", "g", 1], ["play", "g", range(10**12)], ["new", "h", range(10**12)]])[1:] == [
        "error: pick exactly 3 cards",
        'error: usage: ["new", id, seed_or_deck, variant?]',
    ]
