"""A pytest plugin for the mutation runs of ``benchmarks/mutation.py`` (``-p mutation_order``).

A mutant's test run stops at its first failure (``-x``), so the tests run fastest first: most
mutants are killed by a test that takes milliseconds, and only a survivor pays for the slow
ones (the golden playthroughs). The durations are read from the JSON file named by
``MUTATION_DURATIONS`` (test id to seconds, or mutmut's stats file, which holds them under
``duration_by_test``); ``MUTATION_RECORD`` names a file to write this run's durations to.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

_durations: dict[str, float] = {}


def _known() -> dict[str, float]:
    name = os.environ.get("MUTATION_DURATIONS")
    if not name or not Path(name).exists():
        return {}
    data = json.loads(Path(name).read_text())
    found = data.get("duration_by_test", data)
    return {key.removeprefix("mutants/"): float(value) for key, value in found.items()}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    known = _known()
    if known:
        # Unknown tests (new since the durations were taken) go first: they are probably fast.
        items.sort(key=lambda item: known.get(item.nodeid, 0.0))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call":
        _durations[report.nodeid] = report.duration


def pytest_sessionfinish(session: pytest.Session, exitstatus: Any) -> None:
    name = os.environ.get("MUTATION_RECORD")
    if name:
        Path(name).write_text(json.dumps(_durations, indent=1, sort_keys=True))
