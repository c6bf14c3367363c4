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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
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


# ---------------------------------------------------------------- a real server

MIB = 1024 * 1024


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def limited(memory: int | None = None, files: int | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` that gives the child at most ``memory`` bytes of address space (as
    ``ulimit -v``) and ``files`` open files (``ulimit -n``)."""
    import resource

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    return limit


@contextmanager
def serving(
    *options: str, env: dict[str, str] | None = None, memory: int | None = None, files: int | None = None
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """``triples serve --port P OPTIONS`` in a subprocess, its port once ``/health`` answers;
    stopped (SIGTERM, then SIGKILL) at the end."""
    import urllib.request

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--no-access-log", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        preexec_fn=limited(memory, files),
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, server.communicate()[1].decode()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer in time"
                time.sleep(0.05)
        yield port, server
    finally:
        if server.poll() is None:
            server.terminate()
            try:
                server.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.communicate()


def post(port: int, body: bytes, timeout: float = 60) -> tuple[int, bytes]:
    """``POST /run`` with Python's urllib (which sends the whole body before it reads): status and body."""
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"http://127.0.0.1:{port}/run", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
