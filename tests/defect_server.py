"""``triples serve`` in a real process with a defect in one operation (``status`` raises), for the
tests of how the service reports a defect: logged with its traceback, counted, and never shown
to the client beyond its one line. One server process (the default), so the stand-in holds."""

from __future__ import annotations

import sys

import triples.interpreter.session  # noqa: F401 (every operation registered before one is stood in for)
from triples.interpreter.operations import OPERATIONS, Args, Operation


def broken(session: object, args: object) -> object:
    raise ZeroDivisionError("a defect planted by the test")


if __name__ == "__main__":
    with OPERATIONS.replaced(Operation("status", Args, broken, "cheap")):
        from triples.doors.cli import main

        sys.exit(main(["serve", *sys.argv[1:]]))
