"""Room on the stack for the engines' recursions, safe under threads.

Each search level removes at least one card, so the deck bounds the depth (the fair player's
expectimax: a frame per move and per drawn card, twice the deck at most). That fits in
Python's default recursion limit unless the caller is already deep. When it does not, the
limit (one setting for the whole process) is raised, and put back only when no thread still
needs it: a count of the blocks that raised it, under a lock, so one thread never lowers the
limit under another's recursion.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_raised = 0  # blocks inside a raised limit
_restore = 0  # the limit before the first of them
# Frames kept free above the depth asked for: the engines' own helpers and the caller's.
MARGIN = 50


def make_room(depth: int) -> bool:
    """Make sure ``depth`` more frames fit on top of the caller. True when the limit had to be
    raised: the caller then owes one ``release()``."""
    global _raised, _restore
    # What this caller may count on is the limit with no raise in force. Without the lock (the
    # common case must stay cheap): once a raise has happened, ``_restore`` holds that base,
    # and the smaller of the two never overstates it, whatever another thread does meanwhile.
    base = sys.getrecursionlimit()
    if _restore:
        base = min(base, _restore)
    # Asking for a frame deeper than the stack raises: the common case, told without walking
    # the stack in Python (which cost as much as a small classic search).
    try:
        sys._getframe(max(0, base - depth - MARGIN))
    except ValueError:
        return False
    used, frame = 0, sys._getframe()
    while frame.f_back is not None:
        used, frame = used + 1, frame.f_back
    wanted = used + depth + MARGIN
    with _LOCK:
        base = _restore if _raised else sys.getrecursionlimit()
        if wanted <= base:
            return False
        if not _raised:
            _restore = base
        _raised += 1
        if wanted > sys.getrecursionlimit():
            sys.setrecursionlimit(wanted)
    return True


def release() -> None:
    """The end of a block ``make_room`` raised the limit for: the last one puts it back."""
    global _raised
    with _LOCK:
        _raised -= 1
        if not _raised:
            sys.setrecursionlimit(_restore)


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """``make_room`` for a block."""
    owed = make_room(depth)
    try:
        yield
    finally:
        if owed:
            release()
