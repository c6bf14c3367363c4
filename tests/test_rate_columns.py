"""``triples rate --fair`` and ``--difficulty`` (triples/doors/rating/seed_rows.py): the columns against the
engines called directly, the band's fixed yardstick, the summary lines, resume, refusals."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from triples.doors import cli
from triples.doors.kit.rows_file import TextTable
from triples.doors.rating import Row, Summary
from triples.doors.rating.rows import (
    CORE_COLUMNS,
    DIFFICULTY_COLUMNS,
    FAIR_COLUMNS,
    RateOptions,
    line_of,
    record_columns,
)
from triples.doors.rating.rows import (
    rate_columns as columns_named,
)
from triples.doors.rating.seed_rows import rate_batch
from triples.engines import difficulty, search
from triples.engines.strategies import play_out, strategy_named
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variants import parse_variant

RATE = [sys.executable, "-m", "triples", "rate"]


def rate_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RATE, *args], capture_output=True, text=True, cwd=cwd, timeout=300, check=False)


def deal(variant: str, seed: int) -> Table:
    rules = parse_variant(variant)
    return Table(rules, shuffled(rules.cards, seed))


def cleared(variant: str, seed: int, strategy: str) -> int:
    table = deal(variant, seed)
    play_out(table, strategy_named(strategy))
    return table.cleared


def direct(variant: str, seed: int) -> dict[str, Any]:
    """The difficulty columns of a seed from the engines themselves, each on a fresh deal."""
    best = search.best_cleared(deal(variant, seed))
    fair, high = cleared(variant, seed, "fair"), cleared(variant, seed, "high")
    chance = difficulty.p_random(deal(variant, seed))
    return {"fair": fair, "p_random": chance, "band": difficulty.band(high=high, fair=fair, best=best)}


def jsonl(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in text.splitlines()]


def test_fair_column_equals_the_fair_strategy_played_on_each_deal() -> None:
    # Two jobs: the column is computed in the workers, inside the same batch task as the rest.
    done = rate_cli("--variant", "sum15", "--seeds", "1-4", "--fair", "--format", "jsonl", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = jsonl(done.stdout)
    assert [tuple(row) for row in rows] == [record_columns(("fair",))] * 4
    assert {row["analyses"] for row in rows} == {"fair"}
    assert [row["fair"] for row in rows] == [cleared("sum15", seed, "fair") for seed in range(1, 5)]
    assert [row["autoplay"] for row in rows] == [cleared("sum15", seed, "high") for seed in range(1, 5)]
    summary = done.stderr.splitlines()
    fair_wins = sum(row["fair"] == 36 for row in rows)
    assert summary[7] == f"mean fair: {sum(row['fair'] for row in rows) / 4:.3f}"
    assert summary[10].startswith(f"win rate fair: {100 * fair_wins / 4:.2f}% ({fair_wins}/4), 95% CI [")


# classic 1-6 holds easy and medium deals; 37 is hard (fair 27, best 42).
DIFFICULTY_SEEDS = [1, 2, 5, 37]


def test_difficulty_columns_equal_p_random_and_band_called_directly() -> None:
    rows = rate_batch(RateOptions("classic", "high", DIFFICULTY_COLUMNS), DIFFICULTY_SEEDS)
    assert [dict(row.extra) for row in rows] == [direct("classic", seed) for seed in DIFFICULTY_SEEDS]
    assert [row.value("band") for row in rows] == ["medium", "easy", "medium", "hard"]


def test_the_band_is_measured_against_high_whatever_the_strategy() -> None:
    # Seed 1: high clears 12, fair and best 48. Played by fair, the row's autoplay is 48, but
    # the deal stays medium: high, not the row's strategy, is the yardstick of easy.
    done = rate_cli("--variant", "classic", "--seeds", "1-1", "--strategy", "fair", "--difficulty", "--format", "csv")
    assert done.returncode == 0, done.stderr
    header, line = done.stdout.splitlines()
    row = dict(zip(header.split(","), line.split(","), strict=True))
    assert (row["autoplay"], row["best"], row["fair"], row["band"]) == ("48", "48", "48", "medium")
    assert done.stderr.splitlines()[1] == "strategy: fair"


def test_difficulty_in_the_text_table_and_its_summary_lines() -> None:
    done = rate_cli("--variant", "classic", "--seeds", "1-2", "--difficulty", "--jobs", "1")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "seed autoplay best  gap won     states        ms fair p_random   band"
    assert lines[1].split()[7:] == ["48", "0.0807", "medium"]
    assert lines[2].split()[7:] == ["3", "1.0000", "easy"]
    assert lines[8:16] == [
        "mean autoplay: 7.500",
        "mean best: 25.500",
        "mean gap: 18.000",
        "mean fair: 25.500",
        "win rate best: 0.00% (0/2), 95% CI [0.00%, 65.76%]",
        "win rate high: 0.00% (0/2), 95% CI [0.00%, 65.76%]",
        "win rate fair: 0.00% (0/2), 95% CI [0.00%, 65.76%]",
        "band easy: 50.00% (1/2), 95% CI [9.45%, 90.55%]; mean p_random 1.0000",
    ]
    assert lines[16:18] == [
        "band medium: 50.00% (1/2), 95% CI [9.45%, 90.55%]; mean p_random 0.0807",
        "band hard: 0.00% (0/2), 95% CI [0.00%, 65.76%]; mean p_random -",
    ]


def row_of(seed: int, autoplay: int, best: int, fair: int, chance: float, band: str) -> Row:
    return Row(
        seed,
        autoplay,
        best,
        best - autoplay,
        best == 36,
        10,
        1.0,
        extra={"fair": fair, "p_random": chance, "band": band},
    )


def test_summary_lines_of_known_difficulty_rows() -> None:
    # sum15 (36 cards): easy 2 of 4, medium 1, hard 1; fair wins 2 of 4 and high 1 of 4. The
    # intervals for 2 of 4 and 1 of 4 are worked out in test_rate.py.
    summary = Summary(parse_variant("sum15"), "high")
    for row in [
        row_of(1, 36, 36, 36, 0.5, "easy"),
        row_of(2, 27, 27, 27, 0.25, "easy"),
        row_of(3, 30, 36, 36, 0.125, "medium"),
        row_of(4, 24, 36, 30, 0.0625, "hard"),
    ]:
        summary.add(row)
    assert summary.lines()[:10] == [
        "deals: 4",
        "mean autoplay: 29.250",
        "mean best: 33.750",
        "mean gap: 4.500",
        "mean fair: 32.250",
        "win rate best: 75.00% (3/4), 95% CI [30.06%, 95.44%]",
        "win rate high: 25.00% (1/4), 95% CI [4.56%, 69.94%]",
        "win rate fair: 50.00% (2/4), 95% CI [15.00%, 85.00%]",
        "band easy: 50.00% (2/4), 95% CI [15.00%, 85.00%]; mean p_random 0.3750",
        "band medium: 25.00% (1/4), 95% CI [4.56%, 69.94%]; mean p_random 0.1250",
    ]
    assert summary.lines()[10:12] == [
        "band hard: 25.00% (1/4), 95% CI [4.56%, 69.94%]; mean p_random 0.0625",
        "best histogram:",
    ]
    assert summary.p_random_bins["easy"][10] == summary.p_random_bins["easy"][5] == 1


def test_a_difficulty_file_resumes_with_its_columns(tmp_path: Path) -> None:
    first = rate_cli(
        "--variant", "classic", "--seeds", "1-3", "--difficulty", "--format", "csv", "--out", "rows", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    written = (tmp_path / "rows").read_bytes()
    # Without --difficulty the rows would be made otherwise: refused, the file untouched.
    plain = ("--variant", "classic", "--seeds", "1-5", "--format", "csv", "--out", "rows", "--jobs", "1")
    refused = rate_cli(*plain, cwd=tmp_path)
    assert (refused.returncode, refused.stderr) == (
        2,
        "triples rate: error: --out rows holds rows of analyses difficulty (not none) at seed 1: "
        "use the same options, or another file\n",
    )
    assert (tmp_path / "rows").read_bytes() == written
    done = rate_cli(*plain, "--difficulty", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    header, *lines = (tmp_path / "rows").read_text().splitlines()
    assert header.split(",") == [*record_columns(DIFFICULTY_COLUMNS)]
    assert [line.split(",")[7:10] for line in lines] == [
        [str(direct("classic", seed)[c]) for c in DIFFICULTY_COLUMNS] for seed in range(1, 6)
    ]
    assert {line.split(",")[-2] for line in lines} == {"difficulty"}
    assert "resumed: 3 rows already in rows" in done.stderr.splitlines()


def test_a_file_without_the_column_is_refused_for_fair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = tmp_path / "rows.jsonl"
    assert cli.main(["rate", "--variant", "pairs", "--seeds", "1-2", "--format", "jsonl", "--out", str(rows)]) == 0
    written = rows.read_text()
    capsys.readouterr()
    for option, analyses in (("--fair", "fair"), ("--difficulty", "difficulty")):
        args = ["rate", "--variant", "pairs", "--seeds", "1-4", "--format", "jsonl", "--out", str(rows), option]
        assert cli.main(args) == 2
        assert capsys.readouterr() == (
            "",
            f"triples rate: error: --out {rows} holds rows of analyses none (not {analyses}) at seed 1: "
            "use the same options, or another file\n",
        )
    assert rows.read_text() == written


def test_difficulty_is_refused_where_p_random_is_out_of_reach(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rate", "--variant", "grid100", "--seeds", "1-2", "--difficulty"]) == 2
    assert capsys.readouterr() == (
        "",
        "triples rate: error: --difficulty is out of reach on grid100: every card is dealt at once, so random "
        "play has astronomically many ways to go (--fair works)\n",
    )


def test_a_deal_past_the_state_limit_has_an_unknown_p_random_as_the_rating_operation_says(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # One behaviour for both doors: past the state limit the chance is unknown, the row says so
    # (null, an empty csv field, "-" in the table) and the run goes on; its band is still read.
    from triples import run

    real = difficulty.p_random

    def too_many_on_seed_3(table: Table, goal: int | None = None) -> float:
        if table.codes()[:3] == dealt_codes_of_seed_3:
            raise difficulty.TooManyStates(200_000)
        return real(table, goal)

    from triples.model.deal import seeded

    dealt_codes_of_seed_3 = seeded(parse_variant("sum15"), 3).codes()[:3]
    monkeypatch.setattr(difficulty, "p_random", too_many_on_seed_3)
    row = rate_batch(RateOptions("sum15", "high", DIFFICULTY_COLUMNS), [3])[0]
    assert row.extra["p_random"] is None and row.extra["band"] in ("easy", "medium", "hard")
    assert run([["new", "g", 3, "sum15"], ["rating", "g"]])[1]["p_random"] is None
    base = ["rate", "--variant", "sum15", "--seeds", "2-4", "--difficulty", "--jobs", "1"]
    assert cli.main([*base, "--format", "jsonl"]) == 0
    rows = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["p_random"] is None for row in rows] == [False, True, False]
    assert cli.main([*base, "--format", "csv"]) == 0
    csv_rows = capsys.readouterr().out.splitlines()
    assert csv_rows[2].split(",")[8] == "" and csv_rows[1].split(",")[8] != ""
    assert cli.main(base) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[8] == "-"
    assert "p_random unknown (past the state limit) on 1 deal" in "\n".join(table)
    # and a file holding such a row resumes
    out = str(tmp_path / "rows.csv")
    assert cli.main([*base, "--format", "csv", "--out", out]) == 0
    assert cli.main([*base[:4], "2-5", *base[5:], "--format", "csv", "--out", out]) == 0
    assert "resumed: 3 rows already in" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("fair", "difficult", "columns"),
    [
        pytest.param(False, False, (), id="neither"),
        pytest.param(True, False, FAIR_COLUMNS, id="fair"),
        pytest.param(False, True, DIFFICULTY_COLUMNS, id="difficulty"),
        pytest.param(True, True, DIFFICULTY_COLUMNS, id="both"),
    ],
)
def test_difficulty_implies_fair(fair: bool, difficult: bool, columns: tuple[str, ...]) -> None:
    from triples.doors.rating.runs import extra_columns_for

    assert extra_columns_for(parse_variant("sum15"), fair, difficult) == columns


def test_the_table_shows_p_random_to_four_places() -> None:
    table = TextTable(columns_named((*CORE_COLUMNS, *DIFFICULTY_COLUMNS), 7))
    line = line_of(table, row_of(7, 30, 36, 36, 0.123456, "medium"))
    assert line.split()[7:] == ["36", "0.1235", "medium"]
    assert Row.from_values(table.parse(line)).extra == {"fair": 36, "p_random": 0.1235, "band": "medium"}
