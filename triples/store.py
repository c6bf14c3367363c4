"""The ratings store: one SQLite file that keeps rated rows and the daily calendar.

Why SQLite from the standard library (``sqlite3``) rather than a wrapper or a server: the store
is one file a designer can copy, back up or open with the ``sqlite3`` shell; several commands
use it at once (one writing while others read) and SQLite's write-ahead log gives exactly that
without a server; and the standard library adds no dependency to the lean core. The queries are
few and fixed, so an ORM would only hide them.

What is kept:

- ``provenance``: what produced rows, as rows files record it: the variant's canonical name, the
  strategy, the analyses (the name of the opt-in columns asked for) and the version of triples.
  A row is reused only under exactly the same four.
- ``rows``: one per (provenance, seed): the row's other values as a JSON object (the seed and
  the provenance are its key, not repeated).
- ``calendar``: one deal per (variant, date), and no seed twice in a variant's calendar. A date,
  once set, is never changed by this module: the calendar only grows.

Transactions: reads run one statement at a time in autocommit mode, each seeing a committed
state; writes take the write lock up front (``BEGIN IMMEDIATE``) so that a writer waits for
another (up to ``BUSY_TIMEOUT_SECONDS``) instead of failing mid-transaction. Nothing here
imports the command line or the service: both use it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from triples.support.errors import TriplesError

SCHEMA_VERSION = 1
APPLICATION_ID = 0x54524950  # "TRIP": marks a SQLite file as a triples store
BUSY_TIMEOUT_SECONDS = 60.0
# How `triples serve --db` tells the server's processes (which import the application by name)
# the store whose calendar GET /daily serves: they inherit the environment.
SERVE_DB_VARIABLE = "TRIPLES_SERVE_DB"

SCHEMA = """
CREATE TABLE provenance (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    strategy TEXT NOT NULL,
    analyses TEXT NOT NULL,
    version TEXT NOT NULL,
    UNIQUE (variant, strategy, analyses, version)
);
CREATE TABLE rows (
    provenance INTEGER NOT NULL REFERENCES provenance (id),
    seed INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (provenance, seed)
) WITHOUT ROWID;
CREATE TABLE calendar (
    variant TEXT NOT NULL,
    date TEXT NOT NULL,
    seed INTEGER NOT NULL,
    spec TEXT NOT NULL,
    band TEXT NOT NULL,
    best INTEGER NOT NULL,
    fair INTEGER NOT NULL,
    p_random REAL NOT NULL,
    PRIMARY KEY (variant, date),
    UNIQUE (variant, seed)
) WITHOUT ROWID;
CREATE INDEX calendar_by_date ON calendar (date);
"""

Value = int | float | bool | str


class StoreError(TriplesError):
    """The store cannot be used: reported in one line."""


PROVENANCE_COLUMNS: tuple[str, ...] = ("variant", "strategy", "analyses", "version")


@dataclass(frozen=True)
class Provenance:
    """What made a row: every column but the timing is a function of these and the seed.

    Rows files carry it on every row (the columns of ``PROVENANCE_COLUMNS``), so a file resumed
    with other options is refused instead of mixed, and the store keys rows by it: a row is
    reused only under exactly the same provenance. ``variant`` is the canonical name;
    ``analyses`` names the opt-in columns asked for: ``none``, ``fair`` (--fair) or
    ``difficulty`` (--difficulty, which brings fair along).
    """

    variant: str
    strategy: str
    analyses: str
    version: str

    def differences(self, wanted: Provenance) -> list[str]:
        """``name this (not wanted)`` for each field where this differs from ``wanted``."""
        return [
            f"{name} {getattr(self, name)} (not {getattr(wanted, name)})"
            for name in PROVENANCE_COLUMNS
            if getattr(self, name) != getattr(wanted, name)
        ]


@dataclass(frozen=True)
class Deal:
    """One date of a variant's calendar."""

    date: str  # YYYY-MM-DD
    variant: str  # canonical name
    seed: int
    spec: Any  # what ``new`` takes as its variant (a name, or a rule-set object)
    band: str
    best: int
    fair: int
    p_random: float


class Store:
    """An open store. Use ``open_store(path)``; close with ``close()`` or a ``with`` block."""

    def __init__(self, connection: sqlite3.Connection, path: str) -> None:
        self.connection = connection
        self.path = path
        self._provenance_ids: dict[Provenance, int] = {}

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A write transaction, holding the write lock from its start."""
        with self.failures():
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self.connection
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")

    @contextmanager
    def failures(self) -> Iterator[None]:
        """SQLite's errors as one line naming the file."""
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(f"--db {self.path}: {exc}") from None

    # ------------------------------------------------------------ rows

    def provenance_id(self, provenance: Provenance, create: bool) -> int | None:
        known = self._provenance_ids.get(provenance)
        if known is not None:
            return known
        key = (provenance.variant, provenance.strategy, provenance.analyses, provenance.version)
        select = "SELECT id FROM provenance WHERE variant = ? AND strategy = ? AND analyses = ? AND version = ?"
        with self.failures():
            found = self.connection.execute(select, key).fetchone()
            if found is None and create:
                with self.writing() as db:
                    db.execute(
                        "INSERT OR IGNORE INTO provenance (variant, strategy, analyses, version) VALUES (?, ?, ?, ?)",
                        key,
                    )
                    found = db.execute(select, key).fetchone()
        if found is None:
            return None
        self._provenance_ids[provenance] = found[0]
        return int(found[0])

    def rows(self, provenance: Provenance, first: int, last: int) -> Iterator[tuple[int, dict[str, Value]]]:
        """The stored rows of seeds ``first``..``last``, in seed order, as (seed, values)."""
        pid = self.provenance_id(provenance, create=False)
        if pid is None:
            return
        query = "SELECT seed, data FROM rows WHERE provenance = ? AND seed >= ? AND seed <= ? ORDER BY seed"
        with self.failures():
            for seed, data in self.connection.execute(query, (pid, first, last)):
                yield seed, orjson.loads(data)

    def stored_seeds(self, provenance: Provenance, first: int, last: int) -> Iterator[int]:
        """The seeds of ``first``..``last`` with a stored row, in seed order."""
        pid = self.provenance_id(provenance, create=False)
        if pid is None:
            return
        query = "SELECT seed FROM rows WHERE provenance = ? AND seed >= ? AND seed <= ? ORDER BY seed"
        with self.failures():
            for (seed,) in self.connection.execute(query, (pid, first, last)):
                yield seed

    def count(self, provenance: Provenance, first: int, last: int) -> int:
        pid = self.provenance_id(provenance, create=False)
        if pid is None:
            return 0
        query = "SELECT count(*) FROM rows WHERE provenance = ? AND seed >= ? AND seed <= ?"
        with self.failures():
            return int(self.connection.execute(query, (pid, first, last)).fetchone()[0])

    def put(self, provenance: Provenance, rows: Iterable[tuple[int, Mapping[str, Value]]]) -> None:
        """Keep ``rows`` (seed, values); a seed already stored under ``provenance`` keeps its row."""
        pid = self.provenance_id(provenance, create=True)
        records = [(pid, seed, orjson.dumps(dict(values))) for seed, values in rows]
        if records:
            with self.writing() as db:
                db.executemany("INSERT OR IGNORE INTO rows (provenance, seed, data) VALUES (?, ?, ?)", records)

    # ------------------------------------------------------------ the calendar

    def calendar(self, variant: str) -> dict[str, Deal]:
        """The variant's calendar by date."""
        query = "SELECT * FROM calendar WHERE variant = ? ORDER BY date"
        with self.failures():
            return {deal.date: deal for deal in map(deal_of, self.connection.execute(query, (variant,)))}

    def deals_on(self, date: str) -> list[Deal]:
        """Every variant's deal of ``date``, by variant name."""
        query = "SELECT * FROM calendar WHERE date = ? ORDER BY variant"
        with self.failures():
            return [deal_of(record) for record in self.connection.execute(query, (date,))]

    def add_deals(self, connection: sqlite3.Connection, deals: Iterable[Deal]) -> None:
        """Add dates inside a ``writing()`` transaction; a date or seed already set is an error."""
        connection.executemany(
            "INSERT INTO calendar (variant, date, seed, spec, band, best, fair, p_random)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (d.variant, d.date, d.seed, orjson.dumps(d.spec).decode(), d.band, d.best, d.fair, d.p_random)
                for d in deals
            ],
        )


def deal_of(record: tuple[Any, ...]) -> Deal:
    variant, date, seed, spec, band, best, fair, p_random = record
    return Deal(date, variant, seed, orjson.loads(spec), band, best, fair, p_random)


def open_store(path: str) -> Store:
    """The store at ``path``, created when missing; StoreError (one line) when it cannot be
    used: not a SQLite file, another program's database, or another schema version."""
    try:
        connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"--db {path}: cannot open: {exc}") from None
    try:
        prepare(connection, path)
    except BaseException:
        connection.close()
        raise
    return Store(connection, path)


def prepare(connection: sqlite3.Connection, path: str) -> None:
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        application_id, version = read_marks(connection)
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise StoreError(f"--db {path} is not a SQLite database") from None
        raise StoreError(f"--db {path}: cannot open: {exc}") from None
    if application_id == APPLICATION_ID and version == SCHEMA_VERSION:
        return
    if application_id == APPLICATION_ID:
        raise StoreError(
            f"--db {path} is a triples store of schema version {version}; this triples {installed()} "
            f"reads schema version {SCHEMA_VERSION}"
        )
    try:
        with_tables = connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0]
        if with_tables:
            raise StoreError(f"--db {path} is a SQLite database but not a triples store")
        connection.execute("PRAGMA journal_mode = WAL")  # kept in the file: every later opener uses it
        connection.execute("BEGIN IMMEDIATE")
        if read_marks(connection) == (0, 0):  # another process may have created it meanwhile
            # One statement at a time: executescript would commit the open transaction first.
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            connection.execute("COMMIT")
        else:
            connection.execute("ROLLBACK")
    except sqlite3.Error as exc:
        raise StoreError(f"--db {path}: cannot create the store: {exc}") from None
    prepare(connection, path)  # a store made by another process meanwhile is checked as any other


def read_marks(connection: sqlite3.Connection) -> tuple[int, int]:
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    return int(application_id), int(version)


def installed() -> str:
    from triples import __version__

    return __version__
