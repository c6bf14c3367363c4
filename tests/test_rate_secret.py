"""``triples calendar --secret`` (triples/doors/rating/secret.py): decks drawn with ``secrets`` by a
Fisher-Yates shuffle, rated as seeds are rated (checked again here through ``run``), drawn again
until the date's band and --min-best hold, kept with a random deal id; published days kept
through re-runs; a pool of workers; running out; the formats and the refusals."""

from __future__ import annotations

import re
import secrets
import signal
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.processes import EXIT_WITHIN, descendants, left_running, start, stopped
from triples import run
from triples.doors import cli
from triples.doors.rating import secret
from triples.model.variants import VARIANTS
from triples.store import StoreError, open_store

WEEK = "easy,medium,easy,medium,easy,easy,hard"
START = "2026-01-05"  # a Monday


def calendar(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], list[str]]:
    status = cli.main(["calendar", "--secret", "--format", "jsonl", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return status, [orjson.loads(line) for line in out.splitlines()], err.splitlines()


def test_a_deck_is_a_fisher_yates_shuffle_drawn_with_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []

    def randbelow(n: int) -> int:  # every draw is the top of its range: each card swaps with itself
        asked.append(n)
        return n - 1

    monkeypatch.setattr(secrets, "randbelow", randbelow)
    classic = VARIANTS["classic"]
    assert secret.draw_deck(classic) == list(classic.cards)
    assert asked == list(range(52, 1, -1))  # one uniform draw per position, from the whole rest
    asked.clear()
    monkeypatch.setattr(secrets, "randbelow", lambda n: asked.append(n) or 0)
    deck = secret.draw_deck(classic)  # always the first: each position takes the card at 0
    assert deck[1:] == [*classic.cards[2:], classic.cards[0]] and deck[0] == classic.cards[1]


def test_decks_are_drawn_afresh_and_ids_are_short_and_random() -> None:
    classic = VARIANTS["classic"]
    decks = {tuple(card.code for card in secret.draw_deck(classic)) for _ in range(50)}
    assert len(decks) == 50 and all(sorted(deck) == sorted(c.code for c in classic.cards) for deck in decks)
    ids = {secret.new_deal_id() for _ in range(50)}
    assert len(ids) == 50 and all(re.fullmatch(f"[{secret.DEAL_ID_ALPHABET}]{{10}}", deal) for deal in ids)


def test_a_week_of_secret_days_is_rated_as_seeds_are(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "game.db")
    status, rows, err = calendar(capsys, "--db", db, "--start", START, "--days", "7", "--pattern", WEEK)
    assert status == 0, err
    assert [row["band"] for row in rows] == WEEK.split(",")
    assert err[:2] == [
        "variant: classic (secret decks)",
        f"dates: {START} to 2026-01-11: 7 of 7 have a deal (0 already set, 7 new)",
    ]
    with open_store(db) as store:
        deals = store.secret_calendar("classic")
        assert store.calendar("classic") == {}  # no seed calendar was touched
    for row in rows:
        deal = deals[row["date"]]
        assert row == {name: getattr(deal, name) for name in secret.ROW_COLUMNS}
        assert sorted(deal.deck) == sorted(card.code for card in VARIANTS["classic"].cards)
        assert deal.best >= 13  # the default --min-best, a quarter of the deck
        # The rating operation on the deck, and the line played on it, agree with what was kept.
        ops: list[Any] = [["new", "g", list(deal.deck)], ["rating", "g"]]
        ops += [["play", "g", list(move)] for move in deal.line] + [["status", "g"]]
        outputs = run(ops)
        rating = outputs[1]
        assert (rating["band"], rating["best"], rating["fair"], rating["p_random"]) == (
            deal.band, deal.best, deal.fair, deal.p_random
        )  # fmt: skip
        assert outputs[2:-1] == ["ok"] * len(deal.line) and outputs[-1]["cleared"] == deal.best


def test_list_shows_the_secret_days_with_their_deal_ids_and_tables(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    db = str(tmp_path / "game.db")
    _, rows, _ = calendar(capsys, "--db", db, "--start", START, "--days", "2", "--pattern", "easy")
    status, listed, err = calendar(capsys, "--db", db, "--start", START, "--days", "3", "--list")
    assert status == 0 and err[-1] == f"dates: {START} to 2026-01-07: 2 of 3 have a deal"
    with open_store(db) as store:
        deals = store.secret_calendar("classic")
    assert listed == [{**row, "table": run([["new", "g", list(deals[row["date"]].deck)]])[0]} for row in rows]


def test_published_days_never_change(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "game.db")
    _, first, _ = calendar(capsys, "--db", db, "--start", START, "--days", "3", "--pattern", "easy")
    status, again, err = calendar(capsys, "--db", db, "--start", START, "--days", "5", "--pattern", "hard")
    assert status == 0
    assert again[:3] == first and [row["band"] for row in again[3:]] == ["hard", "hard"]
    assert err[1] == f"dates: {START} to 2026-01-09: 5 of 5 have a deal (3 already set, 2 new)"
    assert len({row["deal"] for row in again}) == 5


def test_a_pool_of_workers_fills_the_days_too(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    db = str(tmp_path / "game.db")
    status = cli.main(["calendar", "--secret", "--variant", "sum15", "--db", db, "--start", START, "--days", "4",
                       "--pattern", "easy,medium", "--min-best", "30", "--jobs", "2", "--format", "csv"])  # fmt: skip
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "date,variant,deal,band,best,fair,p_random"
    assert [line.split(",")[3] for line in lines[1:]] == ["easy", "medium", "easy", "medium"]
    assert all(int(line.split(",")[4]) >= 30 for line in lines[1:])


def test_running_out_keeps_the_days_found(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = str(tmp_path / "game.db")
    _, kept, _ = calendar(capsys, "--db", db, "--start", START, "--days", "1", "--pattern", "easy")
    assert len(kept) == 1  # found with the usual number of draws: decks are drawn at random
    monkeypatch.setattr(secret, "MAX_DRAWS_PER_DATE", 3)
    status, rows, err = calendar(capsys, "--db", db, "--start", START, "--days", "3", "--pattern", "easy",
                                 "--min-best", "52")  # fmt: skip  # classic can never be cleared
    assert (status, rows) == (1, kept)
    assert err[-1] == (
        "triples calendar: 6 decks drawn, too few easy deals of classic with best >= 52 for 2026-01-06; "
        "try a lower --min-best or another band"
    )


def test_the_table_format_shows_the_deal_where_seeds_show_the_seed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args = ["calendar", "--secret", "--variant", "sum15", "--start", START, "--days", "2", "--pattern", "easy"]
    assert cli.main([*args, "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    table = out.splitlines()
    assert table[0].split() == ["date", "variant", "deal", "band", "best", "fair", "p_random"]
    assert [line.split()[:2] for line in table[1:]] == [[START, "sum15"], ["2026-01-06", "sum15"]]
    assert "not kept: without --db the calendar is worked out in memory only" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seeds", "1-9"], "--seeds: a secret calendar draws its decks at random, from no seed"),
        (["--variant", "grid100"], "grid100 has no difficulty bands: they are rated with p_random"),
    ],
    ids=["seeds", "no-bands"],
)
def test_refusals_are_one_line(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    status = cli.main(["calendar", "--secret", "--start", START, "--days", "1", "--pattern", "easy", *args])
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    assert err.startswith(f"triples calendar: error: {message}") and err.count("\n") == 1


def test_ctrl_c_keeps_and_prints_the_days_found_and_leaves_no_worker(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    # Hard days of best 45 or more are rare: the run is still drawing when the signal comes.
    child = start(["calendar", "--secret", "--db", str(db), "--start", START, "--days", "60", "--pattern", "hard",
                   "--min-best", "45", "--jobs", "2", "--format", "jsonl"], tmp_path)  # fmt: skip
    deadline = time.monotonic() + 60
    while not secret_days(db) and time.monotonic() < deadline and child.poll() is None:
        time.sleep(0.05)
    workers = descendants(child.pid)
    out, err, _ = stopped(child, signal.SIGINT)
    assert child.returncode == 130, err
    kept = secret_days(db)
    assert 1 <= len(kept) < 60
    assert [orjson.loads(line)["deal"] for line in out.splitlines()] == [kept[day] for day in sorted(kept)]
    assert err.splitlines()[-1] == "interrupted: the dates filled so far are kept"
    assert workers and left_running(workers, EXIT_WITHIN) == set()


def secret_days(db: Path) -> dict[str, str]:
    if not db.exists():
        return {}
    try:
        with open_store(str(db)) as store:
            return {day: deal.deal for day, deal in store.secret_calendar("classic").items()}
    except StoreError:  # being made
        return {}
