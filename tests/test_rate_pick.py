"""``triples pick`` (triples/doors/rating/pick.py): the first deals of a band against a brute list made by
``triples rate --difficulty`` over the whole range, the filters, resume, stopping early, the
fewer-found message and refusals.

Most runs go through ``triples.doors.cli.main`` in this process with one job, to keep the suite quick
(the fair player's memo is shared between them); one runs as a real process on two jobs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from triples.doors import cli

# classic 1-40: mostly easy, medium at 1 and 5, hard at 37.
RANGE = "1-40"
FIRST, LAST = 1, 40


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "triples", *args], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def brute() -> list[dict[str, Any]]:
    """Every row of the range, rated by ``triples rate --difficulty --jobs 1``."""
    done = run_cli("rate", "--variant", "classic", "--seeds", RANGE, "--difficulty", "--format", "jsonl", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    return [orjson.loads(line) for line in done.stdout.splitlines()]


def comparable(row: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in row.items() if k not in ("ms", "version")}


def pick_jsonl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict[str, Any]], list[str]]:
    status = cli.main(["pick", "--variant", "classic", "--format", "jsonl", "--jobs", "1", *args])
    out, err = capsys.readouterr()
    return status, [orjson.loads(line) for line in out.splitlines()], err.splitlines()


def first_of(
    brute: list[dict[str, Any]], count: int, band: str, min_best: int = 0, winnable: bool = False
) -> list[int]:
    return [
        row["seed"]
        for row in brute
        if row["band"] == band and row["best"] >= min_best and (not winnable or row["best"] == 52)
    ][:count]


CASES = [
    pytest.param(["--band", "easy", "--count", "5"], 5, "easy", 0, id="easy"),
    pytest.param(["--band", "medium", "--count", "2"], 2, "medium", 0, id="medium"),
    pytest.param(["--band", "hard", "--count", "1"], 1, "hard", 0, id="hard"),
    pytest.param(["--band", "easy", "--count", "4", "--min-best", "45"], 4, "easy", 45, id="easy-min-best"),
    pytest.param(["--band", "medium", "--count", "1", "--min-best", "46"], 1, "medium", 46, id="medium-min-best"),
]


@pytest.mark.parametrize(("args", "count", "band", "min_best"), CASES)
def test_pick_gives_the_first_seeds_of_the_band_in_order(
    args: list[str],
    count: int,
    band: str,
    min_best: int,
    brute: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, rows, err = pick_jsonl(capsys, "--seeds", RANGE, *args)
    expected = first_of(brute, count, band, min_best)
    assert len(expected) == count  # the range holds them: the case tests picking, not the shortfall
    assert (status, [row["seed"] for row in rows]) == (0, expected)
    by_seed = {row["seed"]: row for row in brute}
    assert [comparable(row) for row in rows] == [comparable(by_seed[seed]) for seed in expected]
    assert err[:2] == ["variant: classic", f"band: {band}" + (f" (best >= {min_best})" if min_best else "")]
    assert err[3] == f"picked: {count} of {count}"


def test_pick_stops_rating_once_it_has_enough(
    tmp_path: Path, brute: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    status, rows, err = pick_jsonl(capsys, "--seeds", RANGE, "--band", "medium", "--count", "2", "--out", str(out))
    assert (status, [row["seed"] for row in rows]) == (0, [1, 5])
    written = [orjson.loads(line) for line in out.read_text().splitlines()]
    # One job rates (and writes) one seed at a time, so it stops right after seed 5.
    last = 5
    assert [row["seed"] for row in written] == list(range(FIRST, last + 1))
    assert [comparable(row) for row in written] == [comparable(row) for row in brute[:last]]
    assert err[2] == "seeds looked at: 1-5 (5 deals: 5 rated)"


def test_pick_resumes_from_its_out_file_and_reuses_the_rows_in_it(
    tmp_path: Path, brute: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    # A run stopped after seed 20, with seed 9 planted as hard: were it rated again, it would be easy.
    planted = [dict(row, band="hard") if row["seed"] == 9 else row for row in brute[:20]]
    out.write_text("".join(orjson.dumps(row).decode() + "\n" for row in planted))
    status, rows, err = pick_jsonl(capsys, "--seeds", RANGE, "--band", "hard", "--count", "2", "--out", str(out))
    assert (status, [row["seed"] for row in rows]) == (0, [9, 37])
    assert err[2] == "seeds looked at: 1-37 (37 deals: 17 rated, 20 from " + str(out) + ")"
    written = [orjson.loads(line) for line in out.read_text().splitlines()]
    assert [comparable(row) for row in written[20:37]] == [comparable(row) for row in brute[20:37]]
    # Picked again: the file alone holds both deals by seed 37, so nothing is rated.
    before = out.read_text()
    status, rows, err = pick_jsonl(capsys, "--seeds", RANGE, "--band", "hard", "--count", "2", "--out", str(out))
    assert (status, [row["seed"] for row in rows], out.read_text()) == (0, [9, 37], before)
    assert err[2] == f"seeds looked at: 1-37 (37 deals: 0 rated, 37 from {out})"


def test_rows_in_the_out_file_can_hold_the_whole_count_from_seed_0(
    tmp_path: Path, brute: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    planted = dict(brute[0], seed=0, band="hard")  # seed 0 is not rated: its row says hard
    out.write_text(orjson.dumps(planted).decode() + "\n")
    status, rows, err = pick_jsonl(capsys, "--seeds", "0-40", "--band", "hard", "--count", "1", "--out", str(out))
    assert (status, rows) == (0, [planted])
    assert err[2] == f"seeds looked at: 0-0 (1 deal: 0 rated, 1 from {out})"
    assert out.read_text() == orjson.dumps(planted).decode() + "\n"


def test_fewer_found_prints_those_found_and_suggests_a_wider_range(capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, err = pick_jsonl(capsys, "--seeds", "1-20", "--band", "medium", "--count", "4")
    assert (status, [row["seed"] for row in rows]) == (1, [1, 5])
    # 2 in 20 seeds: 4 need about 40, and half as many again for luck.
    assert err[2:] == [
        "seeds looked at: 1-20 (20 deals: 20 rated)",
        "picked: 2 of 4",
        "share of medium deals among those looked at: 10.0%",
        "triples pick: only 2 medium deals of the 4 wanted in seeds 1-20; try a wider range, such as --seeds 1-60",
    ]


def test_none_found_says_so_and_that_a_wider_range_may_not_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, err = pick_jsonl(capsys, "--seeds", "2-4", "--band", "hard", "--count", "1", "--winnable")
    assert (status, rows) == (1, [])
    assert err[-1] == (
        "triples pick: no hard (winnable) deal in seeds 2-4 (3 looked at): such deals may be rare in classic, "
        "or absent under these conditions, so a wider range (such as --seeds 2-31) may find none either"
    )


@pytest.mark.parametrize("band", ["medium", "hard"])
def test_a_band_that_pairs_never_has_is_refused_before_rating(
    band: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    assert cli.main(["pick", "--variant", "pairs", "--seeds", "1-5", "--band", band, "--out", str(out)]) == 2
    assert capsys.readouterr() == (
        "",
        f"triples pick: error: no pairs deal is {band}: with two cards a move, a card pairs with one value only, "
        "so every order of play clears the same cards and the high strategy always reaches best (every deal is "
        "easy)\n",
    )
    assert not out.exists()


def test_winnable_keeps_only_deals_best_play_clears(capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["pick", "--variant", "pairs", "--seeds", "1-12", "--band", "easy", "--winnable", "--count", "3",
                       "--format", "csv", "--jobs", "1"])  # fmt: skip
    out, _ = capsys.readouterr()
    header, *lines = out.splitlines()
    rows = [dict(zip(header.split(","), line.split(","), strict=True)) for line in lines]
    assert status == 0
    assert [(row["seed"], row["best"], row["band"]) for row in rows] == [
        ("2", "52", "easy"),
        ("3", "52", "easy"),
        ("6", "52", "easy"),
    ]


def test_two_jobs_in_a_real_process_pick_the_same_deals(brute: list[dict[str, Any]]) -> None:
    done = run_cli("pick", "--variant", "classic", "--seeds", RANGE, "--band", "easy", "--count", "12", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    header, *lines = done.stdout.splitlines()
    assert header.split() == ["seed", "autoplay", "best", "gap", "won", "states", "ms", "fair", "p_random", "band"]
    assert [int(line.split()[0]) for line in lines] == first_of(brute, 12, "easy")
    assert done.stderr.splitlines()[3] == "picked: 12 of 12"


BAD_INPUT = [
    pytest.param(["--seeds", "1-5"], "the following arguments are required: --band", id="no-band"),
    pytest.param(
        ["--seeds", "1-5", "--band", "tricky"],
        "argument --band: invalid choice: 'tricky' (choose from 'easy', 'medium', 'hard')",
        id="bad-band",
    ),
    pytest.param(["--band", "easy"], "the following arguments are required: --seeds", id="no-seeds"),
    pytest.param(
        ["--seeds", "1-5", "--band", "easy", "--count", "0"],
        "argument --count: 0: expected a positive integer",
        id="count-0",
    ),
    pytest.param(
        ["--seeds", "1-5", "--band", "easy", "--min-best=-3"],
        "argument --min-best: -3: expected a non-negative integer",
        id="min-best-negative",
    ),
    pytest.param(
        ["--seeds", "0-4294967296", "--band", "easy"],
        "argument --seeds: 0-4294967296: seeds are integers from 0 to 4294967295 (a deal repeats every 2^32 seeds)",
        id="seed-past-2^32",
    ),
    pytest.param(
        ["--seeds", "1-5", "--band", "easy", "--min-best", "53"],
        "--min-best 53: classic has only 52 cards",
        id="min-best-too-high",
    ),
    pytest.param(
        ["--seeds", "1-5", "--band", "easy", "--plot", "picks.gif"],
        "--plot picks.gif: expected a file name ending in .png or .svg",
        id="plot-extension",
    ),
    pytest.param(
        ["--variant", "grid100", "--seeds", "1-5", "--band", "easy"],
        "grid100 has no difficulty bands: they are rated with p_random, the chance that random moves reach best, "
        "and with all 100 cards dealt at once random play has too many ways to go to count",
        id="grid100",
    ),
    pytest.param(
        ["--seeds", "1-5", "--band", "easy", "--bogus"], "unrecognized arguments: --bogus", id="unknown-option"
    ),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["pick", *args]) == 2
    assert capsys.readouterr() == ("", f"triples pick: error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_an_out_file_without_the_difficulty_columns_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rows.jsonl"
    assert cli.main(["rate", "--variant", "classic", "--seeds", "1-2", "--format", "jsonl", "--out", str(out)]) == 0
    capsys.readouterr()
    assert (
        cli.main(
            ["pick", "--variant", "classic", "--seeds", "1-5", "--band", "easy", "--format", "jsonl", "--out", str(out)]
        )
        == 2
    )
    assert capsys.readouterr().err == (
        f"triples pick: error: --out {out} holds rows of analyses none (not difficulty) at seed 1: "
        "use the same options, or another file\n"
    )


def test_help_shows_an_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["pick", "--help"]) == 0
    out = capsys.readouterr().out
    assert "  triples pick --variant sum15 --seeds 1-500 --band medium --count 5\n" in out
    assert "exit status: 0 found N deals, 1 the range holds fewer (those found are printed), 2 bad input" in out
