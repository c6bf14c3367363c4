"""The process settings the doors choose, and only the doors: the library never changes a
setting that belongs to the whole process.

- The recursion limit: the engines recurse a frame per move (the fair player's expectimax a
  frame per move and per drawn card), and refuse a position whose frames would not fit
  (``triples.engines.search.room``). A process the command line, the service or a rating
  worker runs gets a limit with room for the deepest rule set a variant object allows.
- The switch interval (the service only, ``triples.doors.service.server``): how often a thread
  running a search lets the event loop in.
"""

from __future__ import annotations

import sys

# The deepest recursion a rule set allows is about twice its deck plus its table (200 + 100
# cards): this leaves room for that on top of any caller. Python calls between Python functions
# use no C stack, so a high limit costs nothing until it is used.
RECURSION_LIMIT = 10_000


def tune_for_the_engines() -> None:
    """Raise the recursion limit to ``RECURSION_LIMIT`` (never lower it)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
