"""Exact best-score search (being written: see the best/solve issue)."""

from __future__ import annotations

from triples.table import Move, Table


def best_cleared(table: Table) -> int:
    raise NotImplementedError("best is not built yet")


def solve(table: Table) -> tuple[int, list[Move]]:
    raise NotImplementedError("solve is not built yet")
