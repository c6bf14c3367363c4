"""``triples audit`` (triples/doors/cli/audit.py, over triples/doors/kit/audits.py): a day's
finished attempts audited from the players' store, each audit kept and read back rather than
worked out again, a terminal's progress, and one-line refusals.

The day's deal is classic seed 37: its best line clears 42, the fair player 27. A player who
plays the best line leaves the fair player's choice twice and is right both times on the stock
that came; a blind player is that lucky about 4 times in 100 (suspect). ``high``'s game is
blind. An attempt not finished is not audited."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.players_server import day, played_day
from triples.doors import cli
from triples.engines import audit
from triples.store import open_store

SIGHTED = (42, 14, 2, 0.0392156862745098, "suspect", 0.6)  # cleared, moves, sighted, p, verdict, engine_match
BLIND = (18, 6, 0, 1.0, "blind", 0.4)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    db = tmp_path / "game.db"
    played_day(db)
    return db


def audited(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = cli.main(["audit", *arguments])
    out, err = capsys.readouterr()
    return status, out, err


def sighted_after(store: Path, capsys: pytest.CaptureFixture[str], change: str) -> tuple[int, str, str]:
    """The day's audit after ``change`` (SQL) to the store: its status, the Sighted player's
    row and what it wrote on stderr."""
    with sqlite3.connect(store) as connection:
        connection.execute(change)
    status, out, err = audited(capsys, "--db", str(store), "--date", day(-1))
    return status, out.splitlines()[1], err


def test_the_table_of_a_day(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert audited(capsys, "--db", str(store), "--date", day(-1)) == (
        0,
        "      date  variant             name cleared moves sighted        p verdict engine_match\n"
        f"{day(-1)}  classic          Sighted      42    14       2   0.0392 suspect         0.60\n"
        f"{day(-1)}  classic            Blind      18     6       0   1.0000   blind         0.40\n",
        "2 finished attempts audited: 1 suspect\n",
    )


def test_jsonl_and_csv_rows(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = audited(capsys, "--db", str(store), "--date", day(-1), "--format", "jsonl")
    keys = ("cleared", "moves", "sighted", "p", "verdict", "engine_match")
    date, variant = day(-1), "classic"
    lines = [
        f'{{"date":"{date}","variant":"{variant}","name":"{name}",'
        + ",".join(f'"{key}":{value!r}'.replace("'", '"') for key, value in zip(keys, values, strict=True))
        + "}\n"
        for name, values in (("Sighted", SIGHTED), ("Blind", BLIND))
    ]
    assert (status, out) == (0, "".join(lines))
    status, out, _ = audited(capsys, "--db", str(store), "--date", day(-1), "--format", "csv", "--variant", "classic")
    assert (status, out.splitlines()) == (
        0,
        [
            "date,variant,name,cleared,moves,sighted,p,verdict,engine_match",
            f"{date},classic,Sighted,42,14,2,0.0392156862745098,suspect,0.6",
            f"{date},classic,Blind,18,6,0,1.0,blind,0.4",
        ],
    )


def test_an_audit_is_kept_and_read_back(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    audited(capsys, "--db", str(store), "--date", day(-1))
    with open_store(str(store)) as opened:
        kept = opened.audits_of("pastclass1")
    found = [(r.moves, r.sighted, r.p, r.verdict, r.engine_match, r.version) for r in kept.values()]
    assert sorted(found) == sorted((*values[1:], audit.METHOD) for values in (SIGHTED, BLIND))
    # What is kept is what is shown: a kept audit is not worked out again.
    assert sighted_after(store, capsys, "UPDATE audits SET p = 0.5, verdict = 'blind' WHERE verdict = 'suspect'") == (
        0,
        f"{day(-1)}  classic          Sighted      42    14       2   0.5000   blind         0.60",
        "2 finished attempts audited: 0 suspect\n",
    )
    # A kept audit of another method is worked out again, and replaces it.
    older = "UPDATE audits SET version = 'older' WHERE verdict = 'blind' AND sighted = 2"
    assert sighted_after(store, capsys, older) == (
        0,
        f"{day(-1)}  classic          Sighted      42    14       2   0.0392 suspect         0.60",
        "2 finished attempts audited: 1 suspect\n",
    )
    with open_store(str(store)) as opened:
        assert {r.version for r in opened.audits_of("pastclass1").values()} == {audit.METHOD}


@pytest.mark.parametrize(
    "change", ["band = 'easy'", "band = 'medium'", "p_random = 0.5"], ids=["easy", "medium", "random-reaches"]
)
def test_a_day_is_judged_by_its_published_rating(store: Path, capsys: pytest.CaptureFixture[str], change: str) -> None:
    # The day's audit reads what the store publishes of the deal: were it of the easy or the
    # medium band, or did random players reach its best half the time (classic's cap), the best
    # line would not be judged.
    assert sighted_after(store, capsys, f"UPDATE secret_calendar SET {change}") == (
        0,
        f"{day(-1)}  classic          Sighted      42    14       2   1.0000   blind         0.60",
        "2 finished attempts audited: 0 suspect\n",
    )


def test_progress_on_a_terminal(
    store: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    _, _, err = audited(capsys, "--db", str(store), "--date", day(-1))
    assert err == (
        f"\rauditing classic {day(-1)}: 1/2 attempts\rauditing classic {day(-1)}: 2/2 attempts\n"
        "2 finished attempts audited: 1 suspect\n"
    )


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--date", "2026-2-3"], "triples audit: error: --date 2026-2-3: expected a date YYYY-MM-DD"),
        (["--date", "2026-02-30"], "triples audit: error: --date 2026-02-30: no such date"),
        (["--date", "2026-01-01"], "triples audit: error: no secret deal on 2026-01-01 in --db {db}"),
        (
            ["--date", day(-1), "--variant", "sum15"],
            f"triples audit: error: no secret deal of sum15 on {day(-1)} in --db {{db}}",
        ),
        (["--date", day(-1), "--variant", "nope"], "triples audit: error: unknown variant 'nope'"),
    ],
    ids=["short-date", "no-such-date", "no-deal", "no-deal-of-variant", "unknown-variant"],
)
def test_refusals(store: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], error: str) -> None:
    status, out, err = audited(capsys, "--db", str(store), *arguments)
    assert (status, out, err) == (2, "", error.format(db=store) + "\n")


def test_a_missing_store_is_not_made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert audited(capsys, "--db", str(missing), "--date", day(-1)) == (
        2, "", f"triples audit: error: --db {missing}: no such store\n"
    )  # fmt: skip
    assert not missing.exists()
