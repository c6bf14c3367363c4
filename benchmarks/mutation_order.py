"""A pytest plugin for the mutation runs of ``benchmarks/mutation.py`` (``-p mutation_order``).

A mutant's test run stops at its first failure (``-x``), so the tests run fastest first: most
mutants are killed by a test that takes milliseconds, and only a survivor pays for the slow
ones (the golden playthroughs). And each test may take at most ``5 s + 10 x`` its time on the
unmutated code: a mutant that makes a search exponential fails the first test it slows, in
seconds, instead of holding a core until the whole run's time limit (which, set by the
slowest survivor's time on a loaded machine, is minutes).

The durations are read from the JSON file named by ``MUTATION_DURATIONS`` (test id to
seconds, or mutmut's stats file, which holds them under ``duration_by_test``); without it
the order and the limits are pytest's own. ``MUTATION_RECORD`` names a file to write this
run's durations to.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

_durations: dict[str, float] = {}
_known: dict[str, float] = {}


class MutantTimeout(Exception):
    """A test ran far past its time on the unmutated code."""


def _read_known() -> dict[str, float]:
    name = os.environ.get("MUTATION_DURATIONS")
    if not name or not Path(name).exists():
        return {}
    data = json.loads(Path(name).read_text())
    found = data.get("duration_by_test", data)
    return {key.removeprefix("mutants/"): float(value) for key, value in found.items()}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _known.clear()
    _known.update(_read_known())
    if _known:
        # Unknown tests (new since the durations were taken) go first: they are probably fast.
        items.sort(key=lambda item: _known.get(item.nodeid, 0.0))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    known = _known.get(item.nodeid)
    if known is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    limit = 5.0 + 10.0 * known

    def expire(signum: int, frame: FrameType | None) -> None:
        raise MutantTimeout(f"{item.nodeid} ran past {limit:.1f} s (it takes {known:.2f} s unmutated)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _durations[report.nodeid] = report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: Any) -> None:
    name = os.environ.get("MUTATION_RECORD")
    if name:
        Path(name).write_text(json.dumps(_durations, indent=1, sort_keys=True))
