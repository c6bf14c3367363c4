"""A rows file and what made it: reading one back to resume, and refusing one made otherwise.

Every kept row ends with the columns ``variant``, ``strategy``, ``analyses`` and ``version``
(``Provenance``), so a jsonl or csv file stays a plain table that any tool reads, each row says
what made it, and files can be concatenated or loaded into one store keyed by those columns.

``check_resume(path, expected, fmt)`` is what rate, pick (and any command that appends rows)
call before appending: it reads the file without changing it and returns its rows, or raises
``ResumeRefused`` naming what differs. Only appending (``open_for_append``) mends a last line a
killed run left unfinished, so a refused or read-only resume leaves the file byte for byte.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO

from triples.doors.rating.errors import BadInput, ResumeRefused
from triples.doors.rating.formats import RowFormat
from triples.doors.rating.rows import PROVENANCE_COLUMNS, Provenance, Row


@dataclass(frozen=True)
class RowsRecord:
    """What a rows file holds, as read for resuming."""

    path: str
    format: RowFormat  # with the file's own columns
    rows: dict[int, Row] = field(default_factory=dict)  # by seed; the first row of a seed wins
    whole_bytes: int = 0  # the length of its whole lines: a cut last line past it is dropped on appending
    needs_header: bool = True  # a new (or empty) file of a format with a header

    @property
    def exists(self) -> bool:
        return self.whole_bytes > 0 or bool(self.rows)


def read_record(path: str, fmt: RowFormat) -> RowsRecord:
    """The rows in ``path`` (none when it does not exist), read without changing the file.

    A run that was killed can leave a last line without its newline: it is not a row (its seed
    is rated again), and ``whole_bytes`` stops before it. A file that is not rows of ``fmt`` is
    refused, since appending to it would ruin it.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return RowsRecord(path, fmt, needs_header=fmt.has_header)
    except OSError as exc:
        raise BadInput(f"--out {path}: {exc.strerror or exc}") from None
    refusal = f"--out {path} is not a file of {fmt.name} rows (is --format right?)"
    try:
        *lines, cut = data.decode().split("\n")
    except UnicodeDecodeError:
        raise ResumeRefused(refusal) from None
    if lines:
        columns = fmt.columns_of(lines[0])
        if columns is None:
            what = f"the {fmt.name} header" if fmt.has_header else f"a {fmt.name} row"
            raise ResumeRefused(f"--out {path} line 1 is not {what} (is --format right?)")
        fmt = fmt.with_columns(columns)
    elif cut and not fmt.could_begin_with(cut):  # nothing shows the file is ours
        raise ResumeRefused(refusal)
    done: dict[int, Row] = {}
    for number, line in enumerate(lines, start=1):
        if number == 1 and fmt.has_header:
            continue
        try:
            row = fmt.parse(line)
        except ValueError:
            raise ResumeRefused(f"--out {path} line {number} is not a {fmt.name} row (is --format right?)") from None
        done.setdefault(row.seed, row)
    whole = len(data) - len(cut.encode())
    return RowsRecord(path, fmt, done, whole, fmt.has_header and not lines)


def check_resume(path: str, expected: Provenance, fmt: RowFormat, columns: tuple[str, ...]) -> RowsRecord:
    """The rows of ``path`` when this run may append to it: every row made as ``expected`` says,
    in the ``columns`` this run writes. Otherwise ``ResumeRefused`` in one line naming what
    differs; the file is never changed here."""
    record = read_record(path, fmt)
    if not record.exists or (record.format.columns == columns and not record.rows):
        return RowsRecord(path, fmt.with_columns(columns), record.rows, record.whole_bytes, record.needs_header)
    found = record.format.columns
    if not set(PROVENANCE_COLUMNS) <= set(found):
        raise ResumeRefused(
            f"--out {path} does not say what made its rows (it has no variant, strategy, analyses and version "
            "columns; an older triples wrote it): rate into a new file"
        )
    for row in record.rows.values():
        differences = row.provenance.differences(expected)
        if differences:
            raise ResumeRefused(
                f"--out {path} holds rows of {', '.join(differences)} at seed {row.seed}: "
                "use the same options, or another file"
            )
    if found != columns:  # same provenance, other columns: a file edited by hand
        raise ResumeRefused(f"--out {path} has the columns {','.join(found)}, not {','.join(columns)}")
    return record


@contextmanager
def open_for_append(record: RowsRecord) -> Iterator[IO[str]]:
    """The file of ``record`` opened to append rows, a cut last line dropped first."""
    try:
        sink = open(record.path, "a", encoding="utf-8")  # noqa: SIM115 (a refusal to open is the user's to see)
    except OSError as exc:
        raise BadInput(f"--out {record.path}: {exc.strerror or exc}") from None
    with sink:
        if sink.tell() > record.whole_bytes:
            sink.truncate(record.whole_bytes)
        yield sink
