"""Row formats (table, jsonl, csv): writing rows, and parsing them back (triples.doors.rating.resume
reads a whole file to resume it).

A format writes the columns it is given; a file's columns are read from its header (csv, table)
or its first row (jsonl).
"""

from __future__ import annotations

import csv
import io
from typing import Any

import orjson

from triples.doors.rating.rows import COLUMNS, Row, Value, is_column_list, row_values

FORMATS = ("table", "jsonl", "csv")


class RowFormat:
    """How rows are written and read back (for resuming) in one output format."""

    name = ""
    has_header = False
    won_words = ("false", "true")

    def __init__(self, columns: tuple[str, ...]) -> None:
        self.columns = columns

    def with_columns(self, columns: tuple[str, ...]) -> RowFormat:
        return type(self)(columns)

    def header(self) -> str:
        return ""

    def line(self, row: Row) -> str:
        raise NotImplementedError

    def parse(self, line: str) -> Row:
        """The row a line holds; ValueError when it holds none."""
        raise NotImplementedError

    def columns_of(self, first_line: str) -> tuple[str, ...] | None:
        """The columns of a file whose first line this is; None when it is not one of ours."""
        names = tuple(self.split(first_line))
        return names if is_column_list(names) else None

    def split(self, line: str) -> list[str]:
        return line.split(",")

    def could_begin_with(self, text: str) -> bool:
        """Whether ``text`` could be the start of a file this format wrote."""
        return self.header().startswith(text)

    def text(self, column: str, value: Value) -> str:
        if COLUMNS[column].kind is bool:
            return self.won_words[bool(value)]
        return str(value)

    def row_of_fields(self, fields: list[str]) -> Row:
        if len(fields) != len(self.columns):
            raise ValueError("not a row")
        return Row.from_values({c: self.value(c, f) for c, f in zip(self.columns, fields, strict=True)})

    def value(self, column: str, field: str) -> Value:
        kind = COLUMNS[column].kind
        if kind is bool:
            if field not in self.won_words:
                raise ValueError("not a row")
            return field == self.won_words[1]
        return kind(field)


class JsonLines(RowFormat):
    name = "jsonl"

    def could_begin_with(self, text: str) -> bool:
        opening = '{"seed":'
        return text.startswith(opening) or opening.startswith(text)

    def line(self, row: Row) -> str:
        values = row_values(row)
        return orjson.dumps({c: values[c] for c in self.columns}).decode()

    def columns_of(self, first_line: str) -> tuple[str, ...] | None:
        try:
            data = orjson.loads(first_line)
        except orjson.JSONDecodeError:
            return None
        names = tuple(data) if isinstance(data, dict) else ()
        return names if is_column_list(names) else None

    def parse(self, line: str) -> Row:
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise ValueError("not JSON") from None
        if not isinstance(data, dict) or tuple(data) != self.columns:
            raise ValueError("not a row")
        if not all(of_kind(COLUMNS[c].kind, v) for c, v in data.items()):
            raise ValueError("not a row")
        return Row.from_values({c: float(v) if COLUMNS[c].kind is float else v for c, v in data.items()})


def of_kind(kind: type, value: Any) -> bool:
    if kind is float:
        return type(value) in (int, float)
    return type(value) is kind


class Csv(RowFormat):
    """RFC 4180 rows: a field is quoted only when it must be (a variant's canonical name such as
    ``classic(slots=11,target=21)`` holds commas), so rows of plain fields stay plain."""

    name = "csv"
    has_header = True

    def header(self) -> str:
        return ",".join(self.columns)

    def line(self, row: Row) -> str:
        values = row_values(row)
        return csv_line([self.text(c, values[c]) for c in self.columns])

    def split(self, line: str) -> list[str]:
        return csv_fields(line)

    def parse(self, line: str) -> Row:
        return self.row_of_fields(csv_fields(line))


def csv_line(fields: list[str]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="").writerow(fields)
    return buffer.getvalue()


def csv_fields(line: str) -> list[str]:
    try:
        return next(csv.reader([line], strict=True), [])
    except csv.Error:
        raise ValueError("not a csv row") from None


class TextTable(RowFormat):
    name = "table"
    has_header = True
    won_words = ("no", "yes")

    def __init__(self, columns: tuple[str, ...], seed_width: int = 4) -> None:
        super().__init__(columns)
        self.seed_width = max(4, seed_width)

    def with_columns(self, columns: tuple[str, ...]) -> RowFormat:
        return TextTable(columns, self.seed_width)

    def width(self, column: str) -> int:
        return self.seed_width if column == "seed" else COLUMNS[column].width

    def header(self) -> str:
        return " ".join(f"{c:>{self.width(c)}}" for c in self.columns)

    def text(self, column: str, value: Value) -> str:
        if COLUMNS[column].kind is float:
            return f"{value:.{COLUMNS[column].digits}f}"
        return super().text(column, value)

    def line(self, row: Row) -> str:
        values = row_values(row)
        return " ".join(f"{self.text(c, values[c]):>{self.width(c)}}" for c in self.columns)

    def split(self, line: str) -> list[str]:
        return line.split()  # the seed column's width depends on the range

    def parse(self, line: str) -> Row:
        return self.row_of_fields(line.split())

    def could_begin_with(self, text: str) -> bool:
        return " ".join(self.columns).startswith(" ".join(text.split()))


def row_format(name: str, columns: tuple[str, ...], last_seed: int) -> RowFormat:
    if name == "jsonl":
        return JsonLines(columns)
    if name == "csv":
        return Csv(columns)
    return TextTable(columns, len(str(last_seed)))
