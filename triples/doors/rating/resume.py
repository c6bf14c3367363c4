"""A file of rate's rows and what made it: reading one back to resume, and refusing one made
otherwise.

Every kept row ends with the columns ``variant``, ``strategy``, ``analyses`` and ``version``
(``Provenance``), so a jsonl or csv file stays a plain table that any tool reads, each row says
what made it, and files can be concatenated or loaded into one store keyed by those columns.

``check_resume(path, expected, fmt, columns)`` is what rate and pick call before appending: it
reads the file without changing it (``triples.doors.kit.rows_file``) and returns its rows,
or raises ``ResumeRefused`` naming what differs. Only appending (``open_for_append``) mends a
last line a killed run left unfinished, so a refused or read-only resume leaves the file byte
for byte.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from triples.doors.kit.rows_file import Column, ResumeRefused, RowsFile, RowsFormat, read_rows_file
from triples.doors.kit.rows_file import open_for_append as open_for_append  # re-exported: rate's rows file
from triples.doors.rating.rows import COLUMNS, PROVENANCE_COLUMNS, Provenance, Row, is_column_list, rate_columns


@dataclass(frozen=True)
class RowsRecord:
    """What a file of rate's rows holds, as read for resuming."""

    file: RowsFile
    rows: dict[int, Row] = field(default_factory=dict)  # by seed; the first row of a seed wins

    @property
    def format(self) -> RowsFormat:
        return self.file.format

    @property
    def needs_header(self) -> bool:
        return self.file.needs_header

    @property
    def path(self) -> str:
        return self.file.path


def read_record(path: str, fmt: RowsFormat) -> RowsRecord:
    """The rows in ``path`` (none when it does not exist), read without changing the file; a
    file that is not rows of ``fmt`` is refused."""
    last_seed = 10 ** (next((c.width for c in fmt.columns if c.name == "seed"), 4) - 1)

    def columns_of(names: tuple[str, ...]) -> tuple[Column, ...] | None:
        return rate_columns(names, last_seed) if is_column_list(names) else None

    found = read_rows_file(path, fmt, columns_of)
    rows: dict[int, Row] = {}
    for values in found.rows:
        row = Row.from_values(values)
        rows.setdefault(row.seed, row)
    return RowsRecord(found, rows)


def check_resume(path: str, expected: Provenance, fmt: RowsFormat, columns: tuple[str, ...]) -> RowsRecord:
    """The rows of ``path`` when this run may append to it: every row made as ``expected`` says,
    in the ``columns`` this run writes. Otherwise ``ResumeRefused`` in one line naming what
    differs; the file is never changed here."""
    record = read_record(path, fmt)
    found = record.format.names
    if not record.file.exists or (found == columns and not record.rows):
        fresh = RowsFile(
            path, fmt, [], record.file.whole_bytes, record.file.needs_header, record.file.regular
        )  # the run's own columns: nothing in the file says otherwise
        return RowsRecord(fresh, record.rows)
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


__all__ = ["COLUMNS", "RowsRecord", "check_resume", "open_for_append", "read_record"]
