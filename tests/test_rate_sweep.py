"""``triples sweep``: its rows are triples rate's numbers, resume by rule set, interrupts, the plot,
and one-line refusals."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from tests.processes import EXIT_WITHIN, descendants, left_running, start, stopped, wait_for_rows
from triples import __version__
from triples.doors import cli
from triples.doors.rating import Row, Summary
from triples.doors.rating.summary import rate_with_interval
from triples.model.variants import parse_variant

if TYPE_CHECKING:
    from distributed import Client, LocalCluster


def sweep_jsonl(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows and the report of an in-process sweep in jsonl."""
    assert cli.main(["sweep", *args, "--format", "jsonl", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    return [orjson.loads(line) for line in out.splitlines()], err.splitlines()


def rate_summary(capsys: pytest.CaptureFixture[str], variant: str, seeds: str, *options: str) -> tuple[Summary, str]:
    """triples rate's summary of the same deals: built from its rows, and as it prints it."""
    assert cli.main(["rate", "--variant", variant, "--seeds", seeds, "--format", "jsonl", "--jobs", "1", *options]) == 0
    out, err = capsys.readouterr()
    summary = Summary(parse_variant(variant), "high")
    for line in out.splitlines():
        values = orjson.loads(line)
        summary.add(Row.from_values(values))
    return summary, err


def check_row_is_rates(row: dict[str, Any], summary: Summary, printed: str) -> None:
    deals = summary.deals
    assert row["deals"] == deals
    assert row["mean_best"] == summary.best_total / deals
    assert row["mean_autoplay"] == summary.autoplay_total / deals
    assert (row["best_wins"], row["autoplay_wins"]) == (summary.best_wins, summary.strategy_wins)
    # The same numbers as rate prints them.
    assert f"mean best: {row['mean_best']:.3f}\n" in printed
    assert f"mean autoplay: {row['mean_autoplay']:.3f}\n" in printed
    assert f"win rate best: {rate_with_interval(row['best_wins'], deals)}\n" in printed
    assert f"win rate high: {rate_with_interval(row['autoplay_wins'], deals)}\n" in printed
    assert f"{100 * row['win_best_low']:.2f}%, {100 * row['win_best_high']:.2f}%]" in printed
    assert f"{100 * row['win_autoplay_low']:.2f}%, {100 * row['win_autoplay_high']:.2f}%]" in printed


def test_sweep_rows_are_rates_numbers_for_each_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    rows, report = sweep_jsonl(
        capsys, "--variant", "classic", "--vary", "target=19..21", "--vary", "suits=2,4", "--seeds", "1-8"
    )
    assert [(row["target"], row["suits"], row["variant"]) for row in rows] == [
        (19, 2, "classic(target=19,suits=2)"),
        (19, 4, "classic(target=19)"),
        (20, 2, "classic(suits=2)"),
        (20, 4, "classic"),
        (21, 2, "classic(target=21,suits=2)"),
        (21, 4, "classic(target=21)"),
    ]
    assert all(row["strategy"] == "high" and row["seeds"] == "1-8" for row in rows)
    assert report[:5] == [
        "base: classic",
        "varied: target=19..21; suits=2,4",
        "strategy: high",
        "seeds: 1-8",
        "rule sets: 6 of 6",
    ]
    for row in rows:
        summary, printed = rate_summary(capsys, row["variant"], "1-8")
        check_row_is_rates(row, summary, printed)


def test_text_fields_a_json_base_and_the_fair_player(capsys: pytest.CaptureFixture[str]) -> None:
    base = '{"base": "pairs", "suits": 2}'
    rows, _ = sweep_jsonl(capsys, "--variant", base, "--vary", "court=10/10/10,11/12/13", "--seeds", "3-7", "--fair")
    assert [(row["court"], row["variant"]) for row in rows] == [
        ("10/10/10", "pairs(court=10/10/10,suits=2)"),
        ("11/12/13", "pairs(suits=2)"),
    ]
    for row in rows:
        summary, printed = rate_summary(capsys, row["variant"], "3-7", "--fair")
        check_row_is_rates(row, summary, printed)
        assert (row["mean_fair"], row["fair_wins"]) == (summary.fair_total / summary.fair_deals, summary.fair_wins)
        assert f"win rate fair: {rate_with_interval(row['fair_wins'], summary.fair_deals)}\n" in printed


def test_table_rows_then_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sweep", "--variant", "sum15", "--vary", "target=14,15", "--seeds", "1-4", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert err == ""
    assert lines[0].split()[:4] == ["target", "variant", "deals", "mean_best"]
    assert [line.split()[:3] for line in lines[1:3]] == [["14", "sum15(target=14)", "4"], ["15", "sum15", "4"]]
    assert lines[3:8] == ["", "base: sum15", "varied: target=14,15", "strategy: high", "seeds: 1-4"]


def test_resume_by_rule_set_keeps_finished_rows_and_rates_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep.csv"
    args = ["sweep", "--variant", "classic", "--vary", "slots=9..12", "--seeds", "1-5", "--format", "csv"]
    assert cli.main([*args, "--jobs", "1", "--out", str(out)]) == 0
    whole = out.read_text().splitlines()
    assert len(whole) == 5 and whole[0].startswith("slots,variant,deals,")
    # Killed while writing the fourth rule set: two rows whole, the third cut off.
    out.write_text("\n".join(whole[:3]) + "\n" + whole[3][:10])
    capsys.readouterr()
    assert cli.main([*args, "--jobs", "2", "--out", str(out)]) == 0
    report = capsys.readouterr().err
    assert out.read_text().splitlines() == whole
    assert "rule sets: 4 of 4\nresumed: 2 rule sets already in" in report
    assert "(10 new deals in" in report
    assert cli.main([*args, "--jobs", "1", "--out", str(out)]) == 0
    assert "deals per second: - (no new deals)" in capsys.readouterr().err
    assert out.read_text().splitlines() == whole


def test_resume_of_a_table_and_refusal_of_another_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sweep.txt"
    args = ["sweep", "--variant", "sum15", "--vary", "per_move=2,3", "--jobs", "1", "--out", str(out)]
    assert cli.main([*args, "--seeds", "1-3"]) == 0
    whole = out.read_text()
    out.write_text(whole.splitlines(keepends=True)[0] + whole.splitlines(keepends=True)[1])
    capsys.readouterr()
    assert cli.main([*args, "--seeds", "1-3"]) == 0
    assert out.read_text() == whole
    assert "resumed: 1 rule sets already in" in capsys.readouterr().out
    assert cli.main([*args, "--seeds", "1-4"]) == 2
    assert capsys.readouterr().err == (
        f"triples sweep: error: --out {out} holds sum15(per_move=2) rated with --strategy high on seeds 1-3, "
        "not high on 1-4: use a new file\n"
    )
    assert cli.main([*args, "--seeds", "1-3", "--fair"]) == 2
    assert "line 1 is not the header of this sweep's table rows" in capsys.readouterr().err
    assert out.read_text() == whole


def test_rows_by_another_version_are_refused_and_the_file_left_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sweep.jsonl"
    args = ["sweep", "--variant", "sum15", "--vary", "target=14,15", "--seeds", "1-3", "--format", "jsonl"]
    assert cli.main([*args, "--jobs", "1", "--out", str(out)]) == 0
    first, second = out.read_text().splitlines()
    assert orjson.loads(first)["version"] == __version__
    older = orjson.dumps(orjson.loads(first) | {"version": "0.0.1"}).decode()
    # One row by another version, and the next cut off by a kill: nothing of it may change.
    made = f"{older}\n{second[:12]}"
    out.write_text(made)
    capsys.readouterr()
    assert cli.main([*args, "--jobs", "1", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"triples sweep: error: --out {out} holds sum15(target=14) rated by triples 0.0.1, "
        f"not {__version__}: use a new file\n"
    )
    assert out.read_text() == made


def reference_rows(capsys: pytest.CaptureFixture[str], last: int) -> list[dict[str, Any]]:
    """The rows of an uninterrupted sweep of classic's target from 16 to ``last`` on seeds 1-20
    (rated in this process, each rule set once for all tests)."""
    missing = [target for target in range(16, last + 1) if target not in REFERENCE]
    if missing:
        rows, _ = sweep_jsonl(capsys, "--variant", "classic", "--vary", f"target={','.join(map(str, missing))}",
                              "--seeds", "1-20")  # fmt: skip
        REFERENCE.update((row["target"], row) for row in rows)
    return [REFERENCE[target] for target in range(16, last + 1)]


REFERENCE: dict[int, dict[str, Any]] = {}
# A sweep no run here finishes (984 rule sets), so the signal always lands mid-run.
ENDLESS = ["sweep", "--variant", "classic", "--vary", "target=16..999", "--seeds", "1-20", "--format", "jsonl"]
RANDOM = random.Random(22)
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
CASES = [*((executor, signum) for executor in ("jobs-1", "jobs-2") for signum in SIGNALS), ("cluster", signal.SIGTERM)]


def executor_options(executor: str, request: pytest.FixtureRequest) -> list[str]:
    if executor == "cluster":
        local, _ = request.getfixturevalue("cluster")
        return ["--scheduler", local.scheduler_address]
    return ["--jobs", executor.removeprefix("jobs-")]


def started_with_workers(args: list[str], tmp_path: Path, workers: bool) -> tuple[subprocess.Popen[str], set[int]]:
    """The sweep started, once it has written a row and a little after, and (with a pool) while
    its worker processes are up; with the pids of those workers."""
    child = start(args, tmp_path)
    wait_for_rows(tmp_path / "rows", child)
    time.sleep(RANDOM.uniform(0.0, 0.3))
    found = descendants(child.pid)
    deadline = time.monotonic() + 30
    while workers and not found and time.monotonic() < deadline:  # between two rule sets' pools
        time.sleep(0.01)
        found = descendants(child.pid)
    assert child.poll() is None and (found or not workers)
    return child, found


@pytest.mark.parametrize(("executor", "signum"), CASES, ids=[f"{e}-{s.name}" for e, s in CASES])
def test_a_stop_signal_keeps_every_finished_rule_set_and_resume_completes_the_sweep(
    executor: str,
    signum: signal.Signals,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    options = executor_options(executor, request)
    child, workers = started_with_workers([*ENDLESS, "--out", "rows", *options], tmp_path, executor == "jobs-2")
    _, err, took = stopped(child, signum)  # Ctrl-C and a hang-up to the process group, SIGTERM to the command
    assert child.returncode == 128 + signum, err
    assert took < EXIT_WITHIN
    assert left_running(workers, 2.0) == set()
    assert "Traceback" not in err
    out = tmp_path / "rows"
    kept = [orjson.loads(line) for line in out.read_text().splitlines()]  # every line whole, or this fails
    targets = [row["target"] for row in kept]
    assert targets == list(range(16, 16 + len(kept)))  # in order, none twice
    report = err.splitlines()
    assert report[4] == f"rule sets: {len(kept)} of 984"  # what it kept is what it says it kept
    assert report[-1] == f"interrupted ({signum.name}): rows holds every finished rule set; the same command goes on"
    if executor == "cluster":  # the run's tasks are cancelled on the cluster
        scheduler = request.getfixturevalue("cluster")[0].scheduler
        deadline = time.monotonic() + 20
        while scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not scheduler.tasks
    # Resumed over the rule sets it got through and two more, the file holds exactly the rows of
    # an uninterrupted sweep, each once; only the two missing rule sets are rated.
    last = targets[-1] + 2
    capsys.readouterr()
    resume = [*ENDLESS[:4], f"target=16..{last}", *ENDLESS[5:], "--out", str(out), "--jobs", "1"]
    assert cli.main(resume) == 0
    resumed = capsys.readouterr().err
    assert f"rule sets: {len(kept) + 2} of {len(kept) + 2}\nresumed: {len(kept)} rule sets already in" in resumed
    assert "(40 new deals in " in resumed
    assert [orjson.loads(line) for line in out.read_text().splitlines()] == reference_rows(capsys, last)


def test_workers_exit_when_the_sweep_is_killed(tmp_path: Path) -> None:
    child, workers = started_with_workers([*ENDLESS, "--out", "rows", "--jobs", "2"], tmp_path, workers=True)
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=30)
    assert left_running(workers, 5.0) == set()


def test_a_sweep_on_a_cluster_gives_the_rows_of_jobs_1_and_resumes_by_rule_set(
    cluster: tuple[LocalCluster, Client], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    address = cluster[0].scheduler_address
    args = ["sweep", "--variant", "classic", "--vary", "target=19..21", "--vary", "slots=9,10", "--seeds", "1-12"]
    args += ["--format", "csv"]
    whole = tmp_path / "jobs-1.csv"
    assert cli.main([*args, "--jobs", "1", "--out", str(whole)]) == 0
    in_process = capsys.readouterr().err.splitlines()
    assert cli.main([*args, "--scheduler", address]) == 0
    out, err = capsys.readouterr()
    assert out == whole.read_text()  # every row, in the same order, to the last digit
    assert len(out.splitlines()) == 1 + 6
    assert err.splitlines()[:-1] == in_process[:-1]
    assert err.splitlines()[-1].endswith(f"s, 2 workers, scheduler {address})")
    # Resume on the cluster: two rule sets done, the run killed while writing the third.
    lines = whole.read_text().splitlines(keepends=True)
    partial = tmp_path / "cluster.csv"
    partial.write_text("".join(lines[:3]) + lines[3][:15])
    assert cli.main([*args, "--scheduler", address, "--out", str(partial)]) == 0
    report = capsys.readouterr().err
    assert partial.read_text() == whole.read_text()
    assert "rule sets: 6 of 6\nresumed: 2 rule sets already in" in report
    assert "(48 new deals in " in report


@pytest.mark.parametrize(
    ("plot", "vary", "measure", "words"),
    [
        ("heat.svg", ["--vary", "target=14,15", "--vary", "slots=8,9"], None, ["win rate of best play", "slots"]),
        ("line.svg", ["--vary", "target=13..15"], "mean_best", ["mean cards cleared by best play", "target"]),
        ("heat.png", ["--vary", "target=14,15", "--vary", "slots=8,9"], "win_autoplay", []),
    ],
)
def test_the_plot_file_is_written(
    plot: str,
    vary: list[str],
    measure: str | None,
    words: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / plot
    options = [] if measure is None else ["--measure", measure]
    args = ["sweep", "--variant", "sum15", *vary, "--seeds", "1-3", "--jobs", "1", "--plot", str(path), *options]
    assert cli.main(args) == 0
    data = path.read_bytes()
    if plot.endswith(".png"):
        assert data.startswith(b"\x89PNG")
    else:
        text = data.decode()
        assert "<svg" in text and "sum15, seeds 1-3 (3 deals per rule set)" in text
        assert all(word in text for word in words)


EXAMPLE = "like target=18..22, deck=standard,numeric or court=10/10/10,11/12/13"
FIELDS = "(fields: slots, per_move, target, deck, court, top_rank, suits)"
COURT = "court must be three integers from 1 to 50 (the values of J, Q, K)"
AT_ONCE = "every card is dealt at once, so random play has astronomically many ways to go (--fair works)"
MEASURES = "win_best, mean_best, win_autoplay, mean_autoplay, win_fair, mean_fair, easy, medium, hard"
NOT_JSON = "inline variant rules are not JSON (unexpected character, expected a string key: line 1 column 2 (char 1))"
THREE = "--plot draws one or two varied fields, and this sweep varies 3"
BAD = [
    ([], f"--vary FIELD=VALUES is required, {EXAMPLE}"),
    (["--vary", "slot=9..11"], "--vary slot=9..11: unknown field 'slot' " + FIELDS),
    (["--vary", "slots"], f"--vary slots: expected FIELD=VALUES, {EXAMPLE}"),
    (["--vary", "slots=11..9"], "--vary slots=11..9: the range is empty (a must not exceed b)"),
    (["--vary", "deck=a..b"], f"--vary deck=a..b: a range a..b is of integers, {EXAMPLE}"),
    (["--vary", "slots=9,,10"], f"--vary slots=9,,10: a value is missing, {EXAMPLE}"),
    (["--vary", "slots=9,9"], "--vary slots=9,9: a value is listed twice"),
    (["--vary", "slots=9", "--vary", "slots=10"], "--vary: slots is varied twice (list all its values in one --vary)"),
    (["--vary", "slots=2..4"], "rule set slots=2: bad variant: per_move (3) must be at most slots (2)"),
    (["--vary", "target=0,20"], "rule set target=0: bad variant: target must be an integer from 1 to 999"),
    (["--vary", "court=1/2"], "rule set court=1/2: bad variant: " + COURT),
    (["--vary", "top_rank=5,9"], "rule set top_rank=5: bad variant: top_rank is only for a numeric deck"),
    (["--vary", "slots=60", "--difficulty"], "--difficulty is out of reach on classic(slots=60): " + AT_ONCE),
    (["--vary", "slots=9", "--measure", "hard"], "--measure chooses what --plot draws: give --plot FILE too"),
    (["--vary", "slots=9", "--measure", "hard", "--plot", "x.png"], "--measure hard needs --difficulty"),
    (["--vary", "slots=9", "--measure", "fun", "--plot", "x.png"], "--measure fun: expected one of " + MEASURES),
    (["--vary", "slots=9", "--vary", "target=20", "--vary", "suits=4", "--plot", "x.png"], THREE),
    (["--vary", "slots=9", "--variant", "{nope"], NOT_JSON),
]  # fmt: skip


@pytest.mark.parametrize(("args", "message"), BAD, ids=[" ".join(args) or "no-vary" for args, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(
    args: list[str], message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["sweep", "--seeds", "1-2", *args]) == 2
    assert capsys.readouterr() == ("", f"triples sweep: error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_difficulty_is_checked_on_the_rule_sets_not_the_base(capsys: pytest.CaptureFixture[str]) -> None:
    # The base deals all 36 cards at once (out of --difficulty's reach); the rule set does not.
    base = '{"base": "sum15", "slots": 36}'
    rows, _ = sweep_jsonl(capsys, "--variant", base, "--vary", "slots=9", "--seeds", "1-3", "--difficulty")
    assert [row["variant"] for row in rows] == ["sum15"]
    assert sum(rows[0][band] for band in ("easy", "medium", "hard")) == pytest.approx(1.0)
    summary, printed = rate_summary(capsys, "sum15", "1-3", "--difficulty")
    check_row_is_rates(rows[0], summary, printed)
    for band in ("easy", "medium", "hard"):
        assert rows[0][band] == summary.band_counts[band] / summary.band_deals
