"""The main door: ``run(operations) -> outputs``."""

from __future__ import annotations

from typing import Any

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

    Input that is not a list has no operations to answer one by one, so it gets one error.
    With a ``time_limit`` (seconds) the run stops once it has passed, between operations or
    inside a long search, and raises ``OperationTimedOut`` instead of answering: there is no
    limit unless one is asked for.
    """
    if not isinstance(operations, list):
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
