"""Files of rows, the one layer for every command that writes them: columns, the three formats
(table, jsonl, csv), and reading a file back to resume it.

A command describes its rows as a tuple of ``Column``s (``triples rate``: one row per seed,
``triples sweep``: one row per rule set); a ``RowsFormat`` writes and parses rows of those
columns, each row a mapping of column names to values; ``read_rows_file`` reads what a file
already holds without changing it, and ``open_for_append`` appends to it, cutting away first a
last line that a killed run left unfinished.

Reading is careful with what it is given: only a regular file is read (``--out /dev/stdout``
or a pipe is written to, never read), a line at a time and never longer than ``LONGEST_LINE``,
and anything that is not rows of this format (a file of notes, another command's rows) is
refused in one line and left byte for byte as it was. A last line without its newline counts as
a cut row only when it could be the start of one; otherwise it is somebody's text, and the
file is refused.
"""

from __future__ import annotations

import csv
import io
import os
import stat
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, cast

import orjson

from triples.doors.kit.exits import BadInput

Value = int | float | bool | str | None
Kind = type[int] | type[float] | type[bool] | type[str]
FORMATS = ("table", "jsonl", "csv")
# No row of any command is near this long: a longer line is not a row, and is not read whole.
LONGEST_LINE = 1 << 20


class ResumeRefused(BadInput):
    """A rows file this run cannot append to (not rows, or rows made otherwise); the file is
    left byte for byte as it was."""


@dataclass(frozen=True)
class Column:
    """One column: its name, the kind of its values, and how the text table writes it."""

    name: str
    kind: Kind
    width: int = 8  # in the text table, at least
    digits: int = 2  # a float's decimals in the text table
    percent: bool = False  # a share in 0..1: the text table writes it as a percentage
    per_run: bool = False  # depends on the machine or the run, not on the deal: left out when rows are compared
    optional: bool = False  # may hold None (unknown): null in jsonl, an empty field in csv, "-" in the table

    def of_kind(self, value: object) -> bool:
        if value is None:
            return self.optional
        if self.kind is float:
            return type(value) in (int, float)
        return type(value) is self.kind


Row = Mapping[str, Value]


class RowsFormat:
    """How rows of ``columns`` are written and parsed back in one format."""

    name = ""
    has_header = False
    bool_words = ("false", "true")
    unknown_word = ""  # how an optional column's None is written

    def __init__(self, columns: tuple[Column, ...]) -> None:
        self.columns = columns

    def with_columns(self, columns: tuple[Column, ...]) -> RowsFormat:
        return type(self)(columns)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(column.name for column in self.columns)

    def header(self) -> str:
        return ""

    def line(self, row: Row) -> str:
        raise NotImplementedError

    def fields(self, line: str) -> list[str]:
        """A line's fields as text; ValueError when it cannot be split into fields."""
        raise NotImplementedError

    def names_in(self, first_line: str) -> tuple[str, ...]:
        """The column names a file whose first line this is was written with (none: not ours)."""
        try:
            return tuple(self.fields(first_line))
        except ValueError:
            return ()

    def parse(self, line: str) -> dict[str, Value]:
        """The row a line holds; ValueError when it holds no row of these columns."""
        found = self.fields(line)
        if len(found) != len(self.columns):
            raise ValueError("not a row")
        return {column.name: self.value(column, text) for column, text in zip(self.columns, found, strict=True)}

    def text(self, column: Column, value: Value) -> str:
        if value is None:
            return self.unknown_word
        if column.kind is bool:
            return self.bool_words[bool(value)]
        return str(value)

    def value(self, column: Column, text: str) -> Value:
        if column.optional and text == self.unknown_word:
            return None
        if column.kind is bool:
            if text not in self.bool_words:
                raise ValueError("not a row")
            return text == self.bool_words[1]
        return column.kind(text)

    def could_begin_file(self, text: str) -> bool:
        """Whether ``text`` (no newline) could be the start of a file this format writes."""
        return self.header().startswith(text) if self.has_header else self.could_begin_row(text)

    def could_begin_row(self, text: str) -> bool:
        """Whether ``text`` could be the start of a row: every whole field of the right kind."""
        try:
            *whole, _ = self.fields(text)
            for column, part in zip(self.columns, whole, strict=False):
                self.value(column, part)  # raises for a field that is not of its column's kind
            return len(whole) < len(self.columns)
        except ValueError:
            return False


class JsonLines(RowsFormat):
    name = "jsonl"

    def line(self, row: Row) -> str:
        return orjson.dumps({name: row[name] for name in self.names}).decode()

    def names_in(self, first_line: str) -> tuple[str, ...]:
        try:
            data = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            return ()
        return tuple(data) if isinstance(data, dict) else ()

    def parse(self, line: str) -> dict[str, Value]:
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise ValueError("not JSON") from None
        if not isinstance(data, dict) or tuple(data) != self.names:
            raise ValueError("not a row")
        if not all(column.of_kind(data[column.name]) for column in self.columns):
            raise ValueError("not a row")
        return {
            c.name: float(data[c.name]) if c.kind is float and data[c.name] is not None else data[c.name]
            for c in self.columns
        }

    def could_begin_row(self, text: str) -> bool:
        opening = orjson.dumps(self.names[0]).decode() if self.columns else ""
        start = "{" + opening + ":"
        return text.startswith(start) or start.startswith(text)


class Csv(RowsFormat):
    """RFC 4180 rows: a field is quoted only when it must be (a variant's canonical name such as
    ``classic(slots=11,target=21)`` holds commas), so rows of plain fields stay plain."""

    name = "csv"
    has_header = True

    def header(self) -> str:
        return csv_line(list(self.names))

    def line(self, row: Row) -> str:
        return csv_line([self.text(column, row[column.name]) for column in self.columns])

    def fields(self, line: str) -> list[str]:
        try:
            return next(csv.reader([line], strict=True), [])
        except csv.Error:
            raise ValueError("not a csv row") from None


def csv_line(fields: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(fields)
    return buffer.getvalue()


class TextTable(RowsFormat):
    """Columns right-aligned to their widths; no value holds a space."""

    name = "table"
    has_header = True
    bool_words = ("no", "yes")
    unknown_word = "-"

    def header(self) -> str:
        return " ".join(f"{column.name:>{column.width}}" for column in self.columns)

    def line(self, row: Row) -> str:
        return " ".join(f"{self.text(column, row[column.name]):>{column.width}}" for column in self.columns)

    def text(self, column: Column, value: Value) -> str:
        if column.kind is float and value is not None:
            number = float(value)
            return f"{100 * number:.{column.digits}f}%" if column.percent else f"{number:.{column.digits}f}"
        return super().text(column, value)

    def value(self, column: Column, text: str) -> Value:
        if column.percent and text != self.unknown_word:
            if not text.endswith("%"):
                raise ValueError("not a percentage")
            return float(text[:-1]) / 100
        return super().value(column, text)

    def fields(self, line: str) -> list[str]:
        return line.split()

    def could_begin_file(self, text: str) -> bool:
        return " ".join(self.names).startswith(" ".join(text.split()))


def format_named(name: str, columns: tuple[Column, ...]) -> RowsFormat:
    if name == "jsonl":
        return JsonLines(columns)
    if name == "csv":
        return Csv(columns)
    return TextTable(columns)


@dataclass(frozen=True)
class Wording:
    """How refusals name a command's rows: ``{fmt}`` stands for the format's name."""

    row: str = "a {fmt} row"
    header: str = "the {fmt} header"
    file: str = "a file of {fmt} rows"
    hint: str = " (is --format right?)"


@dataclass(frozen=True)
class RowsFile:
    """What a rows file holds, as read for resuming."""

    path: str
    format: RowsFormat  # with the file's own columns
    rows: list[dict[str, Value]] = field(default_factory=list)  # in file order
    whole_bytes: int = 0  # the length of its whole lines: a cut last line past it is dropped on appending
    needs_header: bool = True  # a new (or empty) file of a format with a header
    regular: bool = True  # a regular file (or none yet); anything else is written to, never read

    @property
    def exists(self) -> bool:
        return self.whole_bytes > 0 or bool(self.rows)


ColumnsOf = Callable[[tuple[str, ...]], tuple[Column, ...] | None]


def read_rows_file(path: str, fmt: RowsFormat, columns_of: ColumnsOf, wording: Wording = Wording()) -> RowsFile:
    """The rows in ``path``, read without changing the file: none when it does not exist or is
    not a regular file. ``columns_of`` turns the names the file's first line gives into its
    columns, or None when they are not this command's. A file that is not rows of ``fmt`` is
    refused (``ResumeRefused``, one line), since appending to it would ruin it."""
    try:
        kind = os.stat(path).st_mode
    except FileNotFoundError:
        return RowsFile(path, fmt, needs_header=fmt.has_header)
    except OSError as exc:
        raise BadInput(f"--out {path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(kind):  # a terminal, a pipe, /dev/null or /dev/full: nothing to resume
        return RowsFile(path, fmt, needs_header=fmt.has_header, regular=False)

    def refused(what: str) -> ResumeRefused:
        return ResumeRefused(f"--out {path} {what.format(fmt=fmt.name)}{wording.hint}")

    rows: list[dict[str, Value]] = []
    whole = 0
    cut = ""
    try:
        with open(path, "rb") as source:
            for number, raw in enumerate(lines_of(source, path), start=1):
                try:
                    text = raw.decode()
                except UnicodeDecodeError:
                    raise refused("is not " + wording.file) from None
                if not text.endswith("\n"):
                    cut = text
                    break
                line = text[:-1]
                if number == 1:
                    columns = columns_of(fmt.names_in(line))
                    if columns is None:
                        raise refused("line 1 is not " + (wording.header if fmt.has_header else wording.row))
                    fmt = fmt.with_columns(columns)
                    if fmt.has_header:
                        whole += len(raw)
                        continue
                try:
                    rows.append(fmt.parse(line))
                except ValueError:
                    raise refused(f"line {number} is not " + wording.row) from None
                whole += len(raw)
    except OSError as exc:
        raise BadInput(f"--out {path}: {exc.strerror or exc}") from None
    if cut and not (fmt.could_begin_row(cut) if whole else fmt.could_begin_file(cut)):
        raise refused("is not " + wording.file)  # a line nobody could have cut from a row: somebody's text
    return RowsFile(path, fmt, rows, whole, fmt.has_header and whole == 0)


def lines_of(source: IO[bytes], path: str) -> Iterator[bytes]:
    """The file's lines, each with its newline (the last one may lack it); ResumeRefused for a
    line longer than any row, without reading it whole."""
    while line := source.readline(LONGEST_LINE + 1):
        if len(line) > LONGEST_LINE:
            raise ResumeRefused(f"--out {path} holds a line of more than {LONGEST_LINE} bytes: it is no file of rows")
        yield line


class OutFile:
    """Where rows are appended: the ``--out`` file, whose failures (a full disk, ``/dev/full``,
    a reader gone) are one line naming it, not a defect."""

    def __init__(self, path: str, file: IO[str]) -> None:
        self.path = path
        self.file = file

    def failed(self, exc: OSError) -> BadInput:
        return BadInput(f"--out {self.path}: {exc.strerror or exc}")

    def write(self, text: str) -> int:
        try:
            return self.file.write(text)
        except OSError as exc:
            raise self.failed(exc) from None

    def flush(self) -> None:
        try:
            self.file.flush()
        except OSError as exc:
            raise self.failed(exc) from None

    def isatty(self) -> bool:
        return self.file.isatty()


@contextmanager
def open_for_append(record: RowsFile) -> Iterator[IO[str]]:
    """The file of ``record`` opened to append rows, a cut last line dropped first (only in a
    regular file: anything else is written to as it is)."""
    try:
        sink = open(record.path, "a", encoding="utf-8")  # noqa: SIM115 (a refusal to open is the user's to see)
    except OSError as exc:
        raise BadInput(f"--out {record.path}: {exc.strerror or exc}") from None
    out = OutFile(record.path, sink)
    try:
        if record.regular and sink.tell() > record.whole_bytes:
            sink.truncate(record.whole_bytes)
        yield cast(IO[str], out)
    finally:
        try:
            sink.close()
        except OSError as exc:  # the last buffered rows could not be written
            raise out.failed(exc) from None
