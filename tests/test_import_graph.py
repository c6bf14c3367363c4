"""The shape of the code: imports go one way, doors -> interpreter -> engines, and files stay
small enough to hold in one's head."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "triples"
# The ways in: each is used by people or programs directly, and none may lean on another.
DOORS = ("triples.cli", "triples.rate", "triples.service")
LINES = 420  # "about 400"
# Files allowed past it, and why.
LONG_FILES: dict[str, str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("triples")}


def door_of(name: str) -> str | None:
    if name == "triples.__main__":  # ``python -m triples`` is the command line
        return "triples.cli"
    return next((door for door in DOORS if name == door or name.startswith(door + ".")), None)


def test_no_door_imports_another_door() -> None:
    crossings = []
    for path in PACKAGE.rglob("*.py"):
        here = door_of(module_name(path))
        for name in imported(path):
            there = door_of(name)
            if there is not None and there != here:
                crossings.append(f"{module_name(path)} imports {name}")
    assert sorted(crossings) == []


def test_the_interpreter_and_the_engines_import_no_door() -> None:
    leaks = [
        f"{module_name(path)} imports {name}"
        for path in PACKAGE.rglob("*.py")
        if door_of(module_name(path)) is None
        for name in imported(path)
        if door_of(name) is not None
    ]
    assert leaks == []


def test_no_file_is_over_about_400_lines_but_the_listed() -> None:
    long = {
        str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
        if len(path.read_text().splitlines()) > LINES
    }
    assert set(long) <= set(LONG_FILES), long
