"""The store in a PostgreSQL database (``--db postgresql://...``): one store for several hosts.

Why psycopg 3 with its pool (the ``postgres`` extra) rather than SQLAlchemy Core: the store's
statements are few, fixed and written once for both databases, and psycopg runs them as
written (only the parameter marks change: ``%s`` for ``?``), preparing on the server the ones a
connection runs often; its pool keeps connections open between requests. SQLAlchemy would add
a large dependency and a layer of its own (an expression language, engines, dialects) to run
the same statements, and SQLite, which needs nothing, would not use it. psycopg's binary build
carries libpq, so the extra is all there is to install.

What is PostgreSQL's own here:

- **Marks.** A table ``triples_store`` of one row (the application id and the schema version)
  plays the part of a SQLite file's header. The store's tables live in the connection's
  current schema (``public`` unless the URL's ``options`` set another ``search_path``).
- **Locks.** Transaction-level advisory locks keyed by the application id: ``UPGRADE_LOCK``
  while the schema is made or upgraded (so hosts starting at once upgrade once: the others wait,
  read the marks again and find the work done), and ``WRITE_LOCK`` for ``Store.writing()``. They
  are released by the commit, so a lost connection never leaves one held.
- **Pools.** Each process keeps one pool of connections a database URL (``POOL_SIZE`` at most,
  one kept open), made when the URL is first opened; an open ``Store`` holds one connection of
  it and gives it back when closed, so opening a store for each request costs no new connection.
  A connection found broken between two transactions is replaced.
- **Durability.** A commit is durable as the server's ``synchronous_commit`` says (by default:
  flushed to its disk before the commit returns). A store opened with ``sync_every_commit=False``
  (the players' game) makes the same trade as on SQLite: its commits do not wait for the flush
  (``synchronous_commit`` off for its connection while the store holds it), so a host killed
  after a commit loses nothing of it, while a crash of the database server can lose the last
  moments of commits (never a torn one). A flush per move would make each move wait for the disk.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Iterable, Sequence
from contextlib import suppress
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from triples.store.connection import one_line
from triples.store.records import StoreError
from triples.store.schema import APPLICATION_ID, SCHEMA_VERSION, newer_version, schema, statements, upgrades

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

DIALECT = "postgresql"
SCHEMES = ("postgresql://", "postgres://")
POOL_SIZE = 4  # connections a process may hold to one database
CONNECT_TIMEOUT_SECONDS = 10  # unless the URL sets connect_timeout
WAIT_SECONDS = 60.0  # for a connection of the pool and for a lock, as SQLite waits for its write lock
UPGRADE_LOCK = 1
WRITE_LOCK = 2
INSTALL = "pip install 'triples-solitaire[postgres]'"

MARKS_TABLE = """
CREATE TABLE triples_store (
    application_id BIGINT NOT NULL,
    schema_version INTEGER NOT NULL
)
"""

_pools: dict[tuple[str, int], psycopg_pool.ConnectionPool[psycopg.Connection[Any]]] = {}
_pools_lock = threading.Lock()


def is_url(db: str) -> bool:
    return db.startswith(SCHEMES)


def shown(url: str) -> str:
    """The URL with its password hidden, as messages show it."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.split(':', 1)[0]}:***@{host}"
    query = "&".join(
        "password=***" if field.split("=", 1)[0] == "password" else field for field in parts.query.split("&")
    )
    if netloc == parts.netloc and query == parts.query:
        return url
    return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")


@lru_cache(maxsize=256)
def marked(sql: str) -> str:
    """A statement with psycopg's parameter marks (none of the store's holds a ``?`` or ``%``
    of its own)."""
    return sql.replace("?", "%s")


def drivers(name: str) -> None:
    """StoreError (one line) when the postgres extra is not installed."""
    for module in ("psycopg", "psycopg_pool"):
        try:
            __import__(module)
        except ImportError:
            message = f"PostgreSQL needs the postgres extra (no module {module}): {INSTALL}"
            raise StoreError(f"--db {name}: {message}") from None


class PostgresConnection:
    """One connection of a pool, as the store uses it."""

    dialect = DIALECT

    def __init__(
        self, pool: psycopg_pool.ConnectionPool[psycopg.Connection[Any]], name: str, sync_every_commit: bool
    ) -> None:
        self.pool = pool
        self.name = name
        self.sync_every_commit = sync_every_commit
        self.raw: psycopg.Connection[Any] | None = None
        self.in_transaction = False

    def connection(self) -> psycopg.Connection[Any]:
        """The connection this store holds: taken from the pool when first needed, and replaced
        when found broken between transactions (inside one, its error is the transaction's)."""
        raw = self.raw
        if raw is not None and raw.closed and not self.in_transaction:
            self.pool.putconn(raw)  # the pool discards a closed connection
            raw = self.raw = None
        if raw is None:
            raw = self.pool.getconn(timeout=WAIT_SECONDS)
            if not self.sync_every_commit:
                try:
                    raw.execute("SET synchronous_commit TO off")
                except BaseException:
                    self.pool.putconn(raw)
                    raise
            self.raw = raw
        return raw

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> psycopg.Cursor[Any]:
        return self.connection().execute(marked(sql), parameters)

    def executemany(self, sql: str, records: Iterable[Sequence[Any]]) -> None:
        with self.connection().cursor() as cursor:
            cursor.executemany(marked(sql), records)

    def begin(self, locked: bool) -> None:
        raw = self.connection()
        raw.execute("BEGIN")
        self.in_transaction = True
        if locked:
            try:
                raw.execute(locking(WRITE_LOCK))
            except BaseException:
                with suppress(Exception):
                    self.rollback()
                raise

    def commit(self) -> None:
        self.connection().execute("COMMIT")
        self.in_transaction = False

    def rollback(self) -> None:
        self.in_transaction = False
        if self.raw is not None and not self.raw.closed:
            self.raw.execute("ROLLBACK")

    def failure(self, exc: BaseException) -> str | None:
        import psycopg

        return one_line(str(exc)) if isinstance(exc, psycopg.Error) else None

    def close(self) -> None:
        raw, self.raw = self.raw, None
        if raw is None:
            return
        if not self.sync_every_commit and not raw.closed:
            with suppress(Exception):  # a broken connection: the pool discards it anyway
                raw.execute("RESET synchronous_commit")  # the pool's next user gets the server's setting
        self.pool.putconn(raw)


def open_url(url: str, sync_every_commit: bool) -> PostgresConnection:
    """The store in the database at ``url``, made when the database holds no table and upgraded
    when of an older schema; StoreError (one line) when it cannot be used."""
    name = shown(url)
    drivers(name)
    import psycopg
    import psycopg_pool

    key = (url, os.getpid())  # a forked process makes its own pool
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            # The first opening in this process connects on its own, for a clear error when the
            # server cannot be reached (a pool would only time out), and makes or upgrades the store.
            try:
                with psycopg.connect(url, autocommit=True, **timeout(url)) as raw:
                    prepare(raw, name)
            except psycopg.Error as exc:
                raise StoreError(f"--db {name}: cannot open: {one_line(str(exc))}") from None
            pool = psycopg_pool.ConnectionPool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                kwargs={"autocommit": True, **timeout(url)},
                open=True,
                name="triples-store",
                timeout=WAIT_SECONDS,
            )
            _pools[key] = pool
            return PostgresConnection(pool, name, sync_every_commit)
    connection = PostgresConnection(pool, name, sync_every_commit)
    try:
        prepare(connection.connection(), name)  # another host may have upgraded it meanwhile
    except psycopg.Error as exc:
        connection.close()
        raise StoreError(f"--db {name}: cannot open: {one_line(str(exc))}") from None
    except BaseException:
        connection.close()
        raise
    return connection


def timeout(url: str) -> dict[str, Any]:
    from psycopg.conninfo import conninfo_to_dict

    return {} if "connect_timeout" in conninfo_to_dict(url) else {"connect_timeout": CONNECT_TIMEOUT_SECONDS}


def holds_store(url: str) -> bool:
    """Whether the database at ``url`` holds a triples store (it is neither made nor changed)."""
    name = shown(url)
    drivers(name)
    import psycopg

    try:
        with psycopg.connect(url, autocommit=True, **timeout(url)) as raw:
            return read_marks(raw)[0] == APPLICATION_ID
    except psycopg.Error as exc:
        raise StoreError(f"--db {name}: cannot open: {one_line(str(exc))}") from None


def close_pools() -> None:
    """Close this process's pools (each closes its connections); a later opening makes anew."""
    with _pools_lock:
        mine = [key for key in _pools if key[1] == os.getpid()]
        pools = [_pools.pop(key) for key in mine]
    for pool in pools:
        pool.close()


atexit.register(close_pools)


def prepare(raw: psycopg.Connection[Any], name: str) -> None:
    """Check the store's marks; make or upgrade its tables when they say so, under the upgrade lock."""
    import psycopg

    application_id, version = read_marks(raw)
    if application_id == APPLICATION_ID and version == SCHEMA_VERSION:
        return
    if application_id == APPLICATION_ID and not 1 <= version < SCHEMA_VERSION:
        raise StoreError(newer_version(name, version))
    try:
        raw.execute("BEGIN")
        raw.execute(locking(UPGRADE_LOCK))
        # Read again under the lock: another host may have made or upgraded the store meanwhile.
        application_id, version = read_marks(raw)
        if application_id == 0:
            if any_table(raw):
                raise StoreError(f"--db {name} is a PostgreSQL database but not a triples store")
            for statement in [*statements(schema(DIALECT)), MARKS_TABLE]:
                raw.execute(statement)
            raw.execute("INSERT INTO triples_store VALUES (%s, 1)", (APPLICATION_ID,))
            version = 1
        elif application_id != APPLICATION_ID:
            raise StoreError(f"--db {name} is a PostgreSQL database but not a triples store")
        elif not 1 <= version <= SCHEMA_VERSION:
            raise StoreError(newer_version(name, version))
        steps = upgrades(DIALECT)
        while version in steps:
            for statement in statements(steps[version]):
                raw.execute(statement)
            version += 1
        raw.execute("UPDATE triples_store SET schema_version = %s", (version,))
        raw.execute("COMMIT")
    except psycopg.Error as exc:
        rollback(raw)
        raise StoreError(f"--db {name}: cannot create or upgrade the store: {one_line(str(exc))}") from None
    except BaseException:
        rollback(raw)
        raise


def locking(lock: int) -> str:
    """Take an advisory lock for the rest of the transaction, waiting for it at most
    ``WAIT_SECONDS`` (then the statement fails, as SQLite's writer gives up after its busy
    timeout), in one round trip."""
    wait = int(WAIT_SECONDS * 1000)
    return f"SET LOCAL lock_timeout = {wait}; SELECT pg_advisory_xact_lock({APPLICATION_ID}, {lock})"


def rollback(raw: psycopg.Connection[Any]) -> None:
    if not raw.closed:
        raw.execute("ROLLBACK")


def read_marks(raw: psycopg.Connection[Any]) -> tuple[int, int]:
    """The store's application id and schema version; (0, 0) without the marks table; a table
    of that name that is not ours gives an id that is not ours."""
    import psycopg

    # A query of the catalog, not to_regclass: after waiting for an advisory lock, the name
    # lookup can miss a table another host made meanwhile (no lock on it refreshed its cache).
    found = raw.execute(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = 'triples_store'"
    ).fetchone()
    if found is None or int(found[0]) == 0:
        return 0, 0
    try:
        marks = raw.execute("SELECT application_id, schema_version FROM triples_store").fetchall()
    except psycopg.Error:
        return -1, 0
    if len(marks) != 1:
        return -1, 0
    return int(marks[0][0]), int(marks[0][1])


def any_table(raw: psycopg.Connection[Any]) -> bool:
    found = raw.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
    row = found.fetchone()
    return row is not None and int(row[0]) > 0
