"""The operations' registry: sealed once the interpreter is loaded, a name never taken twice,
and a stand-in for tests that leaves it as it was."""

from __future__ import annotations

from typing import Any

import pytest

from triples.interpreter.operations import OPERATIONS, Args, Operation, Registry
from triples.interpreter.session import Session


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
