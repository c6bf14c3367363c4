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
