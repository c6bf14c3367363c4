"""Triples: a rules engine and exact solver for sum solitaires."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from triples.api import run

__all__ = ["run"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # ``run`` is loaded when first asked for, so ``import triples`` (and every command that
    # does not run operations) does not pay for the interpreter and its validation models.
    if name == "run":
        from triples.api import run

        return run
    raise AttributeError(f"module 'triples' has no attribute {name!r}")
