"""``triples.__main__``, the way in of ``python -m triples`` and the ``triples`` script: a stop
signal while the command line is still loading ends it quietly with the signal's status.

The real subprocesses below load ``triples.doors.cli`` slowly on purpose (an import hook that says
"loading" and sleeps), so that the signal lands in the middle of the import every time.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.processes import EXIT_WITHIN, SIGNALS_ON
from triples.__main__ import exit_at_once, put_back, signals_exit_quietly

SLOW_LOAD = """
import signal, sys, time
{signals_on}  # as from a terminal, even under a background job or nohup
{ignore}
class SlowCommandLine:
    def find_spec(self, name, path=None, target=None):
        if name == "triples.doors.cli":
            print("loading", file=sys.stderr, flush=True)
            time.sleep(20)
        return None
sys.meta_path.insert(0, SlowCommandLine())
from triples.__main__ import main
sys.exit(main())
"""


def loading(ignore: str = "") -> subprocess.Popen[str]:
    """``python -m triples --help`` as the script starts it, caught while it loads triples.doors.cli."""
    code = SLOW_LOAD.format(signals_on=SIGNALS_ON, ignore=ignore)
    child = subprocess.Popen([sys.executable, "-c", code, "--help"], text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    assert child.stderr is not None
    assert child.stderr.readline() == "loading\n"
    return child


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_a_signal_while_the_command_line_loads_exits_quietly_with_its_status(signum: signal.Signals) -> None:
    child = loading()
    child.send_signal(signum)
    sent = time.monotonic()
    out, err = child.communicate(timeout=30)
    assert (child.returncode, out, err) == (128 + signum, "", "")  # no traceback, nothing half-printed
    assert time.monotonic() - sent < EXIT_WITHIN


def test_a_signal_ignored_at_the_start_stays_ignored_while_loading() -> None:
    child = loading(ignore="signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup")
    child.send_signal(signal.SIGHUP)
    with pytest.raises(subprocess.TimeoutExpired):
        child.wait(timeout=0.5)
    child.send_signal(signal.SIGTERM)
    assert child.wait(timeout=30) == 128 + signal.SIGTERM


def test_the_handlers_before_loading_are_put_back_and_an_ignored_one_is_left_alone() -> None:
    mine = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL, signal.SIGHUP: signal.SIG_IGN}
    previous = {signum: signal.signal(signum, handler) for signum, handler in mine.items()}
    try:
        replaced = signals_exit_quietly()
        during = {signum: signal.getsignal(signum) for signum in mine}
        put_back(replaced)
        after = {signum: signal.getsignal(signum) for signum in mine}
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert during == {signal.SIGINT: exit_at_once, signal.SIGTERM: exit_at_once, signal.SIGHUP: signal.SIG_IGN}
    assert after == mine
