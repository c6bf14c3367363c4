"""The store: rated rows, the daily calendars and the players' game, in a SQLite file or a
PostgreSQL database.

``open_store(db)`` opens what ``--db`` names: a ``postgresql://`` (or ``postgres://``) URL is a
PostgreSQL database, for several hosts at once (``triples.store.postgres``, the ``postgres``
extra); anything else is a SQLite file, the embedded default, which needs nothing installed
(``triples.store.sqlite``). Either is made when missing and upgraded when of an older schema
version, and behaves the same: the tables (``triples.store.schema``) and every query
(``triples.store.queries``) are written once for both. Nothing here imports the command line or
the service: both use it.

What is kept:

- ``provenance``: what produced rows, as rows files record it: the variant's canonical name, the
  strategy, the analyses (the name of the opt-in columns asked for) and the version of triples.
  A row is reused only under exactly the same four.
- ``rows``: one per (provenance, seed): the row's other values as a JSON object (the seed and
  the provenance are its key, not repeated).
- ``calendar``: one deal per (variant, date), and no seed twice in a variant's calendar. A date,
  once set, is never changed by this package: the calendar only grows.
- ``secret_calendar``: the players' daily deals, drawn at random rather than from a seed: one
  per (variant, date) with its deck (card codes, top first), its rules, a short random deal id
  and its rating and best line. It only grows too.
- ``players``, ``attempts`` and ``moves``: who plays (a name, unique ignoring case, and the
  hash of a token: the token itself is never kept), each player's one attempt at a secret deal,
  and every move of it with its turn, so that (attempt, turn) is the key that makes two
  requests racing for one turn play one move.

A store of a later schema version than this package knows is refused in one line. Times are
integer milliseconds since the epoch (UTC), made by the caller.
"""

from __future__ import annotations

import os

from triples.store.connection import Connection
from triples.store.postgres import close_pools, holds_store, is_url, open_url, shown
from triples.store.queries import ATTEMPT_COLUMNS, SECRET_COLUMNS, Store
from triples.store.records import (
    PROVENANCE_COLUMNS,
    Attempt,
    AuditRecord,
    Deal,
    FinishedAttempt,
    Leaderboard,
    PlayedMove,
    Player,
    Provenance,
    SecretDeal,
    Standing,
    StoreError,
    Value,
    deal_of,
    dumps,
    secret_deal_of,
)
from triples.store.schema import APPLICATION_ID, ID_COLUMN, SCHEMA, SCHEMA_VERSION, UPGRADES
from triples.store.sqlite import BUSY_TIMEOUT_SECONDS, open_file, readable_file

__all__ = [
    "APPLICATION_ID",
    "ATTEMPT_COLUMNS",
    "BUSY_TIMEOUT_SECONDS",
    "ID_COLUMN",
    "PROVENANCE_COLUMNS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SECRET_COLUMNS",
    "UPGRADES",
    "Attempt",
    "AuditRecord",
    "Connection",
    "Deal",
    "FinishedAttempt",
    "Leaderboard",
    "PlayedMove",
    "Player",
    "Provenance",
    "SecretDeal",
    "Standing",
    "Store",
    "StoreError",
    "Value",
    "close_pools",
    "db_for_processes",
    "deal_of",
    "dumps",
    "is_url",
    "open_store",
    "readable",
    "secret_deal_of",
    "shown",
    "store_exists",
]


def open_store(db: str, sync_every_commit: bool = True) -> Store:
    """The store ``db`` names (a ``--db`` value): a PostgreSQL URL, or a SQLite file. Made when
    missing and upgraded when of an older schema; StoreError (one line) when it cannot be used:
    not a database, another program's, a store of a newer schema version, a server that cannot
    be reached, or a URL of another kind.

    ``sync_every_commit=False`` (the players' game) commits without waiting for the disk: SQLite
    leaves the sync to its write-ahead log's checkpoints, PostgreSQL lets those transactions skip
    the flush. A commit then survives the process being killed, even with ``kill -9``, but not
    the database's machine (or PostgreSQL's server) failing in the moments after it."""
    if is_url(db):
        return Store(open_url(db, sync_every_commit))
    if "://" in db:
        raise StoreError(f"--db {shown(db)}: not a file, nor a postgresql:// URL")
    return Store(open_file(db, sync_every_commit))


def store_exists(db: str) -> bool:
    """Whether ``db`` holds a store already (nothing is made): a file that exists, or a database
    with a store's marks. StoreError (one line) when a server cannot be reached."""
    return holds_store(db) if is_url(db) else os.path.exists(db)


def readable(db: str) -> str | None:
    """Why the store ``db`` names cannot be read now (gone, not a store, unreadable), or None
    when it can. Nothing is made or changed: a file is opened read-only, a database is only
    looked at."""
    try:
        if is_url(db):
            return None if holds_store(db) else "the database holds no triples store"
        return readable_file(db)
    except StoreError as exc:
        return str(exc)


def db_for_processes(db: str) -> str:
    """``db`` as other processes, started elsewhere, must be given it: a file by its absolute path."""
    return db if is_url(db) else os.path.abspath(db)
