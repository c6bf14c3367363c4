"""The process table (Linux /proc): which processes a command left behind. Shared by
benchmarks/rate_faults.py and tests/test_rate_faults.py."""

from __future__ import annotations

import os
import time
from pathlib import Path


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``, from the process table."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):  # gone meanwhile
                continue
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
    """Those of ``pids`` still running after waiting up to ``within`` seconds for them to end."""
    deadline = time.monotonic() + within
    while any(running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {pid for pid in pids if running(pid)}
