"""``python -m triples`` and the ``triples`` console script: the command line, started so that a
stop signal that comes while it is still loading ends it quietly.

Loading the command line (argparse, the interpreter, the engines) takes about a hundred milliseconds,
longer on a busy machine. A Ctrl-C then would end in a KeyboardInterrupt traceback from
somewhere inside an import; instead, while ``triples.doors.cli`` loads, SIGINT, SIGTERM and SIGHUP end
the process at once with 128 + the signal's number (130, 143, 129), the status the command
gives for them once it runs. Nothing has been read or written yet, so nothing is lost. A signal
ignored at the start (``nohup``, a background job's Ctrl-C) stays ignored. Only the moments
before this module runs (Python's own start-up) are out of its reach.
"""

from __future__ import annotations

# Only modules Python has loaded already, so that the handlers are in place as early as can be.
import os
import signal
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
Handlers = dict[int, object]  # a signal, and its handler before ours


def exit_at_once(signum: int, frame: FrameType | None) -> None:
    os._exit(128 + signum)  # mid-import there is nothing to flush or close


def signals_exit_quietly() -> Handlers:
    """From now on a stop signal exits with 128 + its number (one ignored stays ignored); the
    handlers it replaced, for ``put_back``. Outside the main thread, where no handler can be
    set, nothing changes."""
    previous: Handlers = {}
    try:
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, exit_at_once)
    except ValueError:  # not the main thread
        put_back(previous)
        return {}
    return previous


def put_back(previous: Handlers) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)  # type: ignore[arg-type]


def main() -> int:
    """Load the command line with stop signals exiting quietly, then run it with the handlers
    it started with (the command installs its own where it has work to save)."""
    previous = signals_exit_quietly()
    try:
        from triples.doors.cli import main as command_line
    finally:
        put_back(previous)
    return command_line()


if __name__ == "__main__":
    sys.exit(main())
