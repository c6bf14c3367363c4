"""A cooperative time limit for long computations (the service's ``--time-limit``).

A caller sets a deadline for the current context with ``limited(seconds)``; the searches, the
fair player and ``p_random`` call ``check()`` every so many nodes and stop with
``TimeLimitExceeded`` once it has passed. Without a deadline ``check()`` is one context-variable
read, so the engines pay next to nothing when no limit is set. The deadline is a context
variable, so each thread (and each request the service runs in one) has its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import monotonic

_DEADLINE: ContextVar[float | None] = ContextVar("triples_deadline", default=None)


class TimeLimitExceeded(Exception):
    """The deadline set by ``limited`` has passed. Not a ``TriplesError``: it is no answer to
    the operation, and the interpreter lets it through to whoever set the limit."""


def check() -> None:
    """Raise ``TimeLimitExceeded`` when this context's deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and monotonic() > deadline:
        raise TimeLimitExceeded


@contextmanager
def limited(seconds: float | None) -> Iterator[None]:
    """Within the block, ``check()`` raises once ``seconds`` have passed (None: no limit)."""
    token = _DEADLINE.set(None if seconds is None else monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)
