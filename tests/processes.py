"""Shared by the tests that run a command in a real subprocess and stop it with real signals
(rate's faults, sweep's interrupts, the cluster's Ctrl-C): start it as a terminal would, wait
for its first rows, send a signal as a terminal or ``kill`` would, and look in the process
table for what it left running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

# The process table, shared with the fault benchmark.
from benchmarks.processes import descendants as descendants
from benchmarks.processes import left_running as left_running
from benchmarks.processes import running as running

# The command as the console script starts it from a terminal, with Ctrl-C and hang-up turned
# back on: a child of a background job (a CI runner, ``make &``) or of ``nohup`` would inherit
# them ignored, and a signal ignored at the start stays ignored by design.
SIGNALS_ON = "signal.signal(signal.SIGINT, signal.default_int_handler); signal.signal(signal.SIGHUP, signal.SIG_DFL)"
COMMAND = f"import signal, sys; {SIGNALS_ON}; from triples.__main__ import main; sys.exit(main())"
EXIT_WITHIN = 4.0  # seconds from a signal to the exit; the contract is 2, the margin is for a loaded machine


def start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    """``triples ARGS`` in ``cwd``, in a process group of its own (as a shell's foreground job)."""
    return subprocess.Popen([sys.executable, "-c", COMMAND, *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip


def wait_for_rows(path: Path, child: subprocess.Popen[str], lines: int = 1) -> None:
    """Wait (a minute at most) until ``path`` holds ``lines`` whole lines; the command must still be running."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (path.exists() and path.read_bytes().count(b"\n") >= lines):
        time.sleep(0.01)
    assert child.poll() is None, child.communicate()


def send(child: subprocess.Popen[str], signum: int) -> None:
    """As a terminal sends Ctrl-C and a hang-up (to the whole foreground process group), or as
    ``kill PID`` sends SIGTERM (to the command alone)."""
    if signum in (signal.SIGINT, signal.SIGHUP):
        os.killpg(child.pid, signum)
    else:
        os.kill(child.pid, signum)


def stopped(child: subprocess.Popen[str], signum: int) -> tuple[str, str, float]:
    """Send ``signum`` (see ``send``) and wait for the exit: stdout, stderr and the seconds it took."""
    send(child, signum)
    sent = time.monotonic()
    out, err = child.communicate(timeout=60)
    return out, err, time.monotonic() - sent
