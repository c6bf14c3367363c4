"""The shape of the code: layers that import one way, doors that never lean on each other, no
circle of imports (deferred and type-only ones count too), and files small enough to hold in
one's head.

The layers, lowest first: ``support`` (errors, the clock, caches, integers), the ``model``, the
``engines``, the other ``games``, the ``store``, the ``interpreter`` (with ``triples.api``, its
public face), and the doors (the command line, the rating commands, the service, and the
original problems' classes in ``triples.compat``), which share the command ``kit``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "triples"
LINES = 420  # "about 400"
# Files allowed past it, and why.
LONG_FILES: dict[str, str] = {}

# Each layer, and the layers it may import (itself always allowed).
LAYERS: dict[str, frozenset[str]] = {
    "support": frozenset(),
    "model": frozenset({"support"}),
    "engines": frozenset({"support", "model"}),
    "games": frozenset({"support"}),
    "store": frozenset({"support", "root"}),  # the root for its version only
    "interpreter": frozenset({"support", "model", "engines", "games"}),
    "kit": frozenset({"support", "model", "engines", "store", "root"}),
    "door": frozenset({"support", "model", "engines", "games", "store", "interpreter", "kit", "root"}),
    "root": frozenset({"interpreter"}),  # ``triples`` itself: ``run``, loaded when asked for
}
# The ways in: each is used by people or programs directly, and none may lean on another.
DOORS = ("triples.doors.cli", "triples.doors.rating", "triples.doors.service", "triples.compat")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in PACKAGE.rglob("*.py")}


def imported(path: Path) -> set[str]:
    """Every triples module ``path`` imports, wherever the import stands: at the top, inside a
    function (deferred) or under ``if TYPE_CHECKING`` (type-only). ``from a import b`` counts
    as importing ``a.b`` when that is a module, else ``a``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path}: relative import"
            if node.module is None:
                continue
            for alias in node.names:
                whole = f"{node.module}.{alias.name}"
                names.add(whole if whole in MODULES else node.module)
    return {name for name in names if name == "triples" or name.startswith("triples.")}


def layer_of(name: str) -> str:
    if name in ("triples", "triples.__main__"):
        return "root" if name == "triples" else "door"
    if name == "triples.api":
        return "interpreter"
    if name == "triples.store" or name.startswith("triples.store."):
        return "store"  # the package: the schema and every SQL statement, on SQLite and PostgreSQL
    if name == "triples.compat":
        return "door"
    part = name.split(".")[1]
    if part == "doors":
        return "kit" if name.startswith("triples.doors.kit") or name == "triples.doors" else "door"
    assert part in LAYERS, f"{name} is in no layer"
    return part


def door_of(name: str) -> str | None:
    if name == "triples.__main__":  # ``python -m triples`` is the command line
        return "triples.doors.cli"
    return next((door for door in DOORS if name == door or name.startswith(door + ".")), None)


def graph() -> dict[str, set[str]]:
    return {name: {target for target in imported(path) if target != name} for name, path in MODULES.items()}


def test_every_module_is_in_a_layer() -> None:
    # ``layer_of`` refuses a module in no layer; every layer has modules.
    assert sorted({layer_of(name) for name in MODULES}) == sorted(LAYERS)


def test_imports_go_down_the_layers_only() -> None:
    wrong = [
        f"{name} ({layer_of(name)}) imports {target} ({layer_of(target)})"
        for name, targets in graph().items()
        for target in targets
        if layer_of(target) != layer_of(name) and layer_of(target) not in LAYERS[layer_of(name)]
    ]
    assert sorted(wrong) == []


def test_no_door_imports_another_door() -> None:
    crossings = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        if (here := door_of(name)) is not None
        for target in targets
        if (there := door_of(target)) is not None and there != here
    ]
    assert sorted(crossings) == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_circle_of_imports_not_even_deferred_or_type_only() -> None:
    # A package imports its own modules to re-export them; that is not a circle through the
    # package unless a module of it imports the package back, which is checked as usual.
    assert cycles(graph()) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
    ids=["pair", "triangle", "none"],
)
def test_the_circle_finder_finds_circles(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected


def test_imports_inside_functions_and_type_checking_blocks_are_seen(tmp_path: Path) -> None:
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from triples.model.table import Table\n"
        "def f():\n    from triples.engines import search\n"
    )
    assert imported(source) == {"triples.model.table", "triples.engines.search"}


def test_no_file_is_over_about_400_lines_but_the_listed() -> None:
    long = {
        str(path.relative_to(PACKAGE)): len(path.read_text().splitlines())
        for path in PACKAGE.rglob("*.py")
        if len(path.read_text().splitlines()) > LINES
    }
    assert set(long) <= set(LONG_FILES), long
