"""What the store asks of a database connection: the same few calls on SQLite and PostgreSQL.

Statements are written once, with ``?`` for each parameter; a backend that marks parameters
otherwise (psycopg: ``%s``) rewrites them. A connection is used by one thread at a time, as a
``Store`` is.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    name: str  # the database as ``--db`` named it, with any password hidden
    dialect: str  # "sqlite" or "postgresql"

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> Cursor: ...

    def executemany(self, sql: str, records: Iterable[Sequence[Any]]) -> None: ...

    def begin(self, locked: bool) -> None:
        """Open a transaction; ``locked``: holding the store's write lock from its start, so
        that two such transactions, in any processes on any hosts, run one after the other."""

    def commit(self) -> None: ...

    def rollback(self) -> None: ...

    def failure(self, exc: BaseException) -> str | None:
        """The one-line message of the database's error ``exc``; None for any other exception."""

    def close(self) -> None: ...


def one_line(text: str) -> str:
    """A database's message on one line (libpq's span several, with tabs)."""
    return " ".join(text.split())
