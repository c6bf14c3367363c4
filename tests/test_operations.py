"""The operations' registry: sealed once the interpreter is loaded, a name never taken twice,
and a stand-in for tests that leaves it as it was."""

from __future__ import annotations

from typing import Any

import pytest

from triples.interpreter.operations import OPERATIONS, Args, Operation, Registry, writable
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


def test_a_lone_surrogate_is_written_as_its_escape_so_every_answer_encodes() -> None:
    assert writable("error: unknown operation '\ud800'") == "error: unknown operation '\\ud800'"
    assert writable("error: unknown variant 'ünï\udfff'") == "error: unknown variant 'ünï\\udfff'"
    assert writable("error: unknown variant 'ünï'") == "error: unknown variant 'ünï'"
    answer = Session().apply(["\udc80", "g"])
    assert answer == "error: unknown operation '\\udc80'"
    assert answer.encode() == b"error: unknown operation '\\udc80'"
