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


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from the process table (/proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is a process that is not a zombie (a zombie no longer runs)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def left_running(pids: set[int], within: float) -> set[int]:
    """Those of ``pids`` still running after ``within`` seconds (returns as soon as none is)."""
    deadline = time.monotonic() + within
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {pid for pid in pids if running(pid)}
