"""``triples calendar`` (triples/doors/rating/calendar.py): two-week calendars of two variants checked
against the store's ratings and a fresh rating of every chosen seed, weekday and repeating
patterns, published dates kept through re-runs, extensions and overlaps, running out of a
band, the formats and refusals.

Runs go through ``triples.doors.cli.main`` in this process with one job. The seeds are rated once per
module into a store (``rated``); each test starts from a copy of it with an empty calendar, so
most runs only look rows up.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from triples.doors import cli
from triples.doors.rating.calendar import STRATEGY
from triples.doors.rating.rows import DIFFICULTY_COLUMNS, RateOptions, row_values
from triples.doors.rating.seed_rows import rate_batch
from triples.doors.rating.store_backed import provenance_of
from triples.model.variants import parse_variant
from triples.store import open_store

if TYPE_CHECKING:
    from tests.postgres_server import Cluster

# Monday to Sunday; a week needs one hard deal, two medium and four easy.
WEEK = "easy,medium,easy,medium,easy,easy,hard"
START = "2026-01-07"  # a Wednesday: the pattern must still start from Monday
DAYS = 14
VARIANTS = ("classic", "sum15")


def calendar(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], list[str]]:
    status = cli.main(["calendar", "--format", "jsonl", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return status, [orjson.loads(line) for line in out.splitlines()], err.splitlines()


def dates(start: str, days: int) -> list[str]:
    first = date.fromisoformat(start)
    return [(first + timedelta(days=offset)).isoformat() for offset in range(days)]


@pytest.fixture(scope="module")
def rated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding the ratings two weeks of each variant need, and no calendar."""
    path = tmp_path_factory.mktemp("rated") / "rated.db"
    for variant in VARIANTS:
        args = ["calendar", "--variant", variant, "--db", str(path), "--start", START, "--days", str(DAYS)]
        assert cli.main([*args, "--pattern", WEEK, "--jobs", "1", "--format", "jsonl"]) == 0
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DELETE FROM calendar")
    db.close()  # the last connection to close folds the log into the file, which is then copied alone
    return path


@pytest.fixture
def db(rated: Path, tmp_path: Path) -> str:
    path = tmp_path / "season.db"
    shutil.copy(rated, path)
    return str(path)


def stored_rows(db: str, variant: str) -> list[dict[str, Any]]:
    options = RateOptions(variant, STRATEGY, DIFFICULTY_COLUMNS)
    with open_store(db) as store:
        return [{"seed": seed, **values} for seed, values in store.rows(provenance_of(options), 0, 10**9)]


def fresh_rows(variant: str, seeds: list[int]) -> dict[int, dict[str, Any]]:
    rows = rate_batch(RateOptions(variant, STRATEGY, DIFFICULTY_COLUMNS), seeds)
    return {row.seed: row_values(row) for row in rows}


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_date_gets_the_lowest_unused_seed_of_its_weekday_band(
    capsys: pytest.CaptureFixture[str], db: str, variant: str
) -> None:
    status, rows, err = calendar(
        capsys, "--variant", variant, "--db", db, "--start", START, "--days", str(DAYS), "--pattern", WEEK
    )
    assert status == 0, err
    assert [row["date"] for row in rows] == dates(START, DAYS)
    pattern = WEEK.split(",")
    assert [row["band"] for row in rows] == [pattern[date.fromisoformat(row["date"]).weekday()] for row in rows]
    assert rows[0]["band"] == "easy" and rows[4]["band"] == "hard"  # Wednesday, then Sunday
    # Against every rating the store holds: each date takes the lowest seed of its band that no
    # earlier date took (so no seed twice), and the store holds every seed up to the last taken.
    ratings = stored_rows(db, variant)
    assert [row["seed"] for row in ratings] == list(range(1, len(ratings) + 1))
    used: set[int] = set()
    min_best = -(-parse_variant(variant).deck_size // 4)  # the default --min-best: a quarter of the deck
    for row in rows:
        lowest = next(
            r for r in ratings if r["band"] == row["band"] and r["seed"] not in used and r["best"] >= min_best
        )
        assert row["seed"] == lowest["seed"]
        used.add(row["seed"])
    # And against a fresh rating of each chosen seed, outside the store.
    fresh = fresh_rows(variant, [row["seed"] for row in rows])
    for row in rows:
        expected = fresh[row["seed"]]
        assert row == {
            "date": row["date"],
            "variant": variant,
            **{k: expected[k] for k in ("seed", "band", "best", "fair", "p_random")},
        }
    assert err[:2] == [
        f"variant: {variant}",
        f"dates: {START} to 2026-01-20: 14 of 14 have a deal (0 already set, 14 new)",
    ]


def test_a_pattern_of_another_length_repeats_from_the_start_date(capsys: pytest.CaptureFixture[str], db: str) -> None:
    status, rows, _ = calendar(
        capsys, "--variant", "sum15", "--db", db, "--start", START, "--days", "7", "--pattern", "medium,easy,easy"
    )
    assert status == 0
    assert [row["band"] for row in rows] == ["medium", "easy", "easy", "medium", "easy", "easy", "medium"]
    assert len({row["seed"] for row in rows}) == 7


def test_published_dates_never_change(capsys: pytest.CaptureFixture[str], db: str) -> None:
    base = ["--variant", "classic", "--db", db, "--pattern", WEEK]
    _, first, _ = calendar(capsys, *base, "--start", START, "--days", "7")
    # The same span again: the same rows, nothing new.
    status, again, err = calendar(capsys, *base, "--start", START, "--days", "7")
    assert (status, again) == (0, first)
    assert err[1] == f"dates: {START} to 2026-01-13: 7 of 7 have a deal (7 already set, 0 new)"
    # Extended, and with another pattern: the first week is kept as published.
    status, extended, err = calendar(
        capsys, "--variant", "classic", "--db", db, "--pattern", "easy", "--start", START, "--days", "9"
    )
    assert status == 0 and extended[:7] == first
    assert [row["band"] for row in extended[7:]] == ["easy", "easy"]  # Wednesday and Thursday
    # Overlapping from before: the earlier dates are filled with seeds no date uses yet.
    status, overlap, err = calendar(capsys, *base, "--start", "2026-01-03", "--days", "14")
    assert status == 0 and overlap[4:13] == extended[:9]
    assert err[1] == "dates: 2026-01-03 to 2026-01-16: 14 of 14 have a deal (9 already set, 5 new)"
    seeds = [row["seed"] for row in overlap]
    assert len(set(seeds)) == len(seeds)


def test_the_range_running_out_keeps_and_prints_the_dates_filled(capsys: pytest.CaptureFixture[str], db: str) -> None:
    base = ["--variant", "sum15", "--db", db, "--start", START, "--days", "4", "--pattern", "easy,hard"]
    status, rows, err = calendar(capsys, *base, "--seeds", "1-30")
    assert status == 1
    assert [(row["date"], row["band"]) for row in rows] == [(START, "easy")]
    assert err[-1] == (
        "triples calendar: seeds 1-30 hold no more hard (best >= 9) deals of sum15 for 2026-01-08; "
        "try a wider range, such as --seeds 1-60"
    )
    status, wider, _ = calendar(capsys, *base, "--seeds", "1-100")
    assert status == 0 and wider[0] == rows[0] and [row["band"] for row in wider] == ["easy", "hard"] * 2


def test_formats_hold_the_same_rows(capsys: pytest.CaptureFixture[str], db: str) -> None:
    base = [
        "calendar",
        "--variant",
        "sum15",
        "--db",
        db,
        "--start",
        START,
        "--days",
        "3",
        "--pattern",
        "easy",
        "--jobs",
        "1",
    ]
    assert cli.main([*base, "--format", "jsonl"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert cli.main([*base, "--format", "csv"]) == 0
    csv_lines = capsys.readouterr().out.splitlines()
    assert csv_lines[0] == "date,variant,seed,band,best,fair,p_random"
    assert csv_lines[1:] == [
        ",".join(str(row[c]) for c in ("date", "variant", "seed", "band", "best", "fair", "p_random")) for row in rows
    ]
    assert cli.main(base) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["date", "variant", "seed", "band", "best", "fair", "p_random"]
    assert [line.split() for line in table[1:]] == [
        [
            row["date"],
            "sum15",
            str(row["seed"]),
            row["band"],
            str(row["best"]),
            str(row["fair"]),
            f"{row['p_random']:.4f}",
        ]
        for row in rows
    ]


def test_without_a_store_nothing_is_kept(capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, err = calendar(capsys, "--variant", "pairs", "--start", START, "--days", "3", "--pattern", "easy")
    # Seeds 1, 4 and 5 clear fewer than 13 cards, a quarter of the deck: the default --min-best.
    assert {seed: row["best"] >= 13 for seed, row in fresh_rows("pairs", list(range(1, 7))).items()} == {
        1: False, 2: True, 3: True, 4: False, 5: False, 6: True
    }  # fmt: skip
    assert (status, [row["seed"] for row in rows]) == (0, [2, 3, 6])
    assert "not kept: without --db the calendar is worked out in memory only" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--days", "3", "--pattern", "easy"], "the following arguments are required: --start"),
        (["--start", "2026-02-30", "--days", "3", "--pattern", "easy"], "--start 2026-02-30: no such date"),
        (["--start", "5.1.2026", "--days", "3", "--pattern", "easy"], "--start 5.1.2026: expected a date YYYY-MM-DD"),
        (["--start", START, "--days", "0", "--pattern", "easy"], "argument --days: 0: expected a positive integer"),
        (["--start", START, "--days", "3"], "the following arguments are required: --pattern (all but --list need it)"),
        (
            ["--start", START, "--days", "3", "--pattern", "easy,tough"],
            "--pattern easy,tough: 'tough' is not a band (expected easy, medium, hard)",
        ),
        (
            ["--start", START, "--days", "3", "--pattern", "easy", "--min-best", "53"],
            "--min-best 53: classic has only 52 cards",
        ),
        (["--start", "9999-12-30", "--days", "3", "--pattern", "easy"], "--days 3: the span ends past the year 9999"),
        (
            ["--variant", "grid100", "--start", START, "--days", "3", "--pattern", "easy"],
            "grid100 has no difficulty bands",
        ),
        (["--variant", "pairs", "--start", START, "--days", "3", "--pattern", "easy,hard"], "no pairs deal is hard"),
    ],
    ids=[
        "no-start",
        "no-such-date",
        "not-iso",
        "no-days",
        "no-pattern",
        "bad-band",
        "min-best",
        "past-9999",
        "grid100",
        "pairs-hard",
    ],
)
def test_bad_input_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    db = tmp_path / "season.db"
    assert cli.main(["calendar", "--db", str(db), *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"triples calendar: error: {message}")
    assert err.endswith(f"{message}\n") or args[1] in ("grid100", "pairs")  # those two go on to say why


def test_help_has_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["calendar", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--pattern BANDS" in text and "examples:\n  triples calendar --start 2026-01-05 --days 14" in text
    assert "--variant VARIANT" in text and "classic, pairs, quads, sum15" in text


def test_a_rule_set_of_ones_own_has_one_calendar_by_its_canonical_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "rules.db")
    base = ["--db", db, "--start", START, "--days", "3", "--pattern", "easy", "--format", "csv"]
    assert cli.main(["calendar", "--variant", '{"base": "classic", "slots": 11, "target": 21}', *base]) == 0
    lines = capsys.readouterr().out.splitlines()
    name = "classic(slots=11,target=21)"
    assert [line.split('",')[0] for line in lines[1:]] == [f'{day},"{name}' for day in dates(START, 3)]
    fresh = fresh_rows(name, [int(line.split('",')[1].split(",")[0]) for line in lines[1:]])
    assert all(row["band"] == "easy" for row in fresh.values())
    # The same rules by name: the same calendar, extended.
    status, rows, err = calendar(
        capsys, "--variant", name, "--db", db, "--start", START, "--days", "4", "--pattern", "easy"
    )
    assert status == 0 and [row["variant"] for row in rows] == [name] * 4
    assert [row["seed"] for row in rows[:3]] == sorted(fresh) and rows[3]["seed"] not in fresh
    assert err[1] == f"dates: {START} to 2026-01-10: 4 of 4 have a deal (3 already set, 1 new)"


def test_list_shows_the_stored_days_with_their_tables_and_fills_nothing(
    capsys: pytest.CaptureFixture[str], db: str, tmp_path: Path
) -> None:
    from triples import run

    base = ["--variant", "sum15", "--db", db]
    _, published, _ = calendar(capsys, *base, "--start", START, "--days", "3", "--pattern", "easy")
    before = Path(db).read_bytes()
    status, listed, err = calendar(capsys, *base, "--start", "2026-01-06", "--days", "5", "--list")
    assert status == 0
    tables = [run([["new", "g", row["seed"], "sum15"]])[0] for row in published]
    assert listed == [{**row, "table": table} for row, table in zip(published, tables, strict=True)]
    assert err == ["variant: sum15", "dates: 2026-01-06 to 2026-01-10: 3 of 5 have a deal"]
    assert Path(db).read_bytes() == before  # nothing rated, filled or written
    assert cli.main(["calendar", *base, "--start", START, "--days", "3", "--list", "--format", "csv"]) == 0
    csv_lines = capsys.readouterr().out.splitlines()
    assert csv_lines[0] == "date,variant,seed,band,best,fair,p_random,table"
    assert csv_lines[1].endswith("," + " ".join(tables[0]))
    assert cli.main(["calendar", *base, "--start", START, "--days", "3", "--list"]) == 0
    table_lines = capsys.readouterr().out.splitlines()
    assert table_lines[0].split() == ["date", "variant", "seed", "band", "best", "fair", "p_random", "table"]
    assert table_lines[1].split()[7:] == tables[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--db", "missing.db"], "--db missing.db: no such store (--list reads one, it never makes one)"),
        ([], "--list shows the calendar kept in a store: give --db FILE"),
    ],
    ids=["missing-store", "no-store"],
)
def test_list_refuses_in_one_line_and_creates_no_store(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    status = cli.main(["calendar", "--start", START, "--days", "3", "--list", *args])
    assert (status, capsys.readouterr().err) == (2, f"triples calendar: error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_list_on_postgresql_reads_a_store_and_never_makes_one(
    capsys: pytest.CaptureFixture[str], postgres: Cluster
) -> None:
    db = postgres.new_database()
    base = ["--variant", "pairs", "--db", db, "--start", START, "--days", "3"]
    status = cli.main(["calendar", *base, "--list"])
    message = f"--db {db}: no such store (--list reads one, it never makes one)"
    assert (status, capsys.readouterr().err) == (2, f"triples calendar: error: {message}\n")
    assert postgres.psql("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", db) == "0\n"
    _, published, _ = calendar(capsys, *base, "--pattern", "easy")
    status, listed, _ = calendar(capsys, *base, "--list")
    assert status == 0 and [{k: v for k, v in row.items() if k != "table"} for row in listed] == published


def test_a_run_that_leaves_dates_empty_between_published_days_warns(
    capsys: pytest.CaptureFixture[str], db: str
) -> None:
    base = ["--variant", "sum15", "--db", db, "--pattern", "easy"]
    status, _, err = calendar(capsys, *base, "--start", "2026-12-03", "--days", "4")
    assert status == 0 and not any("warning" in line for line in err)
    status, _, err = calendar(capsys, *base, "--start", "2027-01-01", "--days", "3")
    assert status == 0
    assert err[-1] == (
        "triples calendar: warning: the sum15 calendar has no deal for 2026-12-07 to 2026-12-31, between "
        "published days; run the command for those dates to fill them"
    )
    status, _, err = calendar(capsys, *base, "--start", "2026-12-07", "--days", "25")
    assert status == 0 and not any("warning" in line for line in err)


LOOKED = re.compile(
    r"seeds looked at: (\d+)-(\d+) \((\d+) deals?: (\d+) rated, (\d+) from the store"
    r"(?:, (\d+) skipped as already in the calendar)?\)(?:; (\d+) more rated ahead of need and kept in the store)?"
)


def looked_at(err: list[str]) -> tuple[int, ...]:
    found = LOOKED.fullmatch(next(line for line in err if line.startswith("seeds looked at: ")))
    assert found is not None, err
    return tuple(int(group or 0) for group in found.groups())


def test_the_seeds_looked_at_add_up(capsys: pytest.CaptureFixture[str], db: str) -> None:
    base = ["--variant", "sum15", "--db", db, "--pattern", "easy,hard"]
    status, rows, err = calendar(capsys, *base, "--start", START, "--days", "4")
    assert status == 0
    first, last, deals, rated, stored, skipped, _ = looked_at(err)
    assert (first, last, skipped) == (1, max(row["seed"] for row in rows), 0)
    assert deals == rated + stored == last - first + 1
    # The next span passes over the seeds the calendar already uses, and says how many.
    status, more, err = calendar(capsys, *base, "--start", "2026-01-11", "--days", "2")
    assert status == 0
    first, last, deals, rated, stored, skipped, _ = looked_at(err)
    assert (first, last) == (1, max(row["seed"] for row in more))
    assert skipped == sum(1 for row in rows if row["seed"] <= last) > 0
    assert deals == rated + stored and deals + skipped == last - first + 1
