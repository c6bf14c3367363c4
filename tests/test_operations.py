"""The operations' registry: sealed once the interpreter is loaded, a name never taken twice,
a stand-in for tests that leaves it as it was, and the decorator that fills it; the quick tests
of arguments, and answers made writable."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import pytest

from triples.interpreter import operations
from triples.interpreter.operations import OPERATIONS, Args, Operation, OperationError, Registry, writable
from triples.interpreter.session import NewArgs, Session


def handler(session: Session, args: Any) -> str:
    return "done"


def test_a_name_registered_twice_is_refused() -> None:
    registry = Registry()
    registry.add(Operation("probe", Args, handler, "cheap"))
    with pytest.raises(ValueError, match="'probe' is registered twice"):
        registry.add(Operation("probe", Args, handler, "search"))
    assert registry["probe"].cost == "cheap"


def test_a_sealed_registry_takes_nothing_more() -> None:
    registry = Registry()
    registry.seal()
    with pytest.raises(RuntimeError, match="fixed once the interpreter is loaded"):
        registry.add(Operation("late", Args, handler, "cheap"))
    assert len(registry) == 0


def test_the_interpreters_registry_is_sealed_and_a_stand_in_is_undone() -> None:
    with pytest.raises(RuntimeError):
        OPERATIONS.add(Operation("late", Args, handler, "cheap"))
    status = OPERATIONS["status"]
    with OPERATIONS.replaced(Operation("status", Args, handler, "cheap")):
        assert Session().apply(["status", "g"]) == "done"
    assert OPERATIONS["status"] is status
    with OPERATIONS.replaced(Operation("added", Args, handler, "cheap")):
        assert Session().apply(["added", "g"]) == "done"
    assert "added" not in OPERATIONS
    assert Session().apply(["added", "g"]) == "error: unknown operation 'added'"


def test_as_lists_makes_lists_of_other_sequences_and_leaves_the_rest() -> None:
    from triples.interpreter.operations import as_lists

    plain = [["new", "g", 1], {"court": [1, 2, 3]}]
    assert as_lists(plain) is plain  # nothing to change: the very object
    assert as_lists((("a", (1, 2)), {"court": (1, 2, 3)})) == [["a", [1, 2]], {"court": [1, 2, 3]}]
    assert as_lists("abc") == "abc" and as_lists(b"ab") == b"ab" and as_lists({1, 2}) == {1, 2}
    deep = (((((1,),),),),)
    assert as_lists(deep) == [[[[(1,)]]]]  # four levels down, no further


def test_a_session_takes_an_operation_written_as_a_tuple() -> None:
    session = Session()
    assert session.apply(("new", "g", 1))[0] == "9D"
    assert session.apply(("play", "g", (0, 2, 5))) == "ok"
    assert session.apply("new") == "error: malformed operation"


def test_a_lone_surrogate_is_written_as_its_escape_so_every_answer_encodes() -> None:
    assert writable("error: unknown operation '\ud800'") == "error: unknown operation '\\ud800'"
    assert writable("error: unknown variant 'ünï\udfff'") == "error: unknown variant 'ünï\\udfff'"
    assert writable("error: unknown variant 'ünï'") == "error: unknown variant 'ünï'"
    answer = Session().apply(["\udc80", "g"])
    assert answer == "error: unknown operation '\\udc80'"
    assert answer.encode() == b"error: unknown operation '\\udc80'"


def test_an_operation_is_frozen_once_registered() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        OPERATIONS["status"].cost = "search"  # type: ignore[misc]


def test_the_decorator_registers_the_handler_as_declared_and_gives_it_back(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = Registry()
    monkeypatch.setattr(operations, "OPERATIONS", fresh)
    assert operations.operation("probe", NewArgs, cost="search")(handler) is handler
    probe = fresh["probe"]
    assert (probe.name, probe.args, probe.handler, probe.cost) == ("probe", NewArgs, handler, "search")
    assert (probe.fields, probe.required) == (("id", "seed_or_deck", "variant"), 2)


def test_arguments_of_exactly_their_fields_types_never_need_the_strict_model() -> None:
    # The quick tests take them (no pydantic model is built: its import would triple the command
    # line's start-up); anything else goes to the model, which is built then.
    probe = Operation("probe", NewArgs, handler, "cheap")
    assert [test(value) for test, value in zip(probe.quick, ["g", 1, "classic"], strict=True)] == [True] * 3
    assert probe.parse(["g", [1, "2S"], {"base": "classic"}]) == NewArgs("g", [1, "2S"], {"base": "classic"})
    assert "validator" not in vars(probe)
    with pytest.raises(OperationError, match=r'usage: \["probe", id, seed_or_deck, variant\?\]'):
        probe.parse(["g", True])
    assert "validator" in vars(probe)


def nested(levels: int, innermost: object, wrap: Any) -> object:
    value = innermost
    for _ in range(levels):
        value = wrap(value)
    return value


def test_as_lists_looks_four_levels_down_and_no_further() -> None:
    from triples.interpreter.operations import as_lists

    # A tuple three containers down is a list; four down, it is left (no operation nests deeper).
    assert as_lists([[[(1,)]]]) == [[[[1]]]]
    assert as_lists([[[[(1,)]]]]) == [[[[(1,)]]]]
    assert as_lists({"a": {"b": {"c": (1,)}}}) == {"a": {"b": {"c": [1]}}}
    assert as_lists({"a": {"b": {"c": {"d": (1,)}}}}) == {"a": {"b": {"c": {"d": (1,)}}}}
    assert as_lists([{"a": [(1,)]}]) == [{"a": [[1]]}]
    # However deep a value nests, as_lists goes no deeper: no recursion error, the value as given.
    for wrap in (lambda inner: [inner, 1], lambda inner: {"a": inner}):
        deep = nested(5_000, (1,), wrap)
        assert as_lists(deep) is deep


def test_as_lists_copies_a_sequence_of_at_most_a_million_items() -> None:
    from triples.interpreter.operations import as_lists

    assert as_lists(range(1_000_000)) == list(range(1_000_000))
    longer = range(1_000_001)
    assert as_lists(longer) is longer  # left for the operation's refusal, not copied


class Unreadable(Sequence[int]):
    """A sequence whose items cannot be read."""

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: Any) -> Any:
        raise RuntimeError("unreadable")


def test_as_lists_leaves_a_sequence_it_cannot_read() -> None:
    from triples.interpreter.operations import as_lists

    unreadable = Unreadable()
    assert as_lists(unreadable) is unreadable
    assert as_lists([unreadable]) == [unreadable]
