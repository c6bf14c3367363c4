"""The rows of ``triples sweep``: one per rule set, what it is and how it is written and read back.

A row is the summary of ``triples rate`` over the sweep's seeds for one rule set: the varied
fields' values, the canonical variant name, the deals, and for best play, the row's strategy
(``autoplay``) and, with ``--fair``, the fair player: the mean cards cleared, the deals won, the
win rate and its 95% Wilson interval; with ``--difficulty`` the share of each band. The strategy,
the seed range and the version of triples close the row, so that a file resumed with other ones
is refused.

The three formats of every rows file (``triples.doors.kit.rows_file``: jsonl, csv, table)
write these rows; every one can be read back, which is how ``--out`` resumes by rule set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from triples import __version__
from triples.doors.kit.exits import BadInput
from triples.doors.kit.rows_file import Column, RowsFile, RowsFormat, Value, Wording, read_rows_file
from triples.doors.rating.summary import Summary, wilson_interval
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant
from triples.model.variants import written

SweepRow = Mapping[str, Value]

# The players a row reports on: best play, the row's strategy, and the fair player (--fair).
PLAYERS = ("best", "autoplay", "fair")
TEXT_FIELDS = ("deck", "court")  # the varied fields whose values are not integers


def player_columns(player: str) -> list[Column]:
    return [
        Column(f"mean_{player}", float, width=max(9, len(player) + 5), digits=3),
        Column(f"{player}_wins", int, width=max(9, len(player) + 5)),
        Column(f"win_{player}", float, percent=True),
        Column(f"win_{player}_low", float, percent=True, width=len(player) + 8),
        Column(f"win_{player}_high", float, percent=True, width=len(player) + 9),
    ]


def columns_for(varied: tuple[str, ...], fair: bool, difficulty: bool, name_width: int = 7) -> tuple[Column, ...]:
    """The columns of a sweep's rows, in the order they are written; ``name_width``: the longest
    variant name, so that the text table's columns line up."""
    columns = [Column(name, str if name in TEXT_FIELDS else int, width=max(5, len(name))) for name in varied]
    columns += [Column("variant", str, width=max(7, name_width)), Column("deals", int, width=6)]
    for player in PLAYERS[:3] if fair or difficulty else PLAYERS[:2]:
        columns += player_columns(player)
    if difficulty:
        columns += [Column(band, float, percent=True) for band in BANDS]
    columns += [Column("strategy", str, width=8), Column("seeds", str, width=5), Column("version", str, width=7)]
    return tuple(columns)


def varied_text(field: str, value: object) -> Value:
    """A varied field's value as a row holds it: court as ``J/Q/K``."""
    return written(value) if field in TEXT_FIELDS else int(str(value))


def sweep_row(
    varied: Mapping[str, object], variant: Variant, summary: Summary, seeds: str, columns: tuple[Column, ...]
) -> SweepRow:
    """The row of one rule set from the summary of its deals (the numbers ``triples rate``
    reports for the same variant and seeds)."""
    values: dict[str, Value] = {name: varied_text(name, value) for name, value in varied.items()}
    values |= {"variant": variant.name, "deals": summary.deals}
    totals = {
        "best": (summary.best_total, summary.best_wins, summary.deals),
        "autoplay": (summary.autoplay_total, summary.strategy_wins, summary.deals),
        "fair": (summary.fair_total, summary.fair_wins, summary.fair_deals),
    }
    names = {column.name for column in columns}
    for player, (total, wins, deals) in totals.items():
        if f"win_{player}" in names:
            low, high = wilson_interval(wins, deals)
            values |= {
                f"mean_{player}": total / deals,
                f"{player}_wins": wins,
                f"win_{player}": wins / deals,
                f"win_{player}_low": low,
                f"win_{player}_high": high,
            }
    for band in BANDS:
        if band in names:
            values[band] = summary.band_counts[band] / summary.band_deals
    values |= {"strategy": summary.strategy, "seeds": seeds, "version": __version__}
    return {column.name: values[column.name] for column in columns}


@dataclass(frozen=True)
class SweepRecord:
    """What a rows file holds, as read for resuming."""

    rows: dict[str, SweepRow]  # by variant name
    file: RowsFile


# How refusals name a sweep's rows.
SWEEP_WORDING = Wording(
    row="a row of this sweep's {fmt} rows",
    header="the header of this sweep's {fmt} rows",
    file="a file of {fmt} sweep rows",
    hint=" (another sweep, --format, --fair or --difficulty?): use a new file",
)


def read_done(path: str, fmt: RowsFormat) -> SweepRecord:
    """The rows ``path`` already holds by variant name, read without changing the file.

    A file that is not rows of these columns (another sweep's, another format's, somebody's
    notes) is refused; a last line cut off by a kill is no row (its rule set is rated again),
    and is cut away once the resume is accepted (``rows_file.open_for_append``).
    """

    def columns_of(names: tuple[str, ...]) -> tuple[Column, ...] | None:
        return fmt.columns if names == fmt.names else None

    found = read_rows_file(path, fmt, columns_of, SWEEP_WORDING)
    return SweepRecord({str(row["variant"]): row for row in found.rows}, found)


def check_same_run(path: str, done: Mapping[str, SweepRow], strategy: str, seeds: str) -> None:
    """Rows rated with another strategy, on other seeds or by another version are not this sweep's."""
    for row in done.values():
        if row["strategy"] != strategy or row["seeds"] != seeds:
            raise BadInput(
                f"--out {path} holds {row['variant']} rated with --strategy {row['strategy']} on seeds "
                f"{row['seeds']}, not {strategy} on {seeds}: use a new file"
            )
        if row["version"] != __version__:
            raise BadInput(
                f"--out {path} holds {row['variant']} rated by triples {row['version']}, not "
                f"{__version__}: use a new file"
            )


# What --plot can draw, and how its axis is labelled; fair and band measures need their option.
MEASURES: dict[str, str] = {
    "win_best": "win rate of best play",
    "mean_best": "mean cards cleared by best play",
    "win_autoplay": "win rate of the strategy",
    "mean_autoplay": "mean cards cleared by the strategy",
    "win_fair": "win rate of the fair player",
    "mean_fair": "mean cards cleared by the fair player",
    "easy": "share of easy deals",
    "medium": "share of medium deals",
    "hard": "share of hard deals",
}
