"""``python -m triples`` and the ``triples`` console script: the command line, started so that a
stop signal that comes while it is still loading ends it quietly.

Loading the command line (argparse, pydantic, the engines) takes a few hundred milliseconds,
longer on a busy machine. A Ctrl-C then would end in a KeyboardInterrupt traceback from
somewhere inside an import; instead, while ``triples.cli`` loads, SIGINT, SIGTERM and SIGHUP end
the process at once with 128 + the signal's number (130, 143, 129), the status the command
gives for them once it runs. Nothing has been read or written yet, so nothing is lost. A signal
ignored at the start (``nohup``, a background job's Ctrl-C) stays ignored. Only the moments
before this module runs (Python's own start-up) are out of its reach.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def exit_at_once(signum: int, frame: FrameType | None) -> None:
    os._exit(128 + signum)  # mid-import there is nothing to flush or close


@contextmanager
def signals_exit_quietly() -> Iterator[None]:
    """Within the block, a stop signal exits with 128 + its number; the handlers before it are
    put back on leaving (the command installs its own where it has work to save)."""
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, exit_at_once)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main() -> int:
    with signals_exit_quietly():
        from triples.cli import main as command_line
    return command_line()


if __name__ == "__main__":
    sys.exit(main())
