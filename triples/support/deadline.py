"""A cooperative time limit for long computations (the service's ``--time-limit``).

A caller sets a deadline for the current context with ``limited(seconds)``; every engine (the
searches and the tables they build, the strategies, the fair player, ``p_random``, the
enumeration of moves) calls ``check()`` often enough to stop within a fraction of a second
once it has passed, with ``TimeLimitExceeded``. Without a deadline ``check()`` is one
context-variable read, so the engines pay next to nothing when no limit is set. The deadline
is a context variable, so each thread (and each request the service runs in one) has its own.

A ``Deadline`` can also be ended early from another thread (``Deadline.expire``): a server
shutting down stops the work it no longer waits for that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from time import monotonic


class Deadline:
    """The moment (``monotonic()`` time) past which ``check()`` raises in the contexts using it."""

    __slots__ = ("at",)

    def __init__(self, seconds: float) -> None:
        self.at = monotonic() + seconds

    def restart(self, seconds: float) -> None:
        """Count ``seconds`` from now instead, unless it has been ended early (``expire``)."""
        if self.at != float("-inf"):
            self.at = monotonic() + seconds

    def expire(self) -> None:
        """End it now: the computation using it stops at its next ``check()``, whatever thread it runs in."""
        self.at = float("-inf")

    def passed(self) -> bool:
        return monotonic() > self.at


_DEADLINE: ContextVar[Deadline | None] = ContextVar("triples_deadline", default=None)


class TimeLimitExceeded(Exception):
    """The deadline set by ``limited`` has passed. Not a ``TriplesError``: it is no answer to
    the operation, and the interpreter lets it through to whoever set the limit."""


def check() -> None:
    """Raise ``TimeLimitExceeded`` when this context's deadline has passed."""
    deadline = _DEADLINE.get()
    if deadline is not None and monotonic() > deadline.at:
        raise TimeLimitExceeded


@contextmanager
def limited(limit: float | Deadline | None) -> Iterator[None]:
    """Within the block, ``check()`` raises once ``limit`` has passed: a number of seconds from
    now, a ``Deadline`` (which another thread may end early), or None for no limit."""
    token = _DEADLINE.set(Deadline(limit) if isinstance(limit, int | float) else limit)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_mask(work_per_step: int) -> int:
    """How many steps of an engine go between two looks at the clock, as a mask (a power of two
    less one: check when ``steps & mask == 0``), for steps that each try about
    ``work_per_step`` combinations: every 1024 steps of a few, down to every step of tens of
    thousands, so that the clock is seen every millisecond or so of work whatever the rules."""
    return 1023 >> min(10, (work_per_step // 32).bit_length())
