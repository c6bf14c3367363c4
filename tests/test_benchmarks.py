"""Smoke tests of the benchmark scripts: the docs quote their figures, so a script that no longer
starts (an engine's name moved, an option misread) would leave a figure nobody can reprint.

These are smoke tests, not tests of the figures: each script runs on a few deals, far too few
for its figures to mean anything, and what is checked is only that it gets to its last line,
whatever its requirements say of so small a run (a script exits 1 when a requirement is not
met, and a timing on three deals proves nothing), so either verdict passes. The long
ones (the service's load, Uniscraper's naive search, the exact fair player, the rating runs)
only show their help here, which still imports them whole.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.postgres_server import Cluster

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
# imported, not run
LIBRARIES = {
    "ast_mutants.py",
    "common.py",
    "mutation_order.py",
    "naive.py",
    "players_populations.py",
    "population_figures.py",
    "processes.py",
}

SHORT_RUNS = [
    pytest.param(
        ["attacks.py", "--only", "moves, 5 cards a move", "malformed HTTP", "--distinct", "20", "--after", "0.2"],
        r"all requirements met|^FAIL",
        id="attacks",
    ),
    pytest.param(
        ["audit.py", "--games", "2", "--variant", "sum15", "--deals", "3", "--attempts", "2"],
        r"all requirements met|^FAIL ",
        id="audit",
    ),
    pytest.param(
        ["audit_evidence.py", "--games", "2", "--variant", "sum15"], r"^\d+ s; after: load average", id="audit-evidence"
    ),
    pytest.param(["batch.py", "--ops", "200", "--rounds", "1"], r"requirement >= 20,000 ops/s", id="batch"),
    pytest.param(["best.py", "--seeds", "3", "--variant", "classic"], r"all requirements met|^FAIL ", id="best"),
    pytest.param(
        ["best_passes.py", "--variant", "pairs", "--seeds", "3", "--passes", "1"],
        r"pairs +seeds 1\.\.3",
        id="best-passes",
    ),
    pytest.param(["compat.py", "--seeds", "2", "--grid-seeds", "1"], r"^\| 10x10 \|", id="compat"),
    pytest.param(["deadline.py", "--rounds", "1"], r"all requirements met|^FAIL ", id="deadline"),
    pytest.param(
        ["difficulty.py", "--rows", "4", "--jobs", "1", "--variant", "sum15"],
        r"^sum15: --difficulty rows of seeds 1\.\.4 on 1 processes: .* fair wins \d/4",
        id="difficulty-rows",
    ),
    pytest.param(["fair.py", "--seeds", "3", "--variant", "sum15"], r"all requirements met|^FAIL ", id="fair"),
    pytest.param(
        ["jsonl_memory.py", "--lines", "200", "--baseline-lines", "100", "--ids", "100"],
        r"^memory per kept game: -?[\d,]+ bytes",
        id="jsonl-memory",
    ),
    pytest.param(["ops.py", "--repeat", "3"], r"value-space moves vs full scan: [\d.]+x faster", id="ops"),
    pytest.param(["strategies.py", "--seeds", "3"], r"classic first: ", id="strategies"),
    pytest.param(
        ["sweep.py", "--part", "1", "--deals", "2", "--seeds", "2"], r"all requirements met|^FAIL ", id="sweep"
    ),
    pytest.param(
        ["sweep.py", "--part", "3", "--seeds", "3", "--jobs", "1", "--before", "HEAD", "--repeat", "2"],
        r"all requirements met|^FAIL part 3: classic: [\d.]+ deals/s, goal 100$",
        id="sweep-difficulty",
    ),
    pytest.param(["startup.py", "--runs", "1"], r"^goal: a one-operation batch within 120 ms: ", id="startup"),
    pytest.param(
        ["players.py", "--players", "4", "--workers", "1", "--pace", "40"],
        r"^goal: 200 players, .*: (all requirements met|not met: .*)$",
        id="players",
    ),
]
SHORT_SCRIPTS = {param.values[0][0] for param in SHORT_RUNS}  # type: ignore[index]


def run_script(arguments: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / arguments[0]), *arguments[1:]],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_smoke_players_on_postgresql_with_two_hosts(postgres: Cluster) -> None:
    done = run_script(
        ["players.py", "--players", "4", "--workers", "", "--pace", "40", "--db", postgres.url("postgres")]
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines if line.startswith("postgresql, ")] == [
        "postgresql, 2 hosts x workers 1, flat out"
    ] * 2 + ["postgresql, 2 hosts x workers 1, paced at 40 moves/s"] * 2
    assert not any(line.startswith("sqlite") for line in lines)
    assert re.match(r"^goal: 200 players, .*: (all requirements met|not met: .*)$", lines[-1])
    assert postgres.psql("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'players_bench%'") == "0\n"


POPULATION_ROWS = ["random", "high", "lookahead", "fair", "high-slips", "fair-slips", "mixed", "sighted"]
SHARE = r"(\d+\.\d%|-)"
ESTIMATE = r"-?[\d.]+ \+- [\d.]+ \(95% -?[\d.]+ to -?[\d.]+\)"
FIT = rf"\d+ deals, \d+ attempts: intercept {ESTIMATE}, slope {ESTIMATE}"
NO_FIT = "no fit \\(too few attempts, or too alike\\)"


def test_smoke_players_populations_through_a_real_server() -> None:
    done = run_script(
        ["players.py", "--populations", "--days", "2", "--players-per-population", "1", "--variants", "classic"]
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr  # 1: two deals are too few for the random players' map
    lines = done.stdout.splitlines()
    assert re.fullmatch(
        r"8 players \(1 of each of 8 populations\), 2 days from (\S+) to (\S+), variants classic: "
        r"16 games played through the HTTP API, failed requests 0",
        lines[0],
    ), lines[0]
    assert lines[1].startswith("audit of the games played (suspect: ")
    assert lines[2].split() == ["population", "variant", "games", "suspect", "fair", "short", "suspect"]
    rows = [line.split() for line in lines[3:11]]
    assert [row[:2] for row in rows] == [[name, "classic"] for name in POPULATION_ROWS]
    assert [int(row[2]) for row in rows] == [2] * 8  # one game a player a day: 8 players x 2 days
    for row in rows:
        assert re.fullmatch(SHARE, row[3]) and re.fullmatch(SHARE, row[5]) and 0 <= int(row[4]) <= 2, row
    blind_suspect = sum(round(float(row[3].rstrip("%")) * 2 / 100) for row in rows[:7] if row[3] != "-")
    assert re.fullmatch(
        rf"blind populations: 14 games, {blind_suspect} suspect \({SHARE}\); worst population and variant "
        r"\d+\.\d%, goal <= 1%",
        lines[11],
    ), lines[11]
    suspects = [line for line in lines[12:] if line.startswith("blind games called suspect on ")]
    rest = lines[12 + len(suspects) :]
    assert len(suspects) <= blind_suspect
    assert re.fullmatch(
        rf"sighted: detection {SHARE} of 2 games, {SHARE} of the [0-2] on deals where the fair player falls short of "
        r"best \(printed, not required at this size\)",
        rest[0],
    ), rest[0]
    random_fit = "calibration of the random players \\(true map: intercept 0, slope 1\\)"
    assert re.fullmatch(rf"{random_fit}, classic: ({NO_FIT}|{FIT}: 0 and 1 within: (yes|no))", rest[1]), rest[1]
    if not re.search(NO_FIT, rest[1]):  # a map: its coefficients checked at once, on a line of their own
        at_once = (
            rf"{random_fit}, its 2 coefficients at once \\(intervals of \\+- 2\\.24 errors, 95% for all together\\)"
        )
        assert re.fullmatch(rf"{at_once}: 0 and 1 within: (yes|no)", rest.pop(2)), rest
    assert re.fullmatch(
        r"rating error of the random players, classic: (no fit on half the attempts|\d+ deals, .*)", rest[2]
    ), rest[2]
    assert re.fullmatch(
        rf"calibration of the other populations together, sighted too \(for a look\), classic: ({NO_FIT}|{FIT})",
        rest[3],
    ), rest[3]
    assert re.fullmatch(
        r"goal: blind populations suspect in <= 1% of games, random's map recovered: "
        r"(all requirements met|not met: .*)",
        rest[4],
    ), rest[4]
    assert len(rest) == 5


@pytest.mark.parametrize(("arguments", "last_line"), SHORT_RUNS)
def test_smoke_a_short_run_gets_to_its_last_line(arguments: list[str], last_line: str) -> None:
    done = run_script(arguments)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr  # 1: a requirement not met on so few deals
    assert re.search(last_line, done.stdout.strip().splitlines()[-1]), done.stdout


def test_the_audit_benchmark_shows_another_cap_on_random_players() -> None:
    done = run_script(["audit.py", "--games", "2", "--variant", "sum15", "--deals", "0", "--random-reaches", "1"])
    assert done.returncode in (0, 1), done.stderr
    header = r"^sum15: threshold p < 0\.1, judged where p_random < 1\.0; fair player [\d.]+ ms per game \(seeds 400001-"
    assert re.search(header, done.stdout, re.MULTILINE), done.stdout


@pytest.mark.parametrize(
    "script",
    sorted(path.name for path in BENCHMARKS.glob("*.py") if path.name not in LIBRARIES | SHORT_SCRIPTS),
)
def test_smoke_a_long_script_shows_its_help(script: str) -> None:
    done = run_script([script, "--help"])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: ")
