"""The rows of ``triples sweep``: one per rule set, what it is and how it is written and read back.

A row is the summary of ``triples rate`` over the sweep's seeds for one rule set: the varied
fields' values, the canonical variant name, the deals, and for best play, the row's strategy
(``autoplay``) and, with ``--fair``, the fair player: the mean cards cleared, the deals won, the
win rate and its 95% Wilson interval; with ``--difficulty`` the share of each band. The strategy,
the seed range and the version of triples close the row, so that a file resumed with other ones
is refused.

The three formats of ``triples rate`` (jsonl, csv, table) write these rows; every one can be
read back, which is how ``--out`` resumes by rule set.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass

import orjson

from triples import __version__
from triples.doors.rating.errors import BadInput
from triples.doors.rating.summary import Summary, wilson_interval
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant
from triples.model.variants import written

Value = int | float | str
SweepRow = dict[str, Value]

# The players a row reports on: best play, the row's strategy, and the fair player (--fair).
PLAYERS = ("best", "autoplay", "fair")
TEXT_FIELDS = ("deck", "court")  # the varied fields whose values are not integers


@dataclass(frozen=True)
class Column:
    name: str
    kind: type[int] | type[float] | type[str]
    percent: bool = False  # a fraction in 0..1: the text table writes it as a percentage
    width: int = 8  # in the text table, at least

    def text(self, value: Value) -> str:
        """The value as the text table writes it."""
        if self.kind is float:
            return f"{100 * float(value):.2f}%" if self.percent else f"{float(value):.3f}"
        return str(value)

    def parse_text(self, text: str) -> Value:
        """A value written by ``text`` (a percentage comes back to 1/10,000 of a point)."""
        if self.percent:
            if not text.endswith("%"):
                raise ValueError("not a percentage")
            return float(text[:-1]) / 100
        return self.kind(text)


def player_columns(player: str) -> list[Column]:
    return [
        Column(f"mean_{player}", float, width=max(9, len(player) + 5)),
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
    values: SweepRow = {name: varied_text(name, value) for name, value in varied.items()}
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


class Format:
    """One of rate's three formats, over a sweep's columns."""

    def __init__(self, name: str, columns: tuple[Column, ...]) -> None:
        self.name = name
        self.columns = columns

    @property
    def has_header(self) -> bool:
        return self.name != "jsonl"

    def header(self) -> str:
        if self.name == "csv":
            return self.csv_line([c.name for c in self.columns])
        return " ".join(f"{c.name:>{c.width}}" for c in self.columns)

    def line(self, row: SweepRow) -> str:
        if self.name == "jsonl":
            return orjson.dumps(row).decode()
        if self.name == "csv":
            return self.csv_line([str(row[c.name]) for c in self.columns])
        return " ".join(f"{c.text(row[c.name]):>{c.width}}" for c in self.columns)

    @staticmethod
    def csv_line(fields: list[str]) -> str:
        out = io.StringIO()
        csv.writer(out, lineterminator="").writerow(fields)  # variant names hold commas
        return out.getvalue()

    def split(self, line: str) -> list[str]:
        if self.name == "csv":
            return next(csv.reader([line]))
        return line.split()  # table: no value holds a space

    def parse(self, line: str) -> SweepRow:
        """The row a line holds; ValueError when it holds none of these columns."""
        if self.name == "jsonl":
            data = orjson.loads(line)
            if not isinstance(data, dict) or list(data) != [c.name for c in self.columns]:
                raise ValueError("not a row of these columns")
            if not all(of_kind(c.kind, data[c.name]) for c in self.columns):
                raise ValueError("not a row")
            return {c.name: float(data[c.name]) if c.kind is float else data[c.name] for c in self.columns}
        fields = self.split(line)
        if len(fields) != len(self.columns):
            raise ValueError("not a row of these columns")
        if self.name == "csv":
            return {c.name: c.kind(f) for c, f in zip(self.columns, fields, strict=True)}
        return {c.name: c.parse_text(f) for c, f in zip(self.columns, fields, strict=True)}


def of_kind(kind: type, value: object) -> bool:
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind


@dataclass(frozen=True)
class SweepRecord:
    """What a rows file holds, as read for resuming."""

    rows: dict[str, SweepRow]  # by variant name
    needs_header: bool
    whole_bytes: int | None  # where a last line cut off by a kill starts; None when there is none


def read_done(path: str, fmt: Format) -> SweepRecord:
    """The rows ``path`` already holds by variant name, read without changing the file.

    A file that is not rows of these columns (another sweep's, another format's) is refused; a
    last line cut off by a kill is no row (its rule set is rated again), and ``whole_bytes`` says
    where it starts, for ``open_out`` to cut it away once the resume is accepted.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return SweepRecord({}, fmt.has_header, None)
    except OSError as exc:
        raise BadInput(f"--out {path}: {exc.strerror or exc}") from None
    try:
        *lines, cut = data.decode().split("\n")
    except UnicodeDecodeError:
        raise BadInput(f"--out {path} is not a file of {fmt.name} sweep rows") from None
    if fmt.has_header and lines and fmt.split(lines[0]) != [c.name for c in fmt.columns]:
        raise BadInput(
            f"--out {path} line 1 is not the header of this sweep's {fmt.name} rows "
            "(another sweep, --format, --fair or --difficulty?): use a new file"
        )
    done: dict[str, SweepRow] = {}
    for number, line in enumerate(lines[1:] if fmt.has_header else lines, start=2 if fmt.has_header else 1):
        try:
            row = fmt.parse(line)
        except (ValueError, orjson.JSONDecodeError):
            raise BadInput(
                f"--out {path} line {number} is not a row of this sweep's {fmt.name} rows "
                "(another sweep, --format, --fair or --difficulty?): use a new file"
            ) from None
        done[str(row["variant"])] = row
    whole = len(data) - len(cut.encode()) if cut else None
    return SweepRecord(done, fmt.has_header and not lines, whole)


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
