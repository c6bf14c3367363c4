"""Stopping a run on SIGINT, SIGTERM or SIGHUP, and keeping worker processes from outliving it.

While a run lasts, the three signals are noted (``StopSignals``) instead of killing the command
mid-write: the executors look at the note between rows (a pool of processes, a Dask cluster), or
let it raise ``Stop`` only while a row is being computed in this process, never while rows are
written. The command then writes every row it has, reports, and exits 128 + the signal's number:
130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP), as a shell reports a process killed by the signal.

A signal that was ignored when the command started (``nohup``, a background job's SIGINT) stays
ignored. Worker processes ignore SIGINT and SIGHUP (a terminal sends them to the whole process
group; the command decides), and die with their parent (``die_with_parent``).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PARENT_POLL_SECONDS = 0.5  # where the parent's death cannot be signalled, how often a worker looks
PR_SET_PDEATHSIG = 1  # linux/prctl.h


class Stop(BaseException):
    """A stop signal arrived while a row was being computed in this process. A BaseException,
    like KeyboardInterrupt, so that no ``except Exception`` in an engine swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """A context in which SIGINT, SIGTERM and SIGHUP are noted in ``signum`` (the first one);
    inside ``raising()`` a signal raises ``Stop`` at once. Outside the main thread (where Python
    delivers no signals) it installs nothing and never stops."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._raise = False
        self._previous: dict[int, object] = {}

    @property
    def stopped(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return "" if self.signum is None else signal.Signals(self.signum).name

    @property
    def exit_status(self) -> int:
        return 128 + (self.signum or 0)

    def _note(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is None:
            self.signum = signum
        if self._raise:
            self._raise = False
            raise Stop(signum)

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                previous = signal.getsignal(signum)
                if previous is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._note)
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous)  # type: ignore[arg-type]
        self._previous.clear()

    @contextmanager
    def raising(self) -> Iterator[None]:
        """Let a stop signal raise ``Stop`` inside this block (and at once if one came already)."""
        if self.signum is not None:
            raise Stop(self.signum)
        self._raise = True
        try:
            yield
        finally:
            self._raise = False


NEVER = StopSignals()  # for callers without signals of their own (benchmarks, tests): never stops


def die_with_parent(parent: int) -> None:
    """In a worker process: exit as soon as ``parent`` dies, even by ``kill -9``.

    On Linux the kernel sends SIGKILL when the parent goes (prctl PR_SET_PDEATHSIG); elsewhere a
    daemon thread looks every half second whether the worker was handed to another parent.
    Either way, a parent already gone before this ran is noticed at once.
    """
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    armed = False
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
    if os.getppid() != parent:
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)
