"""Every file in fixtures/ replays through run() to exactly its recorded outputs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from triples import run

FIXTURES = sorted((Path(__file__).parent.parent / "fixtures").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    fixture: dict[str, Any] = orjson.loads(path.read_bytes())
    return fixture


def as_json(value: object) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def test_there_are_fixtures() -> None:
    assert len(FIXTURES) >= 10


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_replays(path: Path) -> None:
    fixture = load(path)
    assert sorted(fixture) == ["name", "operations", "outputs"]
    assert fixture["name"] == path.stem
    outputs = run(fixture["operations"])
    assert len(outputs) == len(fixture["outputs"])
    for index, (op, expected, got) in enumerate(zip(fixture["operations"], fixture["outputs"], outputs, strict=True)):
        # Compared as JSON text: Python's == would let true pass for 1 and 3.0 for 3.
        assert as_json(got) == as_json(expected), f"operation #{index} {op}"
