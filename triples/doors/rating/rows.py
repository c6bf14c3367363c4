"""What a row of ``triples rate`` is: its columns, the ``Row`` of one seed, and what made it.

Every row has the core columns; ``--fair`` and ``--difficulty`` add the opt-in columns ``fair``,
``p_random`` and ``band`` (computed by ``triples.doors.rating.seed_rows``); every kept row ends
with what made it (``Provenance``). All of them are declared here, once, in ``COLUMNS``: the
formats of ``triples.doors.kit.rows_file`` write whichever of them a run asks for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, cast

from triples.doors.kit.rows_file import Column, RowsFormat, Value, format_named

# The one record of what made a row; re-exported, as rate names it with the rows.
from triples.store import PROVENANCE_COLUMNS as PROVENANCE_COLUMNS
from triples.store import Provenance as Provenance


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

FAIR = "fair"
P_RANDOM = "p_random"
BAND = "band"
# What --fair and --difficulty add to a row, in the order the columns are computed and written.
FAIR_COLUMNS: tuple[str, ...] = (FAIR,)
DIFFICULTY_COLUMNS: tuple[str, ...] = (FAIR, P_RANDOM, BAND)

# Every column a row can carry, in the order they are written; read-only once loaded.
_COLUMNS: dict[str, Column] = {
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
        Column(FAIR, int, 4),
        # None when random play has more ways to go than the state limit lets be counted.
        Column(P_RANDOM, float, 8, digits=4, optional=True),
        Column(BAND, str, 6),
    )
}
COLUMNS: Mapping[str, Column] = MappingProxyType(_COLUMNS)
# The name of each set of opt-in columns in the ``analyses`` column; any other set is named by
# its columns joined with "+".
NAMED_ANALYSES: Mapping[tuple[str, ...], str] = MappingProxyType(
    {(): "none", FAIR_COLUMNS: "fair", DIFFICULTY_COLUMNS: "difficulty"}
)


def analyses_name(columns: tuple[str, ...]) -> str:
    return NAMED_ANALYSES.get(columns, "+".join(columns))


def record_columns(analyses: tuple[str, ...]) -> tuple[str, ...]:
    """The columns of a kept row: the core, the opt-in columns, then what made the row."""
    return (*CORE_COLUMNS, *analyses, *PROVENANCE_COLUMNS)


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


def row_values(row: Row) -> dict[str, Value]:
    made = {name: getattr(row, name) for name in PROVENANCE_COLUMNS}
    return {**{name: row.value(name) for name in CORE_COLUMNS}, **made, **row.extra}


def rate_columns(names: tuple[str, ...], last_seed: int) -> tuple[Column, ...]:
    """The columns of these names, the seed's as wide as the range's last seed."""
    seed_width = max(4, len(str(last_seed)))
    return tuple(replace(COLUMNS[name], width=seed_width) if name == "seed" else COLUMNS[name] for name in names)


def rate_format(name: str, names: tuple[str, ...], last_seed: int) -> RowsFormat:
    """The format ``name`` over the columns of these names (see ``rate_columns``)."""
    return format_named(name, rate_columns(names, last_seed))


def line_of(fmt: RowsFormat, row: Row) -> str:
    return fmt.line(row_values(row))
