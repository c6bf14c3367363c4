"""The store (triples/store/) and ``--db`` on rate and pick (triples/doors/rating/store_backed.py),
each test on both backends (``store_db``: a SQLite file, and a database of a private PostgreSQL
server): the schema made on first use and upgraded from version 1, rows kept under their exact
provenance, seeds to the largest, stored seeds looked up rather than rated, files and databases
that cannot be a store refused in one line, one store shared at once by a writing ``rate`` and
reading ``pick`` and ``calendar`` processes, processes racing to make or upgrade a store or to
fill overlapping calendar spans, and the players' game's records."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson
import pytest

from triples import __version__
from triples.doors import cli
from triples.doors.kit.options import MAX_SEED
from triples.doors.rating import seed_rows as rate_rows
from triples.doors.rating.rows import DIFFICULTY_COLUMNS, RateOptions, row_values
from triples.doors.rating.seed_rows import rate_batch
from triples.doors.rating.store_backed import provenance_of
from triples.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Attempt,
    AuditRecord,
    Deal,
    PlayedMove,
    Player,
    Provenance,
    SecretDeal,
    Standing,
    StoreError,
    is_url,
    open_store,
)
from triples.store import postgres as postgres_backend
from triples.store import sqlite as sqlite_backend
from triples.store.postgres import MARKS_TABLE
from triples.store.schema import schema, statements

if TYPE_CHECKING:
    from tests.postgres_server import Cluster

CLASSIC = Provenance("classic", "high", "none", "0.1.0")
TIMEOUT = 120


def on_database(db: str, *sql: str) -> list[list[tuple[Any, ...]]]:
    """``sql`` run on the database itself, not through the store, in one transaction; the rows
    of each statement."""
    if is_url(db):
        import psycopg

        with psycopg.connect(db) as connection:  # commits at the end of the block
            cursors = [connection.execute(statement) for statement in sql]
            return [cursor.fetchall() if cursor.description else [] for cursor in cursors]
    with sqlite3.connect(db) as connection:
        found = [connection.execute(statement).fetchall() for statement in sql]
    connection.close()
    return found


def marks(db: str) -> tuple[int, int]:
    """The store's application id and schema version, as the database keeps them."""
    if is_url(db):
        return on_database(db, "SELECT application_id, schema_version FROM triples_store")[0][0]
    application_id, version = on_database(db, "PRAGMA application_id", "PRAGMA user_version")
    return application_id[0][0], version[0][0]


def tables(db: str) -> list[str]:
    if is_url(db):
        query = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    else:
        query = "SELECT name FROM sqlite_schema WHERE type = 'table'"
    return sorted(name for (name,) in on_database(db, query)[0])


def test_a_new_store_is_made_on_first_use(store_db: str) -> None:
    with open_store(store_db) as store:
        assert store.count(CLASSIC, 0, 10) == 0
        assert list(store.rows(CLASSIC, 0, 10)) == []
    assert marks(store_db) == (APPLICATION_ID, SCHEMA_VERSION) == (0x54524950, 3)
    kept = ["attempts", "audits", "calendar", "moves", "players", "provenance", "rows", "secret_calendar"]
    if is_url(store_db):
        assert tables(store_db) == sorted([*kept, "triples_store"])
    else:
        assert tables(store_db) == kept
        assert on_database(store_db, "PRAGMA journal_mode") == [[("wal",)]]


def test_rows_are_kept_under_their_exact_provenance(store_db: str) -> None:
    others = [
        Provenance("sum15", "high", "none", "0.1.0"),
        Provenance("classic", "low", "none", "0.1.0"),
        Provenance("classic", "high", "fair", "0.1.0"),
        Provenance("classic", "high", "none", "0.0.9"),
    ]
    with open_store(store_db) as store:
        store.put(CLASSIC, [(3, {"best": 3}), (1, {"best": 1})])
        store.put(CLASSIC, [(1, {"best": 99}), (2, {"best": 2})])  # a stored seed keeps its row
        assert list(store.rows(CLASSIC, 0, 10)) == [(1, {"best": 1}), (2, {"best": 2}), (3, {"best": 3})]
        assert list(store.rows(CLASSIC, 2, 2)) == [(2, {"best": 2})]
        for other in others:
            assert (store.count(other, 0, 10), list(store.rows(other, 0, 10))) == (0, [])


def test_seeds_to_the_largest_keep_their_order(store_db: str) -> None:
    seeds = [MAX_SEED, 1 << 31, 0, 5]
    with open_store(store_db) as store:
        store.put(CLASSIC, [(seed, {"n": i}) for i, seed in enumerate(seeds)])
        assert [seed for seed, _ in store.rows(CLASSIC, 0, MAX_SEED)] == sorted(seeds)
        assert list(store.rows(CLASSIC, 5, 1 << 31)) == [(5, {"n": 3}), (1 << 31, {"n": 1})]
        assert store.count(CLASSIC, 1, MAX_SEED) == 3


# What each database says of a key already taken (its own words, on one line).
TAKEN = "UNIQUE constraint failed|duplicate key value violates unique constraint"


def test_a_seed_or_date_is_in_a_calendar_once(store_db: str) -> None:
    deal = Deal("2026-01-05", "classic", 7, "classic", "easy", 52, 52, 1.0)
    with open_store(store_db) as store:
        with store.writing() as db:
            store.add_deals(db, [deal])
        for clash in (Deal("2026-01-06", "classic", 7, "classic", "easy", 52, 52, 1.0), deal):
            with pytest.raises(StoreError, match=TAKEN), store.writing() as db:
                store.add_deals(db, [Deal("2026-01-09", "classic", 8, "classic", "easy", 1, 1, 1.0), clash])
        assert store.calendar("classic") == {"2026-01-05": deal}  # the failed transactions left nothing
        assert store.deals_on("2026-01-05") == [deal] and store.calendar("sum15") == {}


def test_files_that_cannot_be_a_store_get_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a database, just some text that is long enough to be read as a header\n" * 3)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    newer = tmp_path / "newer.db"
    open_store(str(newer)).close()
    with sqlite3.connect(newer) as db:
        db.execute("PRAGMA user_version = 4")
    expected = {
        text: f"--db {text} is not a SQLite database",
        other: f"--db {other} is a SQLite database but not a triples store",
        newer: f"--db {newer} is a triples store of schema version 4; this triples 0.1.0 reads schema versions 1 to 3",
        tmp_path
        / "no"
        / "such"
        / "dir.db": f"--db {tmp_path}/no/such/dir.db: cannot open: unable to open database file",
    }
    for path, message in expected.items():
        with pytest.raises(StoreError) as caught:
            open_store(str(path))
        assert str(caught.value) == message
        for command in (["rate", "--seeds", "1-3"], ["pick", "--seeds", "1-3", "--band", "easy"]):
            assert cli.main([*command, "--db", str(path)]) == 2
            assert capsys.readouterr() == ("", f"triples {command[0]}: error: {message}\n")
    assert text.read_text().startswith("not a database")  # refused untouched


def refused_in_one_line(db: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(StoreError) as caught:
        open_store(db)
    assert str(caught.value) == message
    for command in (["rate", "--seeds", "1-3"], ["pick", "--seeds", "1-3", "--band", "easy"]):
        assert cli.main([*command, "--db", db]) == 2
        assert capsys.readouterr() == ("", f"triples {command[0]}: error: {message}\n")


def test_databases_that_cannot_be_a_store_get_one_line(
    postgres: Cluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    other, newer = postgres.new_database(), postgres.new_database()
    on_database(other, "CREATE TABLE t (x INTEGER)")
    open_store(newer).close()
    on_database(newer, "UPDATE triples_store SET schema_version = 4")
    socket = f"{postgres.folder}/.s.PGSQL.5432"
    absent = postgres.url("nosuchdb")
    secret = absent.replace("postgres@", "ada:s3cret@")  # the password is never shown
    shown = absent.replace("postgres@", "ada:***@")
    expected = {
        other: f"--db {other} is a PostgreSQL database but not a triples store",
        newer: f"--db {newer} is a triples store of schema version 4; this triples 0.1.0 reads schema versions 1 to 3",
        absent: f'--db {absent}: cannot open: connection failed: connection to server on socket "{socket}" failed: '
        'FATAL: database "nosuchdb" does not exist',
        secret: f'--db {shown}: cannot open: connection failed: connection to server on socket "{socket}" failed: '
        'FATAL: role "ada" does not exist',
        "mysql://host/db": "--db mysql://host/db: not a file, nor a postgresql:// URL",
    }
    for db, message in expected.items():
        refused_in_one_line(db, message, capsys)
    assert tables(other) == ["t"]  # refused untouched
    assert marks(newer) == (APPLICATION_ID, 4)
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as without the postgres extra
    needs = "PostgreSQL needs the postgres extra (no module psycopg): pip install 'triples-solitaire[postgres]'"
    refused_in_one_line(newer, f"--db {newer}: {needs}", capsys)


def test_a_pg_dump_of_a_store_restores_to_a_store_that_holds_the_same(postgres: Cluster, tmp_path: Path) -> None:
    db, restored = postgres.new_database(), postgres.new_database()
    with open_store(db) as store, store.writing() as connection:
        store.add_deals(connection, [Deal("2026-01-05", "classic", 7, "classic", "easy", 52, 52, 1.0)])
        store.add_secret_deals(connection, [SECRET])
    with open_store(db) as store:
        assert store.add_player("Bob", "bob", "h-bob", 1) == Player(1, "Bob")
    dump = tmp_path / "store.dump"
    for command in (
        ["pg_dump", "--format=custom", f"--file={dump}", db],
        ["pg_restore", f"--dbname={restored}", str(dump)],
    ):
        done = subprocess.run(
            [str(postgres.bin / command[0]), *command[1:]], capture_output=True, text=True, timeout=TIMEOUT
        )
        assert done.returncode == 0, done.stderr
    assert marks(restored) == (APPLICATION_ID, SCHEMA_VERSION)
    with open_store(restored) as store:
        assert store.calendar("classic")["2026-01-05"].seed == 7 and store.secret_deal(SECRET.deal) == SECRET
        assert store.player_with_token("h-bob") == Player(1, "Bob")
        assert store.add_player("Ada", "ada", "h-ada", 2) == Player(2, "Ada")  # ids go on from the restored ones


def test_a_writer_waits_for_another_a_while_then_gives_up_in_one_line(
    store_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_backend, "WAIT_SECONDS", 0.2)
    monkeypatch.setattr(sqlite_backend, "BUSY_TIMEOUT_SECONDS", 0.2)
    message = "canceling statement due to lock timeout" if is_url(store_db) else "database is locked"
    with open_store(store_db) as first, open_store(store_db) as second:
        with first.writing(), pytest.raises(StoreError) as caught, second.writing():
            pass
        assert str(caught.value) == f"--db {store_db}: {message}"
        with second.writing() as connection:  # the lock is free again, and the connection usable
            second.add_deals(connection, [Deal("2026-01-05", "classic", 7, "classic", "easy", 52, 52, 1.0)])
        assert list(first.calendar("classic")) == ["2026-01-05"]


def rate_jsonl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict[str, Any]], list[str]]:
    assert cli.main(["rate", "--format", "jsonl", "--jobs", "1", *args]) == 0
    out, err = capsys.readouterr()
    return [orjson.loads(line) for line in out.splitlines()], err.splitlines()


def test_a_stored_seed_is_a_lookup_not_a_search(
    store_db: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = store_db
    first, err = rate_jsonl(capsys, "--seeds", "1-30", "--db", db)
    assert err[-1] == f"store: 0 rows from {db}, 30 rated and added"
    fresh = [row_values(row) for row in rate_batch(RateOptions("classic", "high"), list(range(1, 41)))]
    comparable = [{k: v for k, v in row.items() if k != "ms"} for row in fresh]
    assert [{k: v for k, v in row.items() if k != "ms"} for row in first] == comparable[:30]

    rated: list[int] = []
    real = rate_rows.rate_seed

    def counting(*args: Any) -> Any:
        rated.append(args[2])
        return real(*args)

    monkeypatch.setattr(rate_rows, "rate_seed", counting)
    again, err = rate_jsonl(capsys, "--seeds", "1-40", "--db", db)
    assert again[:30] == first  # the stored rows, their timings included
    assert [{k: v for k, v in row.items() if k != "ms"} for row in again] == comparable
    assert (rated, err[-1]) == (list(range(31, 41)), f"store: 30 rows from {db}, 10 rated and added")
    # sweep --db looks up each rule set's rows the same way.
    rated.clear()
    assert (
        cli.main(
            ["sweep", "--variant", "classic", "--vary", "target=20..21", "--seeds", "1-40", "--db", db, "--jobs", "1"]
        )
        == 0
    )
    assert capsys.readouterr().err.splitlines()[-1] == f"store: 40 rows from {db}, 40 rated and added"
    assert rated == list(range(1, 41))  # target=21 only: target=20 is classic
    # Other analyses are another provenance: rated afresh, and kept beside the first rows.
    rated.clear()
    fair, _ = rate_jsonl(capsys, "--seeds", "1-3", "--fair", "--db", db)
    assert rated == [1, 2, 3] and [row["seed"] for row in fair] == [1, 2, 3]


def on_pairs(command: str, db: str, *args: str, out: IO[str] | int = subprocess.PIPE) -> subprocess.Popen[str]:
    """``triples COMMAND`` on pairs in a process of its own, with the store ``db``, one job, JSON lines."""
    common = ["--variant", "pairs", *args, "--db", db, "--jobs", "1", "--format", "jsonl"]
    return subprocess.Popen(
        [sys.executable, "-m", "triples", command, *common], stdout=out, stderr=subprocess.PIPE, text=True
    )


def test_one_writer_and_several_readers_at_once_lose_and_tear_nothing(store_db: str, tmp_path: Path) -> None:
    db = store_db
    last = 600  # readers start at row 100, so the writer still has most of its rows to go
    printed = (tmp_path / "printed.jsonl").open("w+")  # a file, not a pipe nobody reads while it runs
    writer = on_pairs("rate", db, "--difficulty", "--seeds", f"1-{last}", out=printed)
    options = RateOptions("pairs", "high", DIFFICULTY_COLUMNS)
    deadline = time.monotonic() + TIMEOUT
    while writer.poll() is None and time.monotonic() < deadline:  # readers start once rows are coming in
        if is_url(db) or Path(db).exists():
            try:
                with open_store(db) as store:
                    if store.count(provenance_of(options), 1, last) >= 100:
                        break
            except StoreError:
                pass  # the writer is still making the schema
        time.sleep(0.05)
    readers_done = during_writing = 0
    while writer.poll() is None or readers_done < 2:
        during_writing += writer.poll() is None
        readers = [
            on_pairs("pick", db, "--band", "easy", "--count", "40", "--seeds", f"1-{last}"),
            on_pairs("calendar", db, "--pattern", "easy", "--start", "2026-01-05", "--days", "20", "--min-best", "0"),
        ]
        picked, days = (reader.communicate(timeout=TIMEOUT) for reader in readers)
        assert [reader.returncode for reader in readers] == [0, 0], (picked[1], days[1])
        assert [orjson.loads(line)["seed"] for line in picked[0].splitlines()] == list(range(1, 41))
        assert [orjson.loads(line)["seed"] for line in days[0].splitlines()] == list(range(1, 21))
        readers_done += 1
    _, err = writer.communicate(timeout=TIMEOUT)
    assert writer.returncode == 0, err
    assert during_writing >= 1  # readers did run while rows were being written
    printed.seek(0)
    out = printed.read()
    written = [orjson.loads(line) for line in out.splitlines()]
    assert [row["seed"] for row in written] == list(range(1, last + 1))
    with open_store(db) as store:
        kept = list(store.rows(provenance_of(options), 0, 10 * last))
    # Every row once, whole, and the same as the writer printed (timings and all), whoever rated it.
    made = {"variant": "pairs", "strategy": "high", "analyses": "difficulty", "version": __version__}
    assert all({k: row[k] for k in made} == made for row in written)
    by_seed = {row["seed"]: {k: v for k, v in row.items() if k not in ("seed", "ms", *made)} for row in written}
    assert [seed for seed, _ in kept] == list(range(1, last + 1))
    assert all({k: v for k, v in values.items() if k != "ms"} == by_seed[seed] for seed, values in kept)


# ---------------------------------------------------------------- schema version 2: the players' game


def test_a_store_for_the_game_commits_without_waiting_for_the_disk(store_db: str) -> None:
    # SQLite: synchronous NORMAL (1), not FULL (2); PostgreSQL: synchronous_commit off while the
    # game's store holds its pooled connection, which serves the next store as the server is set.
    show = "SHOW synchronous_commit" if is_url(store_db) else "PRAGMA synchronous"
    with open_store(store_db, sync_every_commit=False) as game:
        with game.transaction() as connection:
            inside = connection.execute(show).fetchone()[0]
        after = game.connection.execute(show).fetchone()[0]
    with open_store(store_db) as other, other.transaction() as connection:
        default = connection.execute(show).fetchone()[0]
    assert (inside, after, default) == (("off", "off", "on") if is_url(store_db) else (1, 1, 2))


def make_version_1(db: str) -> None:
    """A store as the first version made it, with one date in its calendar."""
    date = "INSERT INTO calendar VALUES ('classic', '2026-01-05', 7, '\"classic\"', 'easy', 52, 52, 1.0)"
    if is_url(db):
        marked = f"INSERT INTO triples_store VALUES ({APPLICATION_ID}, 1)"
        on_database(db, *statements(schema("postgresql")), MARKS_TABLE, marked, date)
        return
    on_database(db, "PRAGMA journal_mode = WAL")
    on_database(db, *statements(schema("sqlite")), date, f"PRAGMA application_id = {APPLICATION_ID}")
    on_database(db, "PRAGMA user_version = 1")


def test_a_store_of_version_1_is_upgraded_in_place_keeping_everything(store_db: str) -> None:
    make_version_1(store_db)
    assert marks(store_db) == (APPLICATION_ID, 1)
    with open_store(store_db) as store:
        assert store.calendar("classic") == {
            "2026-01-05": Deal("2026-01-05", "classic", 7, "classic", "easy", 52, 52, 1.0)
        }
        assert store.add_player("Ada", "ada", "hash", 1) == Player(1, "Ada")
    assert marks(store_db) == (APPLICATION_ID, SCHEMA_VERSION) == (APPLICATION_ID, 3)
    open_store(store_db).close()  # and opened again as it is


OPENER = """
import sys, time
from triples.store import open_store
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # all at once
with open_store(sys.argv[1]) as store:
    print(store.calendar("classic")["2026-01-05"].seed if "classic" in sys.argv[3:] else "opened")
"""


def started(*args: str) -> subprocess.Popen[str]:
    """``python ARGS`` in a process of its own, its output and errors piped."""
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize("old", [False, True], ids=["new", "version-1"])
def test_processes_opening_a_store_at_once_make_or_upgrade_it_once(store_db: str, old: bool) -> None:
    # Two making or upgrading it would clash (a table made twice): every opener must succeed.
    if old:
        make_version_1(store_db)
    at = str(time.time() + 1.0)  # past every process's start
    openers = [started("-c", OPENER, store_db, at, *(["classic"] if old else [])) for _ in range(4)]
    answers = [opener.communicate(timeout=TIMEOUT) for opener in openers]
    assert [(opener.returncode, err) for opener, (_, err) in zip(openers, answers, strict=True)] == [(0, "")] * 4
    assert [out for out, _ in answers] == ["7\n" if old else "opened\n"] * 4
    assert marks(store_db) == (APPLICATION_ID, SCHEMA_VERSION)


@pytest.mark.parametrize("kind", ["seeds", "secret"])
def test_calendars_filling_overlapping_spans_at_once_give_each_date_one_deal(store_db: str, kind: str) -> None:
    # Three processes on spans of 60 days, 20 days apart: the middle dates are filled by all three.
    first = date(2026, 1, 5)
    common = ["-m", "triples", "calendar", "--variant", "pairs", "--pattern", "easy", "--days", "60", "--jobs", "1"]
    common += ["--db", store_db, "--format", "jsonl", *(["--secret"] if kind == "secret" else ["--seeds", "1-2000"])]
    runs = [started(*common, "--start", (first + timedelta(days=20 * n)).isoformat()) for n in range(3)]
    printed = [run.communicate(timeout=TIMEOUT) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], [err for _, err in printed]
    key = "deal" if kind == "secret" else "seed"
    with open_store(store_db) as store:
        deals = store.secret_calendar("pairs") if kind == "secret" else store.calendar("pairs")
    kept = {day: getattr(deal, key) for day, deal in deals.items()}
    assert sorted(kept) == [(first + timedelta(days=n)).isoformat() for n in range(100)]
    assert len(set(kept.values())) == 100  # no deal on two dates
    for out, _ in printed:  # what each process printed is what the store keeps
        rows = [orjson.loads(line) for line in out.splitlines()]
        assert len(rows) == 60 and all(row[key] == kept[row["date"]] for row in rows)


SECRET = SecretDeal(
    "2026-01-05", "classic", "abcdefghjk", "classic", ("9D", "AH"), "hard", 39, 21, 0.15, ((0, 2, 5), (1, 3, 4))
)


def store_with_secret(db: str) -> Any:
    store = open_store(db)
    with store.writing() as db:
        store.add_secret_deals(db, [SECRET])
    return store


def test_a_secret_deal_is_kept_whole_and_a_date_or_deal_id_only_once(store_db: str) -> None:
    with store_with_secret(store_db) as store:
        assert store.secret_deal("abcdefghjk") == SECRET
        assert store.secret_deals_on("2026-01-05") == [SECRET] and store.secret_deals_on("2026-01-06") == []
        assert store.secret_calendar("classic") == {"2026-01-05": SECRET} and store.secret_calendar("sum15") == {}
        assert store.secret_deal("nothere") is None
        same_date = SecretDeal(**{**SECRET.__dict__, "deal": "other"})
        same_id = SecretDeal(**{**SECRET.__dict__, "date": "2026-01-06"})
        for clash in (same_date, same_id):
            with pytest.raises(StoreError, match=TAKEN), store.writing() as db:
                store.add_secret_deals(db, [clash])
        assert store.secret_calendar("classic") == {"2026-01-05": SECRET}
        assert store.calendar("classic") == {}  # the seed calendar is another


def test_names_are_unique_ignoring_case_and_a_token_finds_its_player(store_db: str) -> None:
    with store_with_secret(store_db) as store:
        ada = store.add_player("Ada", "ada", "h-ada", 1)
        assert ada == Player(1, "Ada")
        assert store.add_player("ADA", "ada", "h-other", 2) is None
        assert store.add_player("Bob", "bob", "h-bob", 3) == Player(2, "Bob")
        assert store.player_with_token("h-ada") == ada and store.player_with_token("h-none") is None


def test_one_attempt_a_player_and_each_turn_played_once(store_db: str) -> None:
    with store_with_secret(store_db) as store:
        ada = store.add_player("Ada", "ada", "h-ada", 1)
        assert ada is not None
        attempt, started = store.start_attempt(ada.id, SECRET.deal, 100)
        assert (attempt, started) == (Attempt(1, ada.id, SECRET.deal, 100, 0, 0, 100, None), True)
        assert store.start_attempt(ada.id, SECRET.deal, 200) == (attempt, False)
        assert store.play_move(attempt.id, 0, [0, 2, 5], 3, False, 150) is True
        assert store.play_move(attempt.id, 0, [1, 3, 4], 3, False, 160) is False  # that turn is played
        assert store.play_move(attempt.id, 2, [1, 3, 4], 6, False, 160) is False  # not its turn yet
        assert store.play_move(attempt.id, 1, [1, 3, 4], 6, True, 170) is True
        assert store.play_move(attempt.id, 2, [0, 1, 2], 9, True, 180) is False  # finished
        assert store.moves_of(attempt.id) == [PlayedMove(0, (0, 2, 5), 150), PlayedMove(1, (1, 3, 4), 170)]
        assert store.attempt(attempt.id) == Attempt(1, ada.id, SECRET.deal, 100, 2, 6, 170, 170)
        assert store.attempts_of(SECRET.deal) == [Attempt(1, ada.id, SECRET.deal, 100, 2, 6, 170, 170)]
        assert store.attempt(99) is None


def test_the_leaderboard_orders_cleared_then_seconds_then_finish(store_db: str) -> None:
    with store_with_secret(store_db) as store:
        # (name, start, cleared in moves of 3, last move, finished?)
        plays = [("a", 0, 2, 50, True), ("b", 10, 3, 90, True), ("c", 0, 3, 80, True), ("d", 5, 3, 85, True),
                 ("e", 0, 9, 10, False)]  # fmt: skip
        for name, start, moves, last, finished in plays:
            player = store.add_player(name, name, f"h-{name}", 0)
            assert player is not None
            attempt, _ = store.start_attempt(player.id, SECRET.deal, start)
            for turn in range(moves):
                over = finished and turn == moves - 1
                at = last if turn == moves - 1 else start + 1
                assert store.play_move(attempt.id, turn, [0, 1, 2], 3 * (turn + 1), over, at)
        board = store.leaderboard(SECRET.deal, 100, "0.1.0")
        assert (board.started, board.finished) == (5, 4)
        # b, c and d clear 9: c and d took 80, b 80 too but finished last; a cleared 6
        assert board.entries == [
            Standing("c", 9, 3, 80, 80),
            Standing("d", 9, 3, 80, 85),
            Standing("b", 9, 3, 80, 90),
            Standing("a", 6, 2, 50, 50),
        ]
        assert store.leaderboard(SECRET.deal, 2, "0.1.0").entries == board.entries[:2]
        assert store.leaderboard("other", 100, "0.1.0").entries == []
        # Audited attempts carry their verdict on the board; the first audit of one is kept.
        finished = {entry.name: entry for entry in store.finished_attempts(SECRET.deal)}
        assert sorted(finished) == ["a", "b", "c", "d"] and finished["a"].moves == ((0, 1, 2), (0, 1, 2))
        store.keep_audits([
            AuditRecord(finished["c"].attempt.id, 3, 2, 0.001, "suspect", 0.5, "0.1.0"),
            AuditRecord(finished["a"].attempt.id, 2, 0, 1.0, "blind", None, "0.1.0"),
        ])  # fmt: skip
        store.keep_audits([AuditRecord(finished["c"].attempt.id, 3, 0, 1.0, "blind", None, "0.1.0")])
        assert [(entry.name, entry.suspect) for entry in store.leaderboard(SECRET.deal, 100, "0.1.0").entries] == [
            ("c", True), ("d", None), ("b", None), ("a", False)
        ]  # fmt: skip
        assert store.audits_of(SECRET.deal)[finished["c"].attempt.id].verdict == "suspect"
        # An audit of another method replaces the kept one.
        store.keep_audits([AuditRecord(finished["c"].attempt.id, 3, 1, 0.5, "blind", 0.5, "2")])
        assert store.audits_of(SECRET.deal)[finished["c"].attempt.id] == AuditRecord(
            finished["c"].attempt.id, 3, 1, 0.5, "blind", 0.5, "2"
        )
        assert store.audits_of(SECRET.deal)[finished["a"].attempt.id].version == "0.1.0"
        # A board asked for one method's audits leaves the others' entries unaudited.
        assert [(entry.name, entry.suspect) for entry in store.leaderboard(SECRET.deal, 100, "2").entries] == [
            ("c", False), ("d", None), ("b", None), ("a", None)
        ]  # fmt: skip
