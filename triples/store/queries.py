"""``Store``: every query and change the commands and the service make, written once for SQLite
and PostgreSQL.

The statements use what both databases share: ``INSERT ... ON CONFLICT``, ``RETURNING``, and no
function of one database only. Concurrency is left to the database, whichever it is, and to
the keys of the schema:

- a turn of an attempt is played by one request: the move is an ``UPDATE`` of the attempt on
  the condition that its turn is still the one played, and (attempt, turn) is the moves'
  key, so a second request, in any process on any host, changes nothing;
- a player's name is unique ignoring case, and a player has one attempt at a deal: both are
  unique keys, and an insert that meets one does nothing and says so;
- a date of a calendar gets one deal: the commands set dates in ``writing()``, a transaction
  that holds the store's write lock from its start (SQLite's ``BEGIN IMMEDIATE``; an advisory
  lock on PostgreSQL) and reads the calendar afresh under it, so two commands filling
  overlapping spans at once take turns, and the second keeps the first's dates.

The players' game's own changes do not take the write lock: on PostgreSQL, moves of different
attempts are committed side by side.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

import orjson

from triples.store.connection import Connection
from triples.store.records import (
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

CALENDAR_COLUMNS = "variant, date, seed, spec, band, best, fair, p_random"
SECRET_COLUMNS = "variant, date, deal, spec, deck, band, best, fair, p_random, line"
ATTEMPT_COLUMNS = "id, player, deal, started, turn, cleared, last_move, finished"
# A move: the attempt's turn goes on only from the turn played, and only while it is not finished.
PLAY_CHANGE = (
    "UPDATE attempts SET turn = turn + 1, cleared = ?, last_move = ?, finished = ?"
    " WHERE id = ? AND turn = ? AND finished IS NULL"
)
PLAY_AT_ONCE = (
    f"WITH changed AS ({PLAY_CHANGE} RETURNING id)"
    " INSERT INTO moves (attempt, turn, slots, played) SELECT id, ?, ?, ? FROM changed"
)


class Store:
    """An open store. Use ``open_store(db)``; close with ``close()`` or a ``with`` block. One
    thread uses a store at a time."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.path = connection.name  # the --db it was opened with, any password hidden
        self._provenance_ids: dict[Provenance, int] = {}

    @property
    def backend(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.connection.dialect

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """A write transaction holding the store's write lock from its start: two of them, in
        any processes, run one after the other."""
        with self.transaction(locked=True) as connection:
            yield connection

    @contextmanager
    def transaction(self, locked: bool = False) -> Iterator[Connection]:
        """A transaction, committed at the end of the block and rolled back if it raises."""
        with self.failures():
            self.connection.begin(locked)
            try:
                yield self.connection
            except BaseException:
                with suppress(Exception):  # the connection may be gone: the first error is the one to tell
                    self.connection.rollback()
                raise
            self.connection.commit()

    @contextmanager
    def failures(self) -> Iterator[None]:
        """The database's errors as one line naming the store."""
        try:
            yield
        except Exception as exc:
            message = self.connection.failure(exc)
            if message is None:
                raise
            raise StoreError(f"--db {self.path}: {message}") from None

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
                with self.transaction() as db:
                    db.execute(
                        "INSERT INTO provenance (variant, strategy, analyses, version) VALUES (?, ?, ?, ?)"
                        " ON CONFLICT DO NOTHING",
                        key,
                    )
                    found = db.execute(select, key).fetchone()
        if found is None:
            return None
        self._provenance_ids[provenance] = int(found[0])
        return int(found[0])

    def rows(self, provenance: Provenance, first: int, last: int) -> Iterator[tuple[int, dict[str, Value]]]:
        """The stored rows of seeds ``first``..``last``, in seed order, as (seed, values)."""
        pid = self.provenance_id(provenance, create=False)
        if pid is None:
            return
        query = "SELECT seed, data FROM rows WHERE provenance = ? AND seed >= ? AND seed <= ? ORDER BY seed"
        with self.failures():
            found = self.connection.execute(query, (pid, first, last)).fetchall()
        for seed, data in found:
            yield seed, orjson.loads(data)

    def stored_seeds(self, provenance: Provenance, first: int, last: int) -> Iterator[int]:
        """The seeds of ``first``..``last`` with a stored row, in seed order."""
        pid = self.provenance_id(provenance, create=False)
        if pid is None:
            return
        query = "SELECT seed FROM rows WHERE provenance = ? AND seed >= ? AND seed <= ? ORDER BY seed"
        with self.failures():
            found = self.connection.execute(query, (pid, first, last)).fetchall()
        for (seed,) in found:
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
            with self.transaction() as db:
                db.executemany(
                    "INSERT INTO rows (provenance, seed, data) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", records
                )

    # ------------------------------------------------------------ the calendar

    def calendar(self, variant: str) -> dict[str, Deal]:
        """The variant's calendar by date."""
        query = f"SELECT {CALENDAR_COLUMNS} FROM calendar WHERE variant = ? ORDER BY date"
        with self.failures():
            return {deal.date: deal for deal in map(deal_of, self.connection.execute(query, (variant,)).fetchall())}

    def calendar_ends(self) -> list[tuple[str, str, str]]:
        """Each calendar's last published date: (kind, variant, date), kind ``seed`` or ``secret``."""
        ends: list[tuple[str, str, str]] = []
        with self.failures():
            for kind, table in (("seed", "calendar"), ("secret", "secret_calendar")):
                query = f"SELECT variant, max(date) FROM {table} GROUP BY variant ORDER BY variant"
                ends += [(kind, variant, day) for variant, day in self.connection.execute(query, ()).fetchall()]
        return ends

    def deals_on(self, date: str) -> list[Deal]:
        """Every variant's deal of ``date``, by variant name."""
        query = f"SELECT {CALENDAR_COLUMNS} FROM calendar WHERE date = ? ORDER BY variant"
        with self.failures():
            return [deal_of(record) for record in self.connection.execute(query, (date,)).fetchall()]

    def add_deals(self, connection: Connection, deals: Iterable[Deal]) -> None:
        """Add dates inside a ``writing()`` transaction; a date or seed already set is an error."""
        connection.executemany(
            f"INSERT INTO calendar ({CALENDAR_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(d.variant, d.date, d.seed, dumps(d.spec), d.band, d.best, d.fair, d.p_random) for d in deals],
        )

    # ------------------------------------------------------------ the secret calendar

    def secret_calendar(self, variant: str) -> dict[str, SecretDeal]:
        """The variant's secret calendar by date."""
        query = f"SELECT {SECRET_COLUMNS} FROM secret_calendar WHERE variant = ? ORDER BY date"
        with self.failures():
            found = self.connection.execute(query, (variant,)).fetchall()
        return {deal.date: deal for deal in map(secret_deal_of, found)}

    def secret_variants(self) -> list[str]:
        """The variants with a secret calendar, by name."""
        query = "SELECT DISTINCT variant FROM secret_calendar ORDER BY variant"
        with self.failures():
            return [variant for (variant,) in self.connection.execute(query, ()).fetchall()]

    def secret_deals_on(self, date: str) -> list[SecretDeal]:
        """Every variant's secret deal of ``date``, by variant name."""
        query = f"SELECT {SECRET_COLUMNS} FROM secret_calendar WHERE date = ? ORDER BY variant"
        with self.failures():
            return [secret_deal_of(record) for record in self.connection.execute(query, (date,)).fetchall()]

    def secret_deal(self, deal: str) -> SecretDeal | None:
        """The secret deal of id ``deal``, or None."""
        query = f"SELECT {SECRET_COLUMNS} FROM secret_calendar WHERE deal = ?"
        with self.failures():
            found = self.connection.execute(query, (deal,)).fetchone()
        return None if found is None else secret_deal_of(found)

    def add_secret_deals(self, connection: Connection, deals: Iterable[SecretDeal]) -> None:
        """Add secret dates inside a ``writing()`` transaction; a date or deal id already set is an error."""
        connection.executemany(
            f"INSERT INTO secret_calendar ({SECRET_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (d.variant, d.date, d.deal, dumps(d.spec), dumps(d.deck), d.band, d.best, d.fair, d.p_random,
                 dumps(d.line))
                for d in deals
            ],
        )  # fmt: skip

    # ------------------------------------------------------------ players, attempts and moves

    def add_player(self, name: str, name_key: str, token_hash: str, now: int) -> Player | None:
        """A new player, or None when ``name_key`` (the name as compared) is taken. (Inserted only
        when not found first, so that a taken name uses up no id on PostgreSQL either.)"""
        with self.transaction() as db:
            found = db.execute(
                "INSERT INTO players (name, name_key, token_hash, created) SELECT ?, ?, ?, ?"
                " WHERE NOT EXISTS (SELECT 1 FROM players WHERE name_key = ?)"
                " ON CONFLICT (name_key) DO NOTHING RETURNING id",
                (name, name_key, token_hash, now, name_key),
            ).fetchone()
        return None if found is None else Player(int(found[0]), name)

    def player_with_token(self, token_hash: str) -> Player | None:
        with self.failures():
            found = self.connection.execute(
                "SELECT id, name FROM players WHERE token_hash = ?", (token_hash,)
            ).fetchone()
        return None if found is None else Player(int(found[0]), found[1])

    def start_attempt(self, player: int, deal: str, now: int) -> tuple[Attempt, bool]:
        """The player's one attempt at ``deal``, started now unless it was already; and whether
        it was started now."""
        with self.transaction() as db:
            made = db.execute(
                "INSERT INTO attempts (player, deal, started, turn, cleared, last_move) SELECT ?, ?, ?, 0, 0, ?"
                " WHERE NOT EXISTS (SELECT 1 FROM attempts WHERE player = ? AND deal = ?)"
                " ON CONFLICT (player, deal) DO NOTHING RETURNING id",
                (player, deal, now, now, player, deal),
            ).fetchone()
            found = db.execute(f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE player = ? AND deal = ?", (player, deal))
            attempt = Attempt(*found.fetchone())
        return attempt, made is not None

    def attempt(self, attempt: int) -> Attempt | None:
        with self.failures():
            found = self.connection.execute(f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE id = ?", (attempt,))
            record = found.fetchone()
        return None if record is None else Attempt(*record)

    def attempts_of(self, deal: str) -> list[Attempt]:
        """Every attempt at ``deal``, in the order they were started."""
        query = f"SELECT {ATTEMPT_COLUMNS} FROM attempts WHERE deal = ? ORDER BY started, id"
        with self.failures():
            return [Attempt(*record) for record in self.connection.execute(query, (deal,)).fetchall()]

    def moves_of(self, attempt: int) -> list[PlayedMove]:
        """The attempt's moves in the order they were played."""
        query = "SELECT turn, slots, played FROM moves WHERE attempt = ? ORDER BY turn"
        with self.failures():
            found = self.connection.execute(query, (attempt,)).fetchall()
        return [PlayedMove(turn, tuple(orjson.loads(slots)), played) for turn, slots, played in found]

    def play_move(self, attempt: int, turn: int, slots: Iterable[int], cleared: int, over: bool, now: int) -> bool:
        """Keep the attempt's move of ``turn`` (committed when this returns) and the attempt's
        new state; False, with nothing changed, when ``turn`` is not the attempt's turn any more
        (another request played it) or the attempt is finished."""
        change = (cleared, now, now if over else None, attempt, turn)
        move = (turn, dumps(list(slots)), now)
        if self.backend == "postgresql":
            # One statement, one round trip to the server, atomic on its own: the attempt's row
            # changed, if it was, feeds the move's insert (SQLite has no data-changing WITH).
            with self.failures():
                return bool(self.connection.execute(PLAY_AT_ONCE, change + move).rowcount)
        with self.transaction() as db:
            changed = db.execute(PLAY_CHANGE, change).rowcount
            if changed:
                db.execute("INSERT INTO moves (attempt, turn, slots, played) VALUES (?, ?, ?, ?)", (attempt, *move))
        return bool(changed)

    def finished_attempts(self, deal: str) -> list[FinishedAttempt]:
        """Every finished attempt at ``deal`` with its player's name and its moves, in the
        order they were started."""
        query = (
            f"SELECT {', '.join('attempts.' + c for c in ATTEMPT_COLUMNS.split(', '))}, players.name"
            " FROM attempts JOIN players ON players.id = attempts.player"
            " WHERE attempts.deal = ? AND attempts.finished IS NOT NULL ORDER BY attempts.started, attempts.id"
        )
        with self.failures():
            found = self.connection.execute(query, (deal,)).fetchall()
        attempts = []
        for record in found:
            attempt = Attempt(*record[:-1])
            moves = tuple(played.slots for played in self.moves_of(attempt.id))
            attempts.append(FinishedAttempt(attempt, record[-1], moves))
        return attempts

    def audits_of(self, deal: str) -> dict[int, AuditRecord]:
        """The audits kept of ``deal``'s attempts, by attempt id."""
        query = (
            "SELECT audits.attempt, audits.moves, audits.sighted, audits.p, audits.verdict, audits.engine_match,"
            " audits.version FROM audits JOIN attempts ON attempts.id = audits.attempt WHERE attempts.deal = ?"
        )
        with self.failures():
            return {record[0]: AuditRecord(*record) for record in self.connection.execute(query, (deal,)).fetchall()}

    def keep_audits(self, audits: Iterable[AuditRecord]) -> None:
        """Keep audits of finished attempts. An attempt audited already keeps its first audit,
        unless the new one is of another method (version): then it replaces it."""
        records = [(a.attempt, a.moves, a.sighted, a.p, a.verdict, a.engine_match, a.version) for a in audits]
        if records:
            with self.transaction() as db:
                db.executemany(
                    "INSERT INTO audits (attempt, moves, sighted, p, verdict, engine_match, version)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (attempt) DO UPDATE SET moves = excluded.moves,"
                    " sighted = excluded.sighted, p = excluded.p, verdict = excluded.verdict,"
                    " engine_match = excluded.engine_match, version = excluded.version"
                    " WHERE audits.version <> excluded.version",
                    records,
                )

    def leaderboard(self, deal: str, limit: int, method: str) -> Leaderboard:
        """How many started and finished ``deal``, and the first ``limit`` finished attempts: most
        cards cleared, then fewest milliseconds from the start to the last move, then earliest
        finish. Only an audit of ``method`` gives an entry its verdict (one kept under another
        is as good as none: it is worked out again)."""
        with self.failures():
            started, finished = self.connection.execute(
                "SELECT count(*), count(finished) FROM attempts WHERE deal = ?", (deal,)
            ).fetchone()
            entries = [
                standing_of(record)
                for record in self.connection.execute(
                    "SELECT players.name, attempts.cleared, attempts.turn, attempts.last_move - attempts.started,"
                    " attempts.finished, audits.verdict FROM attempts JOIN players ON players.id = attempts.player"
                    " LEFT JOIN audits ON audits.attempt = attempts.id AND audits.version = ?"
                    " WHERE attempts.deal = ? AND attempts.finished IS NOT NULL"
                    " ORDER BY attempts.cleared DESC, attempts.last_move - attempts.started, attempts.finished,"
                    " attempts.id LIMIT ?",
                    (method, deal, limit),
                ).fetchall()
            ]
        return Leaderboard(int(started), int(finished), entries)


def standing_of(record: Any) -> Standing:
    """A leaderboard's row: the attempt's standing, and its audit's verdict when it has one."""
    name, cleared, moves, milliseconds, finished, verdict = record
    return Standing(name, cleared, moves, milliseconds, finished, None if verdict is None else verdict == "suspect")
