"""Room on the stack for the engines' recursions.

Each search level removes at least one card, so the deck bounds the depth (the fair player's
expectimax: a frame per move and per drawn card, twice the deck at most). That fits in
Python's default recursion limit unless the caller is already deep. The limit is one setting
for the whole process, so the engines never change it: they check that the frames a position
needs fit, and refuse in one line when they do not. The doors (the command line, the service,
the rating workers) give their processes a limit with room to spare when they start.
"""

from __future__ import annotations

import sys

from triples.support.errors import TriplesError

# Frames kept free above the depth asked for: the engines' own helpers and the caller's.
MARGIN = 50


class NoRoom(TriplesError):
    """The recursion limit leaves too few frames for a position's search."""

    def __init__(self, needed: int, limit: int) -> None:
        super().__init__(
            f"this position needs a recursion limit of at least {needed}, and it is {limit} "
            "(raise it with sys.setrecursionlimit)"
        )
        self.needed = needed
        self.limit = limit


def ensure_room(depth: int) -> None:
    """Raise ``NoRoom`` unless ``depth`` more frames fit on top of the caller."""
    limit = sys.getrecursionlimit()
    # Asking for a frame deeper than the stack raises: the common case, told without walking
    # the stack in Python (which costs as much as a small classic search).
    try:
        sys._getframe(max(0, limit - depth - MARGIN))
    except ValueError:
        return
    used, frame = 0, sys._getframe()
    while frame.f_back is not None:
        used, frame = used + 1, frame.f_back
    if used + depth + MARGIN > limit:
        raise NoRoom(used + depth + MARGIN, limit)
