"""Triples: a rules engine and exact solver for sum solitaires."""

from __future__ import annotations

# Not ``typing``: ``import triples`` loads nothing beyond this file (mypy reads the constant).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from triples.api import run

__all__ = ["run"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:  # annotations stay strings: no ``typing`` needed
    # ``run`` is loaded when first asked for, so ``import triples`` (and every command that
    # does not run operations) does not pay for the interpreter and its validation models.
    if name == "run":
        from triples.api import run

        return run
    raise AttributeError(f"module 'triples' has no attribute {name!r}")
