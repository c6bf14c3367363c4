"""The main door: ``run(operations) -> outputs``."""

from __future__ import annotations

from typing import Any

from triples.session import Session


def run(operations: object) -> list[Any]:
    """Apply each operation in a fresh session: exactly one output per operation, never a raise.

    Input that is not a list has no operations to answer one by one, so it gets one error.
    """
    if not isinstance(operations, list):
        return ["error: operations must be a list"]
    session = Session()
    return [session.apply(op) for op in operations]
