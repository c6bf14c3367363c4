"""What a row of ``triples rate`` is, and how one seed is rated into one.

Each seed is dealt twice from the same shuffle, exactly as ``["new", id, seed, variant]`` deals
it: one table is played out by the strategy, the other goes to the exact search.

Every row has the core columns. Further columns are registered here by name with the analysis
that computes them (``register_column``); a run asks for the ones it wants in
``RateOptions.columns``, and the formats write whichever columns they are given.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, cast

from triples.engines import search
from triples.engines.strategies import Strategy, play_out, strategy_named
from triples.model.deal import seeded
from triples.model.variant import Variant
from triples.model.variants import parse_variant

# The one record of what made a row; re-exported, as rate names it with the rows.
from triples.store import PROVENANCE_COLUMNS as PROVENANCE_COLUMNS
from triples.store import Provenance as Provenance

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
    ms: float  # the whole row's cost: the strategy, the search and every opt-in column
    version: str = ""  # of triples where the row was rated
    extra: Mapping[str, Value] = field(default_factory=dict)  # opt-in columns, by name
    variant: str = ""  # "" on rows read from a file without the column
    strategy: str = ""
    analyses: str = ""

    def value(self, column: str) -> Value:
        if column in self.extra:
            return self.extra[column]
        return cast(Value, getattr(self, column))

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.variant, self.strategy, self.analyses, self.version)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Row:
        """The row of a mapping of column names to values of the right kinds (see ``Column``)."""
        core = {name: values[name] for name in CORE_COLUMNS}
        made = {name: values.get(name, "") for name in PROVENANCE_COLUMNS}
        extra = {k: v for k, v in values.items() if k not in core and k not in made}
        return cls(**core, **made, extra=extra)


CORE_COLUMNS: tuple[str, ...] = ("seed", "autoplay", "best", "gap", "won", "states", "ms")
# The last columns of every jsonl and csv row and of a table kept in a file: what made the row.
# What a new jsonl or csv file holds without opt-in columns (they go between the two parts).
RECORD_COLUMNS: tuple[str, ...] = (*CORE_COLUMNS, *PROVENANCE_COLUMNS)

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
        Column("variant", str, 8),
        Column("strategy", str, 9),
        Column("analyses", str, 10),
        Column("version", str, 8, per_run=True),
    )
}
# The name of each set of opt-in columns in the ``analyses`` column (triples.doors.rating.columns adds
# ``fair`` and ``difficulty``); any other set is named by its columns joined with "+".
NAMED_ANALYSES: dict[tuple[str, ...], str] = {(): "none"}


def analyses_name(columns: tuple[str, ...]) -> str:
    return NAMED_ANALYSES.get(columns, "+".join(columns))


def record_columns(analyses: tuple[str, ...]) -> tuple[str, ...]:
    """The columns of a kept row: the core, the opt-in columns, then what made the row."""
    return (*CORE_COLUMNS, *analyses, *PROVENANCE_COLUMNS)


Analysis = Callable[[Variant, Row], Value]
"""An opt-in column's value for one seed, from the variant and the seed's row so far: its core
columns and the opt-in columns listed before this one (so a column can build on another)."""

ANALYSES: dict[str, Analysis] = {}


def register_column(column: Column, analysis: Analysis) -> None:
    """Make ``column`` known to the formats and computable on request."""
    COLUMNS[column.name] = column
    ANALYSES[column.name] = analysis


def is_column_list(names: tuple[str, ...]) -> bool:
    """Whether a file with these columns holds rows: the core first, then known columns."""
    rest = names[len(CORE_COLUMNS) :]
    return names[: len(CORE_COLUMNS)] == CORE_COLUMNS and len(set(rest)) == len(rest) and set(rest) <= set(COLUMNS)


@dataclass(frozen=True)
class RateOptions:
    """What to rate each seed with. Names rather than objects, so it crosses to any worker."""

    variant: str
    strategy: str
    columns: tuple[str, ...] = ()  # opt-in columns (names in ANALYSES) to compute for each row

    def provenance(self, version: str) -> Provenance:
        return Provenance(self.variant, self.strategy, analyses_name(self.columns), version)


def installed_version() -> str:
    """The version of triples in this process (a worker's, when run there)."""
    from triples import __version__

    return __version__


def rate_seed(variant: Variant, choose: Strategy, seed: int, made: Provenance | None = None) -> Row:
    """The core columns of a seed's row (``ms``: their cost), marked as ``made``."""
    made = made or Provenance("", "", "", "")
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
        version=made.version,
        variant=made.variant,
        strategy=made.strategy,
        analyses=made.analyses,
    )


def rate_batch(options: RateOptions, seeds: list[int]) -> list[Row]:
    """The rows of a batch of seeds: the task that every executor runs, wherever it runs."""
    return list(rate_rows(options, seeds))


def rate_rows(options: RateOptions, seeds: list[int]) -> Iterator[Row]:
    """Each seed's whole row as soon as it is done; its ``ms`` covers the opt-in columns too."""
    variant = parse_variant(options.variant)
    choose = strategy_named(options.strategy)
    made = options.provenance(installed_version())
    analyses = [(name, ANALYSES[name]) for name in options.columns]
    for seed in seeds:
        start = time.perf_counter()
        row = with_analyses(variant, rate_seed(variant, choose, seed, made), analyses)
        yield replace(row, ms=round((time.perf_counter() - start) * 1000.0, 3))


def with_analyses(variant: Variant, row: Row, analyses: list[tuple[str, Analysis]]) -> Row:
    """The row with each analysis's column added in turn; each sees the columns before it."""
    for name, analysis in analyses:
        row = Row.from_values({**row_values(row), name: analysis(variant, row)})
    return row


def row_values(row: Row) -> dict[str, Value]:
    made = {name: getattr(row, name) for name in PROVENANCE_COLUMNS}
    return {**{name: row.value(name) for name in CORE_COLUMNS}, **made, **row.extra}
