"""The main door: ``run(operations) -> outputs``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from triples.interpreter.operations import is_sequence
from triples.interpreter.session import Session
from triples.support import deadline


class OperationTimedOut(deadline.TimeLimitExceeded):
    """``run``'s time limit passed while operation number ``index`` (from 0) was running or due."""

    def __init__(self, seconds: float, index: int) -> None:
        super().__init__(f"time limit of {seconds:g} s exceeded at operation {index}")
        self.seconds = seconds
        self.index = index


def run(operations: object, *, time_limit: float | None = None) -> list[Any]:
    """Apply each operation in a fresh session: exactly one output per operation, never a raise.

    ``operations`` is a list, or any other sequence (a tuple) of operations, each a list or a
    tuple; a list is due inside them too (positions, a deck) and a tuple does as well. Input
    that is no sequence (a dict, a number, a generator), or is text or bytes, has no operations
    to answer one by one, so it gets one error.
    With a ``time_limit`` (seconds) the run stops once it has passed, between operations or
    inside a long search, and raises ``OperationTimedOut`` instead of answering: there is no
    limit unless one is asked for.
    """
    if not isinstance(operations, list):
        if not is_sequence(operations):
            return ["error: operations must be a list"]
        try:
            operations = list(cast("Sequence[object]", operations))
        except Exception:  # a sequence of the caller's own whose items cannot be read
            return ["error: operations must be a list"]
    session = Session()
    if time_limit is None:
        return [session.apply(op) for op in operations]
    outputs: list[Any] = []
    with deadline.limited(time_limit):
        try:
            for op in operations:
                deadline.check()
                outputs.append(session.apply(op))
        except deadline.TimeLimitExceeded:
            raise OperationTimedOut(time_limit, len(outputs)) from None
    return outputs
