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
LIBRARIES = {"ast_mutants.py", "common.py", "mutation_order.py", "naive.py", "processes.py"}  # imported, not run

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


@pytest.mark.parametrize(("arguments", "last_line"), SHORT_RUNS)
def test_smoke_a_short_run_gets_to_its_last_line(arguments: list[str], last_line: str) -> None:
    done = run_script(arguments)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr  # 1: a requirement not met on so few deals
    assert re.search(last_line, done.stdout.strip().splitlines()[-1]), done.stdout


@pytest.mark.parametrize(
    "script",
    sorted(path.name for path in BENCHMARKS.glob("*.py") if path.name not in LIBRARIES | SHORT_SCRIPTS),
)
def test_smoke_a_long_script_shows_its_help(script: str) -> None:
    done = run_script([script, "--help"])
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.startswith("usage: ")
