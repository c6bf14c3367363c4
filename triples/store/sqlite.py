"""The store in a SQLite file: the embedded default, through the standard library's ``sqlite3``.

Why SQLite: the store is one file a designer can copy, back up or open with the ``sqlite3``
shell; several commands use it at once (one writing while others read) and SQLite's
write-ahead log gives exactly that without a server; and the standard library adds no
dependency to the lean core.

What is SQLite's own here: the file's header marks it a triples store (``PRAGMA
application_id``) of a schema version (``PRAGMA user_version``); the write-ahead log (kept in
the file, so every later opener uses it); the busy timeout; and ``BEGIN IMMEDIATE``, which
takes the file's one write lock when a transaction starts, so that a writer waits for another
(up to ``BUSY_TIMEOUT_SECONDS``) instead of failing mid-transaction. SQLite has one writer at a
time, so every write transaction holds that lock. Reads run one statement at a time in
autocommit mode, each seeing a committed state.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from typing import Any

from triples.store.connection import one_line
from triples.store.records import StoreError
from triples.store.schema import APPLICATION_ID, SCHEMA_VERSION, newer_version, schema, statements, upgrades

BUSY_TIMEOUT_SECONDS = 60.0
DIALECT = "sqlite"


class SQLiteConnection:
    """A ``sqlite3`` connection as the store uses it."""

    dialect = DIALECT

    def __init__(self, raw: sqlite3.Connection, name: str) -> None:
        self.raw = raw
        self.name = name

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> sqlite3.Cursor:
        return self.raw.execute(sql, parameters)

    def executemany(self, sql: str, records: Iterable[Sequence[Any]]) -> None:
        self.raw.executemany(sql, records)

    def begin(self, locked: bool) -> None:
        self.raw.execute("BEGIN IMMEDIATE")  # one writer at a time: every write takes the lock

    def commit(self) -> None:
        self.raw.execute("COMMIT")

    def rollback(self) -> None:
        if self.raw.in_transaction:
            self.raw.execute("ROLLBACK")

    def failure(self, exc: BaseException) -> str | None:
        return one_line(str(exc)) if isinstance(exc, sqlite3.Error) else None

    def close(self) -> None:
        self.raw.close()


def open_file(path: str, sync_every_commit: bool) -> SQLiteConnection:
    """The store in the file at ``path``, created when missing and upgraded when of an older
    schema; StoreError (one line) when it cannot be used.

    ``sync_every_commit=False`` (the players' game) leaves the disk sync to the write-ahead log's
    checkpoints: a commit is then in the operating system's hands when it returns, so it survives
    the process being killed (even ``kill -9``) but not the machine losing power before the next
    checkpoint. A sync per commit would cost each move a disk flush (milliseconds on a busy disk)."""
    try:
        raw = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error as exc:
        raise StoreError(f"--db {path}: cannot open: {exc}") from None
    try:
        prepare(raw, path)
        raw.execute("PRAGMA foreign_keys = ON")
        if not sync_every_commit:
            raw.execute("PRAGMA synchronous = NORMAL")
    except BaseException:
        raw.close()
        raise
    return SQLiteConnection(raw, path)


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
    if application_id == APPLICATION_ID and not 1 <= version < SCHEMA_VERSION:
        raise StoreError(newer_version(path, version))
    if application_id != 0 and application_id != APPLICATION_ID:
        raise StoreError(not_a_store(path))  # another program's mark
    try:
        if application_id == 0 and not any_table(connection):
            to_wal(connection)
        connection.execute("BEGIN IMMEDIATE")
        # Read again under the write lock: another process may have made or upgraded it since
        # the reads above (which it may have come between, so only these are trusted).
        application_id, version = read_marks(connection)
        if application_id == 0:
            if any_table(connection):
                raise StoreError(not_a_store(path))
            run_script(connection, schema(DIALECT))
            connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            version = 1
        steps = upgrades(DIALECT)
        while version in steps:
            run_script(connection, steps[version])
            version += 1
        connection.execute(f"PRAGMA user_version = {version}")
        connection.execute("COMMIT")
    except sqlite3.Error as exc:
        rollback(connection)
        raise StoreError(f"--db {path}: cannot create or upgrade the store: {exc}") from None
    except BaseException:
        rollback(connection)
        raise
    prepare(connection, path)  # what is in the file now is checked as any other


def to_wal(connection: sqlite3.Connection) -> None:
    """Put a new file in write-ahead-log mode (kept in the file: every later opener uses it).
    The switch needs the file to itself and is refused at once, without the busy timeout, while
    another process opening it at the same moment reads it: try again until the timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def not_a_store(path: str) -> str:
    return f"--db {path} is a SQLite database but not a triples store"


def any_table(connection: sqlite3.Connection) -> bool:
    return bool(connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0])


def rollback(connection: sqlite3.Connection) -> None:
    if connection.in_transaction:
        connection.execute("ROLLBACK")


def run_script(connection: sqlite3.Connection, script: str) -> None:
    # One statement at a time: executescript would commit the open transaction first.
    for statement in statements(script):
        connection.execute(statement)


def read_marks(connection: sqlite3.Connection) -> tuple[int, int]:
    application_id = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    return int(application_id), int(version)


def readable_file(path: str) -> str | None:
    """Why the store in the file at ``path`` cannot be read now, or None when it can: opened
    read-only, so that a check never makes or changes a file."""
    if not os.path.exists(path):
        return "the store is gone"
    try:
        raw = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1.0)
        try:
            application_id = raw.execute("PRAGMA application_id").fetchone()[0]
            raw.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        finally:
            raw.close()
    except sqlite3.Error as exc:
        return f"the store cannot be read: {exc}"
    if application_id != APPLICATION_ID:
        return "the file is not a triples store"
    return None
