"""``triples calibrate`` (triples/doors/cli/calibrate.py): the players' store read into per-deal
attempts (in the order they finished; unfinished attempts left out), one calibration per
variant, its rows as tables, jsonl or csv, the reliability diagram, and one-line refusals."""

from __future__ import annotations

import math
from pathlib import Path

import orjson
import pytest

from tests.players_server import day, played_day, seed_deck
from triples.doors import cli
from triples.engines import calibration
from triples.engines.calibration import DealAttempts
from triples.store import SecretDeal, open_store

# Six past days of sum15: p_random and how many of ten attempts reached the best of 30.
DAYS = [(0.02, 1), (0.05, 2), (0.1, 4), (0.2, 5), (0.4, 7), (0.7, 9)]


def recorded_days(db: Path) -> list[DealAttempts]:
    """The days of ``DAYS`` in the store, each attempt one move that ends it; what calibration
    should read of them."""
    deck = tuple(seed_deck(1, "sum15"))
    expected = []
    with open_store(str(db)) as store:
        for offset, (p_random, reached) in enumerate(DAYS, start=2):
            date, deal = day(-offset), f"sum15day{offset:02d}"
            band = "easy" if p_random > 0.3 else "hard"
            secret = SecretDeal(date, "sum15", deal, "sum15", deck, band, 30, 24, p_random, ())
            with store.writing() as connection:
                store.add_secret_deals(connection, [secret])
            cleared = [30 if i < reached else 21 + i for i in range(10)]
            for i, count in enumerate(cleared):
                player = store.add_player(f"{deal}-{i}", f"{deal}-{i}", f"{deal}-{i}", 0)
                assert player is not None
                attempt, _ = store.start_attempt(player.id, deal, 1000 * i)
                # finished in the reverse order of their start: calibration reads the order they finished
                assert store.play_move(attempt.id, 0, [0, 1, 2], count, True, 100_000 - 1000 * i)
            expected.append(DealAttempts(date, "sum15", band, 30, 24, p_random, tuple(reversed(cleared))))
    return sorted(expected, key=lambda d: d.date)


def calibrated(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = cli.main(["calibrate", *arguments])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_tables_of_one_deal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "game.db"
    played_day(db)
    assert calibrated(capsys, "--db", str(db)) == (
        0,
        "      date  variant   band best attempts reached_best  share    low   high mean_cleared p_random"
        " fair_reaches predicted  rating\n"
        f"{day(-1)}  classic   hard   42        2            1  0.500  0.095  0.905         30.0   0.0469"
        "           no         -  1500.0\n"
        "\n"
        " variant   band deals attempts reached_best  share    low   high p_random fair_reaches predicted\n"
        " classic   hard     1        2            1  0.500  0.095  0.905   0.0469        0.000         -\n"
        "\n"
        "fit of classic: too few attempts, or too alike, to fit p_random to the share reaching best\n",
        "1 deal, 2 finished attempts\n",
    )


def test_rows_are_the_calibration_of_each_variant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "game.db"
    played_day(db)
    sum15 = recorded_days(db)
    status, out, err = calibrated(capsys, "--db", str(db), "--format", "jsonl")
    with open_store(str(db)) as store:
        classic = [DealAttempts(day(-1), "classic", "hard", 42, 27, store.secret_calendar("classic")[day(-1)].p_random,
                                (42, 18))]  # fmt: skip
    expected = calibration.rows(classic, variant="classic") + calibration.rows(sum15, variant="sum15")
    assert (status, err) == (0, "7 deals, 62 finished attempts\n")
    assert [orjson.loads(line) for line in out.splitlines()] == orjson.loads(orjson.dumps(expected))
    fit = expected[-1]
    assert fit["slope"] > 0 and set(fit["cuts"]) == {"easy", "medium"}
    status, out, _ = calibrated(capsys, "--db", str(db), "--variant", "sum15")
    assert status == 0
    assert out.endswith(
        f"fit of sum15: logit(share reaching best) = {fit['intercept']:.3f} (+-{fit['intercept_error']:.3f})"
        f" + {fit['slope']:.3f} (+-{fit['slope_error']:.3f}) * logit(p_random); 6 deals, 60 attempts\n"
        f"cut points for the shares design asks: easy from p_random {fit['cuts']['easy']:.4f},"
        f" medium from p_random {fit['cuts']['medium']:.4f}\n"
    )
    # The fitted map is what its coefficients say: its prediction at the first sum15 deal's
    # p_random (the earliest day, the last of DAYS).
    first = expected[3]
    assert (first["kind"], first["p_random"]) == ("deal", DAYS[-1][0])
    logit = calibration.logit(DAYS[-1][0])
    assert math.isclose(first["predicted"], 1 / (1 + math.exp(-(fit["intercept"] + fit["slope"] * logit))))
    status, out, _ = calibrated(capsys, "--db", str(db), "--variant", "sum15", "--format", "csv")
    assert out.splitlines()[0] == (
        "date,variant,band,best,attempts,reached_best,share,low,high,mean_cleared,p_random,fair_reaches,predicted,rating"
    )


def test_the_reliability_diagram(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="--plot needs the plot extra")
    db = tmp_path / "game.db"
    recorded_days(db)
    status, _, err = calibrated(capsys, "--db", str(db), "--plot", str(tmp_path / "r.png"))
    assert (status, err) == (0, "6 deals, 60 finished attempts\n")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, _, _ = calibrated(capsys, "--db", str(db), "--plot", str(tmp_path / "r.svg"))
    assert status == 0 and b"<svg" in (tmp_path / "r.svg").read_bytes()


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        (["--variant", "pairs"], "no secret deal of pairs in --db {db}"),
        (["--variant", "nope"], "unknown variant 'nope'"),
        (["--plot", "r.pdf"], "--plot r.pdf: expected a .png or .svg file"),
    ],
    ids=["no-deal-of-variant", "unknown-variant", "plot-format"],
)
def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], error: str) -> None:
    db = tmp_path / "game.db"
    played_day(db)
    status, out, err = calibrated(capsys, "--db", str(db), *arguments)
    assert (status, out, err) == (2, "", f"triples calibrate: error: {error.format(db=db)}\n")


def test_an_empty_or_missing_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.db"
    assert calibrated(capsys, "--db", str(missing)) == (
        2,
        "",
        f"triples calibrate: error: --db {missing}: no such store\n",
    )
    with open_store(str(tmp_path / "empty.db")):
        pass
    assert calibrated(capsys, "--db", str(tmp_path / "empty.db")) == (
        2, "", f"triples calibrate: error: no secret deal in --db {tmp_path / 'empty.db'}\n"
    )  # fmt: skip


def test_exact_counts_of_attempts_played_through_a_real_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("fastapi", reason="the service needs the serve extra")
    from tests.players_server import Client, make_store, serving
    from triples import run

    db = tmp_path / "game.db"
    days = make_store(db)
    deck = list(days.today.deck)
    high = run([["new", "g", deck], ["autoplay", "g", "high"]])[1]
    lines = {"Perfect": [list(move) for move in days.today.line], "High": high["moves"], "Going": high["moves"][:1]}
    with serving(db) as port:
        for name, line in lines.items():
            client = Client(port)
            assert client.join(name).status == 201
            attempt = client.send("POST", "/play", {}).body["attempt"]
            for turn, move in enumerate(line):
                assert client.send("POST", f"/play/{attempt}", {"move": move, "turn": turn}).status == 200
    status, out, err = calibrated(capsys, "--db", str(db), "--variant", "classic", "--format", "jsonl")
    assert (status, err) == (0, "2 deals, 2 finished attempts\n")
    counted = {
        row["date"]: (row["attempts"], row["reached_best"], row["mean_cleared"], row["best"])
        for row in map(orjson.loads, out.splitlines())
        if row["kind"] == "deal"
    }
    assert high["cleared"] < days.today.best
    assert counted == {
        day(-1): (0, 0, None, days.yesterday.best),
        day(0): (2, 1, (days.today.best + high["cleared"]) / 2, days.today.best),
    }
