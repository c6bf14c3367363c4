"""What a row of ``triples rate`` is, and how one seed is rated into one.

Each seed is dealt twice from the same shuffle, exactly as ``["new", id, seed, variant]`` deals
it: one table is played out by the strategy, the other goes to the exact search.

Every row has the core columns. Further columns are registered here by name with the analysis
that computes them (``register_column``); a run asks for the ones it wants in
``RateOptions.columns``, and the formats write whichever columns they are given.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from triples import search
from triples.config import Variant, variant_named
from triples.deal import seeded
from triples.strategy import Strategy, play_out, strategy_named

Value = int | float | bool | str
Kind = type[int] | type[float] | type[bool] | type[str]


@dataclass(frozen=True)
class Column:
    name: str
    kind: Kind
    width: int  # in the text table
    per_run: bool = False  # depends on the machine or the run, not on the deal: left out when rows are compared
    digits: int = 2  # a float's decimals in the text table


@dataclass(frozen=True)
class Row:
    seed: int
    autoplay: int
    best: int
    gap: int
    won: bool
    states: int
    ms: float
    version: str = ""  # of triples where the row was rated; "" when read from a file without the column
    extra: Mapping[str, Value] = field(default_factory=dict)  # opt-in columns, by name

    def value(self, column: str) -> Value:
        if column in self.extra:
            return self.extra[column]
        return cast(Value, getattr(self, column))

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Row:
        """The row of a mapping of column names to values of the right kinds (see ``Column``)."""
        core = {name: values[name] for name in CORE_COLUMNS}
        extra = {k: v for k, v in values.items() if k not in core and k != "version"}
        return cls(**core, version=values.get("version", ""), extra=extra)


CORE_COLUMNS: tuple[str, ...] = ("seed", "autoplay", "best", "gap", "won", "states", "ms")
# What a new jsonl or csv file holds; the text table, read by people, keeps to the core.
RECORD_COLUMNS: tuple[str, ...] = (*CORE_COLUMNS, "version")

# Every column a row can carry, in the order they are written.
COLUMNS: dict[str, Column] = {
    column.name: column
    for column in (
        Column("seed", int, 4),
        Column("autoplay", int, 8),
        Column("best", int, 4),
        Column("gap", int, 4),
        Column("won", bool, 3),
        Column("states", int, 10),
        Column("ms", float, 9, per_run=True),
        Column("version", str, 8, per_run=True),
    )
}

Analysis = Callable[[Variant, Row], Value]
"""An opt-in column's value for one seed, from the variant and the seed's row so far: its core
columns and the opt-in columns listed before this one (so a column can build on another)."""

ANALYSES: dict[str, Analysis] = {}


def register_column(column: Column, analysis: Analysis) -> None:
    """Make ``column`` known to the formats and computable on request."""
    COLUMNS[column.name] = column
    ANALYSES[column.name] = analysis


def is_column_list(names: tuple[str, ...]) -> bool:
    """Whether a file with these columns holds rows: the core first, then registered columns."""
    rest = names[len(CORE_COLUMNS) :]
    return names[: len(CORE_COLUMNS)] == CORE_COLUMNS and len(set(rest)) == len(rest) and set(rest) <= set(COLUMNS)


@dataclass(frozen=True)
class RateOptions:
    """What to rate each seed with. Names rather than objects, so it crosses to any worker."""

    variant: str
    strategy: str
    columns: tuple[str, ...] = ()  # opt-in columns (names in ANALYSES) to compute for each row


def installed_version() -> str:
    """The version of triples in this process (a worker's, when run there)."""
    from triples import __version__

    return __version__


def rate_seed(variant: Variant, choose: Strategy, seed: int, version: str = "") -> Row:
    start = time.perf_counter()
    played = seeded(variant, seed)
    result = search.analyse(played)  # only reads the table, so the same deal is then played out
    play_out(played, choose)
    ms = (time.perf_counter() - start) * 1000.0
    return Row(
        seed=seed,
        autoplay=played.cleared,
        best=result.best,
        gap=result.best - played.cleared,
        won=result.best == variant.deck_size,
        states=result.states,
        ms=round(ms, 3),
        version=version,
    )


def rate_batch(options: RateOptions, seeds: list[int]) -> list[Row]:
    """The rows of a batch of seeds: the task that every executor runs, wherever it runs."""
    variant = variant_named(options.variant)
    choose = strategy_named(options.strategy)
    version = installed_version()
    rows = [rate_seed(variant, choose, seed, version) for seed in seeds]
    if options.columns:
        analyses = [(name, ANALYSES[name]) for name in options.columns]
        rows = [with_analyses(variant, row, analyses) for row in rows]
    return rows


def with_analyses(variant: Variant, row: Row, analyses: list[tuple[str, Analysis]]) -> Row:
    """The row with each analysis's column added in turn; each sees the columns before it."""
    for name, analysis in analyses:
        row = Row.from_values({**row_values(row), name: analysis(variant, row)})
    return row


def row_values(row: Row) -> dict[str, Value]:
    return {**{name: row.value(name) for name in CORE_COLUMNS}, "version": row.version, **row.extra}
