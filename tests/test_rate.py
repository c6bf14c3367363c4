"""``triples rate``: rows against run(), order under --jobs, resume, the summary, bad input.

The command is mostly run as a user runs it, ``python -m triples rate ...`` in a subprocess, so
exit statuses, streams and the absence of tracebacks are what is checked; the many cases of bad
input go through ``triples.doors.cli.main`` in this process, to keep the suite quick.
"""

from __future__ import annotations

import fcntl
import math
import os
import pty
import re
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from triples import __version__
from triples.api import run
from triples.doors import cli
from triples.doors.kit.rows_file import Column, Csv, JsonLines, TextTable
from triples.doors.rating import CORE_COLUMNS, Row, Summary, seed_rows, wilson_interval
from triples.doors.rating import rows as rate_rows
from triples.doors.rating.interrupts import NEVER
from triples.doors.rating.rows import DIFFICULTY_COLUMNS, RECORD_COLUMNS, RateOptions, line_of, rate_columns
from triples.doors.rating.runs import Request, executor_for
from triples.engines import search
from triples.engines.strategies import STRATEGIES
from triples.interpreter.session import deal
from triples.model.variants import VARIANTS, parse_variant

RATE = [sys.executable, "-m", "triples", "rate"]
SPEED = re.compile(r"deals per second: \d+\.\d \((\d+) new deals in \d+\.\d\d s, jobs (\d+)\)")


def rate_cli(
    *args: str, cwd: Path | None = None, stderr: int | None = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*RATE, *args], stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=cwd, timeout=300, check=False
    )


def jsonl_rows(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in text.splitlines()]


PER_RUN = tuple(name for name, column in rate_rows.COLUMNS.items() if column.per_run)


def without_ms(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows without the columns that depend on the run (checked for their kind)."""
    assert all(isinstance(row["ms"], float) and row["ms"] >= 0 for row in rows)
    assert all(row.get("version", __version__) == __version__ for row in rows)
    return [{k: v for k, v in row.items() if k not in PER_RUN} for row in rows]


def expected_row(variant: str, strategy: str, seed: int) -> dict[str, Any]:
    """A row computed through the public operations: autoplay and best each on a fresh deal."""
    out = run([["new", "a", seed, variant], ["autoplay", "a", strategy], ["new", "b", seed, variant], ["best", "b"]])
    autoplay, best = out[1]["cleared"], out[3]
    states = search.analyse(deal(parse_variant(variant), seed)).states
    won = best == parse_variant(variant).deck_size
    core = {"seed": seed, "autoplay": autoplay, "best": best, "gap": best - autoplay, "won": won, "states": states}
    return {**core, "variant": variant, "strategy": strategy, "analyses": "none"}


def summary_part(stderr: str) -> list[str]:
    """The summary's lines with the timing line (the one line that varies) checked and cut."""
    lines = stderr.splitlines()
    assert SPEED.fullmatch(lines[-1]) or lines[-1] == "deals per second: - (no new deals)", lines[-1]
    return lines[:-1]


# Small ranges: grid100's deals are the slowest to search, classic the common case.
ROW_CASES = [
    pytest.param(name, "high", "0-3" if name != "grid100" else "0-1", id=f"{name}-high") for name in VARIANTS
] + [pytest.param("classic", name, "0-3", id=f"classic-{name}") for name in sorted(STRATEGIES) if name != "high"]


@pytest.mark.parametrize(("variant", "strategy", "seeds"), ROW_CASES)
def test_rows_equal_run_on_the_same_seeds(variant: str, strategy: str, seeds: str) -> None:
    done = rate_cli("--variant", variant, "--strategy", strategy, "--seeds", seeds, "--format", "jsonl", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = jsonl_rows(done.stdout)
    first, last = map(int, seeds.split("-"))
    assert [tuple(row) for row in rows] == [RECORD_COLUMNS] * (last - first + 1)
    assert without_ms(rows) == [expected_row(variant, strategy, seed) for seed in range(first, last + 1)]


def test_jobs_1_and_2_give_identical_rows_in_seed_order() -> None:
    # 60 seeds on two jobs are cut into batches of 8, so batches really do finish out of order.
    by_jobs = {
        jobs: rate_cli("--variant", "sum15", "--seeds", "0-59", "--format", "csv", "--jobs", jobs) for jobs in "12"
    }
    tables = {}
    for jobs, done in by_jobs.items():
        assert done.returncode == 0, done.stderr
        header, *lines = done.stdout.splitlines()
        assert header == "seed,autoplay,best,gap,won,states,ms,variant,strategy,analyses,version"
        tables[jobs] = [line.split(",")[:6] + line.split(",")[7:] for line in lines]
        assert {tuple(row[6:]) for row in tables[jobs]} == {("sum15", "high", "none", __version__)}
        assert SPEED.fullmatch(done.stderr.splitlines()[-1])[2] == jobs  # type: ignore[index]
    assert tables["1"] == tables["2"]
    assert [int(row[0]) for row in tables["1"]] == list(range(60))
    assert summary_part(by_jobs["1"].stderr) == summary_part(by_jobs["2"].stderr)


@pytest.mark.parametrize(
    ("seeds", "jobs", "extra", "size", "workers"),
    [
        pytest.param(20_000, 2, (), 100, 2, id="cheap-rows-large-range"),
        pytest.param(60, 2, (), 8, 2, id="cheap-rows-small-range"),
        pytest.param(20_000, 2, ("fair",), 8, 2, id="slow-rows"),
        pytest.param(20_000, 2, DIFFICULTY_COLUMNS, 8, 2, id="difficulty-rows"),
        pytest.param(5, 8, DIFFICULTY_COLUMNS, 1, 5, id="fewer-seeds-than-jobs"),
        pytest.param(0, 2, (), 1, 1, id="nothing-to-rate"),
    ],
)
def test_the_pool_gets_short_batches_of_slow_rows(
    seeds: int, jobs: int, extra: tuple[str, ...], size: int, workers: int
) -> None:
    # A slow row takes up to a tenth of a second: in batches of 100 the worker that finishes
    # first would wait seconds for the other at the end of the range.
    request = Request(parse_variant("sum15"), "high", 1, seeds, jobs, "csv", None, extra_columns=extra)
    with executor_for(request, seeds, NEVER) as (executor, batch):
        assert (batch, executor.label) == (size, f"jobs {workers}")


def test_table_format_puts_rows_then_a_blank_line_then_the_summary_on_stdout() -> None:
    done = rate_cli("--variant", "sum15", "--seeds", "5-7", "--jobs", "1")
    assert (done.returncode, done.stderr) == (0, "")
    lines = done.stdout.splitlines()
    assert lines[0] == "seed autoplay best  gap won     states        ms"
    assert lines[4] == ""
    for line, seed in zip(lines[1:4], range(5, 8), strict=True):
        expected = expected_row("sum15", "high", seed)
        fields = line.split()
        assert fields[:6] == [
            str(seed),
            *(str(expected[c]) for c in CORE_COLUMNS[1:4]),
            "yes" if expected["won"] else "no",
            str(expected["states"]),
        ]
        assert re.fullmatch(r"\d+\.\d\d", fields[6])
    assert lines[5:9] == ["variant: sum15", "strategy: high", "seeds: 5-7", "deals: 3"]
    assert SPEED.fullmatch(lines[-1])


def test_summary_goes_to_stderr_for_jsonl_and_matches_the_rows() -> None:
    done = rate_cli("--variant", "pairs", "--seeds", "10-29", "--format", "jsonl", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = jsonl_rows(done.stdout)
    deals, best, autoplay = len(rows), sum(r["best"] for r in rows), sum(r["autoplay"] for r in rows)
    summary = summary_part(done.stderr)
    assert summary[:7] == [
        "variant: pairs",
        "strategy: high",
        "seeds: 10-29",
        "deals: 20",
        f"mean autoplay: {autoplay / deals:.3f}",
        f"mean best: {best / deals:.3f}",
        f"mean gap: {(best - autoplay) / deals:.3f}",
    ]
    best_wins = sum(r["won"] for r in rows)
    high_wins = sum(r["autoplay"] == 52 for r in rows)
    assert summary[7].startswith(f"win rate best: {100 * best_wins / deals:.2f}% ({best_wins}/20), 95% CI [")
    assert summary[8].startswith(f"win rate high: {100 * high_wins / deals:.2f}% ({high_wins}/20), 95% CI [")
    assert summary[9] == "best histogram:"
    histogram = {int(line.split()[0]): int(line.split()[-1]) for line in summary[10:]}
    assert sum(histogram.values()) == 20
    assert {v: n for v, n in histogram.items() if n} == {
        v: sum(r["best"] == v for r in rows) for v in {r["best"] for r in rows}
    }


def test_summary_text_on_known_rows() -> None:
    # sum15: 36 cards, 3 a move. Best wins 2 of 4 and the strategy 1 of 4; the Wilson bounds
    # below are worked out by hand in test_wilson_interval_on_known_numbers.
    summary = Summary(parse_variant("sum15"), "high")
    for seed, (autoplay, best) in enumerate([(36, 36), (30, 36), (33, 33), (21, 27)]):
        summary.add(Row(seed, autoplay, best, best - autoplay, best == 36, 100, 1.0))
    assert summary.lines() == [
        "deals: 4",
        "mean autoplay: 30.000",
        "mean best: 33.000",
        "mean gap: 3.000",
        "win rate best: 50.00% (2/4), 95% CI [15.00%, 85.00%]",
        "win rate high: 25.00% (1/4), 95% CI [4.56%, 69.94%]",
        "best histogram:",
        "  27 " + "#" * 20 + " " * 20 + " 1",
        "  30 " + " " * 40 + " 0",
        "  33 " + "#" * 20 + " " * 20 + " 1",
        "  36 " + "#" * 40 + " 2",
    ]


def test_summary_of_no_deals_is_just_the_count() -> None:
    assert Summary(parse_variant("classic"), "high").lines() == ["deals: 0"]


def test_an_opt_in_column_is_computed_on_request_written_and_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in for a later analysis (a fair column, p_random, a band): registered by name,
    # computed only when asked for, written by the formats given it, and resumable.
    column = Column("odd", bool, 3)
    monkeypatch.setitem(rate_rows._COLUMNS, "odd", column)
    monkeypatch.setitem(seed_rows._ANALYSES, "odd", lambda variant, row: row.seed % 2 == 1)
    plain = seed_rows.rate_batch(RateOptions("sum15", "high"), [4, 5])
    rated = seed_rows.rate_batch(RateOptions("sum15", "high", ("odd",)), [4, 5])
    assert [row.extra for row in plain] == [{}, {}]
    assert [row.extra for row in rated] == [{"odd": False}, {"odd": True}]
    assert [row.analyses for row in plain + rated] == ["none", "none", "odd", "odd"]  # named by its columns
    names = rate_rows.record_columns(("odd",))
    columns = rate_columns(names, 5)
    for fmt in (JsonLines(columns), Csv(columns), TextTable(columns)):
        lines = [line_of(fmt, row) for row in rated]
        assert fmt.names_in(fmt.header() if fmt.has_header else lines[0]) == names
        assert [rate_rows.Row.from_values(fmt.parse(line)).extra for line in lines] == [{"odd": False}, {"odd": True}]
    assert line_of(Csv(columns), rated[1]).endswith(f",true,sum15,high,odd,{__version__}")
    assert TextTable(columns).header().endswith("ms odd  variant  strategy   analyses  version")


# Worked by hand with z = 1.96: for 2 of 4, p = 0.5, z^2/n = 0.9604, centre = 0.5 and
# half = 1.96 * sqrt(0.0625 + 0.0600) / 1.9604 = 0.3500; for 1 of 4, centre =
# (0.25 + 0.4802) / 1.9604 = 0.3725 and half = 1.96 * sqrt(0.046875 + 0.0600) / 1.9604 = 0.3269.
# The rest are the score-interval examples of Newcombe, Statistics in Medicine 17 (1998) 857-872.
KNOWN_INTERVALS = [
    pytest.param(2, 4, 0.1500, 0.8500, id="2-of-4-by-hand"),
    pytest.param(1, 4, 0.0456, 0.6994, id="1-of-4-by-hand"),
    pytest.param(81, 263, 0.2553, 0.3662, id="newcombe-81-of-263"),
    pytest.param(15, 148, 0.0624, 0.1605, id="newcombe-15-of-148"),
    pytest.param(0, 20, 0.0, 0.1611, id="newcombe-0-of-20"),
    pytest.param(1, 29, 0.0061, 0.1718, id="newcombe-1-of-29"),
]


@pytest.mark.parametrize(("successes", "trials", "low", "high"), KNOWN_INTERVALS)
def test_wilson_interval_on_known_numbers(successes: int, trials: int, low: float, high: float) -> None:
    got = wilson_interval(successes, trials)
    assert got == pytest.approx((low, high), abs=6e-5)


@pytest.mark.parametrize(("successes", "trials"), [(0, 1), (3, 7), (50, 100), (99_999, 100_000), (7, 7)])
def test_wilson_bounds_solve_the_score_equation(successes: int, trials: int) -> None:
    # The score interval is every p with (phat - p)^2 <= z^2 p (1 - p) / n: its ends are the
    # roots of that quadratic in p, found here with the quadratic formula instead.
    z = 1.959963984540054
    phat = successes / trials
    a = 1 + z * z / trials
    b = -(2 * phat + z * z / trials)
    c = phat * phat
    root = math.sqrt(b * b - 4 * a * c)
    assert wilson_interval(successes, trials) == pytest.approx(((-b - root) / (2 * a), (-b + root) / (2 * a)), abs=1e-9)


def test_wilson_ends_are_exact_at_none_and_all() -> None:
    assert wilson_interval(0, 1000)[0] == 0.0
    assert wilson_interval(1000, 1000)[1] == 1.0


@pytest.mark.parametrize(("successes", "trials"), [(0, 0), (5, 4), (-1, 3)])
def test_wilson_refuses_impossible_counts(successes: int, trials: int) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, trials)


# --- resume -----------------------------------------------------------------------------------

MADE = {"variant": "sum15", "strategy": "high", "analyses": "none", "version": __version__}
PLANTED = {"seed": 2, "autoplay": 0, "best": 0, "gap": 0, "won": False, "states": 0, "ms": 0.5, **MADE}
HEADERS = {
    "jsonl": "",
    "csv": ",".join(RECORD_COLUMNS) + "\n",
    "table": " ".join(RECORD_COLUMNS) + "\n",
}
WON_WORDS = {"jsonl": ("false", "true"), "csv": ("false", "true"), "table": ("no", "yes")}


def fields_of(fmt: str, row: dict[str, Any]) -> list[str]:
    return [WON_WORDS[fmt][row[c]] if c == "won" else str(row[c]) for c in RECORD_COLUMNS]


def compared(fmt: str, row: dict[str, Any]) -> list[str]:
    """The fields of a row that do not depend on the run."""
    return [field for c, field in zip(RECORD_COLUMNS, fields_of(fmt, row), strict=True) if c not in PER_RUN]


def written_line(fmt: str, row: dict[str, Any]) -> str:
    """A row as an earlier run would have left it (a table is read by whitespace, so its columns
    need not line up)."""
    if fmt == "jsonl":
        return orjson.dumps({c: row[c] for c in RECORD_COLUMNS}).decode()
    return ("," if fmt == "csv" else "  ").join(fields_of(fmt, row))


def file_rows(fmt: str, text: str, columns: tuple[str, ...] = RECORD_COLUMNS) -> list[list[str]]:
    """Each row of an --out file with these columns as its fields in column order, the per-run
    columns left out."""
    lines = text.splitlines()
    if fmt == "jsonl":
        rows = [orjson.loads(line) for line in lines]
        assert all(tuple(row) == columns for row in rows)
        return [[str(v).lower() for v in without_ms([row])[0].values()] for row in rows]
    split = (lambda line: line.split(",")) if fmt == "csv" else str.split
    assert split(lines[0]) == list(columns)
    return [[f for c, f in zip(columns, split(line), strict=True) if c not in PER_RUN] for line in lines[1:]]


def summary_from(fmt: str, done: subprocess.CompletedProcess[str]) -> list[str]:
    """The summary of a run with --out: on stdout for a table, else on stderr; nothing else."""
    if fmt == "table":
        assert done.stderr == ""
        return done.stdout.splitlines()
    assert done.stdout == ""
    return done.stderr.splitlines()


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "table"])
def test_resume_skips_seeds_already_in_the_file_and_mends_a_cut_last_line(fmt: str, tmp_path: Path) -> None:
    expected = {seed: {**expected_row("sum15", "high", seed), "ms": 1.25, **MADE} for seed in range(10)}
    # A run killed after seed 4, partway through writing seed 5; seed 2's row is one no search
    # would give, so that re-rating it would show.
    earlier = [expected[0], expected[1], PLANTED, expected[3], expected[4]]
    partial = tmp_path / "partial"
    partial.write_text(HEADERS[fmt] + "".join(written_line(fmt, row) + "\n" for row in earlier)
                       + written_line(fmt, expected[5])[:9])  # fmt: skip

    done = rate_cli(
        "--variant", "sum15", "--seeds", "0-9", "--format", fmt, "--out", "partial", "--jobs", "2", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    rows = [*earlier, *(expected[seed] for seed in range(5, 10))]
    assert file_rows(fmt, partial.read_text()) == [compared(fmt, row) for row in rows]
    summary = summary_from(fmt, done)
    assert summary[:7] == [
        "variant: sum15",
        "strategy: high",
        "seeds: 0-9",
        "resumed: 5 rows already in partial",
        "deals: 10",
        f"mean autoplay: {sum(row['autoplay'] for row in rows) / 10:.3f}",  # the planted 0 counts
        f"mean best: {sum(row['best'] for row in rows) / 10:.3f}",
    ]
    assert SPEED.fullmatch(summary[-1])[1] == "5"  # type: ignore[index]


def test_resume_counts_only_the_requested_range_and_a_done_range_rates_nothing(tmp_path: Path) -> None:
    first = rate_cli("--variant", "sum15", "--seeds", "0-5", "--format", "jsonl", "--out", "rows", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    done = rate_cli("--variant", "sum15", "--seeds", "4-7", "--format", "jsonl", "--out", "rows", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "rows").read_text()
    assert [row["seed"] for row in jsonl_rows(written)] == [0, 1, 2, 3, 4, 5, 6, 7]
    summary = done.stderr.splitlines()
    assert summary[3:5] == ["resumed: 2 rows already in rows", "deals: 4"]
    assert SPEED.fullmatch(summary[-1])[1] == "2"  # type: ignore[index]

    again = rate_cli("--variant", "sum15", "--seeds", "1-6", "--format", "jsonl", "--out", "rows", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "rows").read_text() == written
    assert again.stderr.splitlines()[3:5] == ["resumed: 6 rows already in rows", "deals: 6"]
    assert again.stderr.splitlines()[-1] == "deals per second: - (no new deals)"


@pytest.mark.parametrize(
    ("content", "fmt", "message"),
    [
        pytest.param(
            "seed,autoplay,best,gap,won,states,ms\n",
            "jsonl",
            "--out rows line 1 is not a jsonl row (is --format right?)",
            id="csv-read-as-jsonl",
        ),
        pytest.param(
            '{"seed":1}\n',
            "csv",
            "--out rows line 1 is not the csv header (is --format right?)",
            id="jsonl-read-as-csv",
        ),
        pytest.param(
            "seed autoplay best gap won states ms\n1 2 3\n",
            "table",
            "--out rows line 2 is not a table row (is --format right?)",
            id="short-table-row",
        ),
        *(
            pytest.param(
                "precious notes",
                fmt,
                f"--out rows is not a file of {fmt} rows (is --format right?)",
                id=f"one-unended-line-read-as-{fmt}",
            )
            for fmt in ("jsonl", "csv", "table")
        ),
        pytest.param(
            b"\xff\xfe\n".decode("latin-1"),
            "jsonl",
            "--out rows is not a file of jsonl rows (is --format right?)",
            id="not-text",
        ),
    ],
)
def test_resume_refuses_a_file_that_is_not_rows_and_leaves_it_alone(
    content: str, fmt: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows").write_bytes(content.encode("latin-1"))
    assert cli.main(["rate", "--seeds", "1-2", "--format", fmt, "--out", "rows"]) == 2
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")
    assert (tmp_path / "rows").read_bytes() == content.encode("latin-1")


@pytest.mark.parametrize(
    ("fmt", "cut"), [("jsonl", '{"se'), ("csv", "seed,autopl"), ("table", "seed autoplay be")], ids=lambda v: v
)
def test_a_file_cut_before_its_first_line_ended_starts_over(
    fmt: str, cut: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows").write_text(cut)
    assert (
        cli.main(["rate", "--variant", "sum15", "--seeds", "0-2", "--format", fmt, "--out", "rows", "--jobs", "1"]) == 0
    )
    capsys.readouterr()
    expected = [compared(fmt, {**expected_row("sum15", "high", seed), "ms": 0, **MADE}) for seed in range(3)]
    assert file_rows(fmt, (tmp_path / "rows").read_text()) == expected  # every file says what made its rows


def test_an_interrupted_run_keeps_whole_rows_and_the_next_run_goes_on(tmp_path: Path) -> None:
    # Python leaves SIGINT ignored when it starts ignored (as under a shell's background job),
    # so the child turns Ctrl-C back on before running the command line.
    ctrl_c_on = "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); " \
                "from triples.doors.cli import main; sys.exit(main(sys.argv[1:]))"  # fmt: skip
    rows = tmp_path / "rows"
    args = ["rate", "--seeds", "0-100000", "--format", "jsonl", "--out", "rows", "--jobs", "2"]
    child = subprocess.Popen([sys.executable, "-c", ctrl_c_on, *args], cwd=tmp_path, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 60
    while not (rows.exists() and rows.stat().st_size) and time.monotonic() < deadline:
        time.sleep(0.02)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert (child.returncode, out) == (130, "")
    written = jsonl_rows(rows.read_text())  # every line whole, or this fails
    assert err.splitlines()[-1] == (
        f"interrupted (SIGINT): rows holds {len(written)} rows of seeds 0-100000; the same command rates the rest"
    )
    assert 0 < len(written) < 100_001
    seeds = [row["seed"] for row in written]
    assert seeds == sorted(set(seeds))  # a seed still being rated may be missing, none is there twice
    assert err.splitlines()[3] == f"deals: {len(written)}"

    done, last = len(written), seeds[-1] + 4
    resumed = rate_cli("--seeds", f"0-{last}", "--format", "jsonl", "--out", "rows", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.splitlines()[3] == f"resumed: {done} rows already in rows"
    assert sorted(row["seed"] for row in jsonl_rows(rows.read_text())) == list(range(last + 1))


# --- progress and bad input ---------------------------------------------------------------


@pytest.mark.parametrize(("rows", "columns"), [(24, 80), (0, 0)], ids=["sized-terminal", "terminal-of-no-size"])
def test_progress_bar_is_drawn_only_on_a_terminal(rows: int, columns: int) -> None:
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    try:
        done = rate_cli("--variant", "sum15", "--seeds", "0-9", "--format", "jsonl", "--jobs", "1", stderr=terminal)
    finally:
        os.close(terminal)
    drawn = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal's other side is closed: everything has been read
            break
        if not chunk:
            break
        drawn += chunk
    os.close(controller)
    assert done.returncode == 0
    assert len(jsonl_rows(done.stdout)) == 10
    # The bar is cleared when done (so it never splits the table from its summary); what was
    # drawn of it stays in the terminal's byte stream. Piped, stderr holds the summary alone:
    # the other tests compare it line by line.
    assert re.search(rb"sum15 0-9: +\d+%\|.*\| \d+/10 \[", drawn) and b"deal/s" in drawn
    assert drawn.rindex(b"deal/s") < drawn.index(b"variant: sum15\r\n")


MAX = "4294967295"
BAD_INPUT = [
    pytest.param(["--variant", "poker", "--seeds", "1-2"], "unknown variant 'poker'", id="unknown-variant"),
    pytest.param(["--strategy", "random", "--seeds", "1-2"], "unknown strategy 'random'", id="unknown-strategy"),
    pytest.param(
        ["--seeds", "9-3"], "argument --seeds: 9-3: the range is empty (A must not exceed B)", id="reversed-range"
    ),
    pytest.param(["--seeds=-1-5"], f"argument --seeds: -1-5: seeds are integers from 0 to {MAX}", id="negative-seed"),
    pytest.param(["--seeds", "-4"], f"argument --seeds: -4: seeds are integers from 0 to {MAX}", id="negative-single"),
    pytest.param(
        ["--seeds", "1-4294967296"],
        f"argument --seeds: 1-4294967296: seeds are integers from 0 to {MAX} (a deal repeats every 2^32 seeds)",
        id="seed-past-2^32",
    ),
    pytest.param(
        ["--seeds", "abc"], "argument --seeds: abc: expected a range A-B of seeds, like 1-1000", id="garbage-range"
    ),
    pytest.param(
        ["--seeds", "1-2-3"], "argument --seeds: 1-2-3: expected a range A-B of seeds, like 1-1000", id="three-parts"
    ),
    pytest.param(
        ["--seeds", "1.5-3"], "argument --seeds: 1.5-3: expected a range A-B of seeds, like 1-1000", id="fraction"
    ),
    pytest.param(["--seeds", "1-3", "--jobs", "0"], "argument --jobs: 0: expected a positive integer", id="no-jobs"),
    pytest.param(
        ["--seeds", "1-3", "--jobs", "two"], "argument --jobs: two: expected a positive integer", id="garbage-jobs"
    ),
    pytest.param(
        ["--seeds", "1-3", "--format", "xml"],
        "argument --format: invalid choice: 'xml' (choose from 'table', 'jsonl', 'csv')",
        id="unknown-format",
    ),
    pytest.param([], "the following arguments are required: --seeds", id="no-seeds"),
    pytest.param(["--seeds"], "argument --seeds: expected one argument", id="seeds-without-value"),
    pytest.param(
        ["--seeds", "1-3", "--out", "no/such/dir/rows"],
        "--out no/such/dir/rows: No such file or directory",
        id="out-in-missing-dir",
    ),
    pytest.param(
        ["--seeds", "1-3", "--jobs", "2", "--scheduler", "local"],
        "--jobs is the process pool's size: with --scheduler, the cluster's workers do the work",
        id="jobs-with-scheduler",
    ),
    *(
        pytest.param(
            ["--seeds", "1-3", "--scheduler", f"local:{n}"],
            f"argument --scheduler: local:{n}: expected local:N with N a positive integer",
            id=f"local-{n or 'zero'}",
        )
        for n in ("0", "two", "")
    ),
    pytest.param(
        ["--seeds", "1-3", "--scheduler", "local:1", "--scheduler-timeout", "0"],
        "argument --scheduler-timeout: 0: expected a positive number of seconds",
        id="no-timeout",
    ),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT)
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # In process, through the command line's own entry point, to keep the suite quick; the
    # next test runs a few of the same cases as real processes.
    monkeypatch.chdir(tmp_path)
    assert cli.main(["rate", *args]) == 2
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")


REAL_PROCESS_CASES = {"unknown-variant", "reversed-range", "negative-seed", "seeds-without-value"}


@pytest.mark.parametrize(("args", "message"), [case for case in BAD_INPUT if case.id in REAL_PROCESS_CASES])
def test_bad_input_from_a_real_process_is_one_line_and_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    done = rate_cli(*args, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"triples rate: error: {message}\n")


def test_help_names_every_variant_and_strategy(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"--variant VARIANT {', '.join(VARIANTS)} (default classic)" in text
    assert f"--strategy STRATEGY {', '.join(STRATEGIES)} (default high)" in text
