"""``triples rate --scheduler``: rows on a Dask cluster equal ``--jobs 1``; resume, a worker that
dies, Ctrl-C, an unreachable scheduler; and a plain ``triples rate`` never loads Dask.

One LocalCluster of two worker processes (one thread each; the ``cluster`` fixture of conftest)
serves the module; the command runs in subprocesses that connect to it, as it would to a
cluster on other hosts.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import orjson
import psutil
import pytest
from distributed import Client, LocalCluster

from tests.processes import EXIT_WITHIN, start, wait_for_rows
from tests.test_rate import RATE, SPEED, jsonl_rows, rate_cli
from triples import __version__
from triples.doors.rating import rate_seeds
from triples.model.variants import parse_variant


def reference(variant: str, first: int, last: int) -> list[tuple[Any, ...]]:
    """What ``--jobs 1`` rates (the same in-process executor), as rows without the per-run columns."""
    batches = rate_seeds(parse_variant(variant), "high", range(first, last + 1), jobs=1)
    return [(r.seed, r.autoplay, r.best, r.gap, r.won, r.states) for rows in batches for r in rows]


def csv_rows(text: str) -> list[tuple[Any, ...]]:
    header, *lines = text.splitlines()
    assert header == "seed,autoplay,best,gap,won,states,ms,variant,strategy,analyses,version"
    rows = [line.split(",") for line in lines]
    assert {row[10] for row in rows} == {__version__}
    return [(int(s), int(a), int(b), int(g), w == "true", int(n)) for s, a, b, g, w, n, *_ in rows]


def summary_without_speed(text: str) -> list[str]:
    *lines, speed = text.splitlines()
    assert SPEED.fullmatch(speed) or "workers, scheduler tcp://" in speed, speed
    return lines


@pytest.mark.parametrize(("variant", "seeds"), [("sum15", "0-299"), ("classic", "0-199")], ids=["sum15", "classic"])
def test_rows_on_the_cluster_equal_jobs_1(variant: str, seeds: str, cluster: tuple[LocalCluster, Client]) -> None:
    address = cluster[0].scheduler_address
    on_cluster = rate_cli("--variant", variant, "--seeds", seeds, "--format", "csv", "--scheduler", address)
    in_process = rate_cli("--variant", variant, "--seeds", seeds, "--format", "csv", "--jobs", "1")
    assert (on_cluster.returncode, in_process.returncode) == (0, 0), on_cluster.stderr
    assert csv_rows(on_cluster.stdout) == csv_rows(in_process.stdout)
    assert len(csv_rows(in_process.stdout)) == int(seeds.split("-")[1]) + 1
    assert summary_without_speed(on_cluster.stderr) == summary_without_speed(in_process.stderr)
    assert on_cluster.stderr.splitlines()[-1].endswith(f"s, 2 workers, scheduler {address})")


def test_difficulty_columns_on_the_cluster_equal_jobs_1(cluster: tuple[LocalCluster, Client]) -> None:
    # The opt-in columns ride in the same batch task: the workers compute fair, p_random, band.
    args = ("--variant", "classic", "--seeds", "1-6", "--difficulty", "--format", "jsonl")
    on_cluster = rate_cli(*args, "--scheduler", cluster[0].scheduler_address)
    in_process = rate_cli(*args, "--jobs", "1")
    assert (on_cluster.returncode, in_process.returncode) == (0, 0), on_cluster.stderr
    per_run = ("ms", "version")
    cluster_rows, process_rows = (
        [{k: v for k, v in row.items() if k not in per_run} for row in jsonl_rows(done.stdout)]
        for done in (on_cluster, in_process)
    )
    assert cluster_rows == process_rows
    assert [row["band"] for row in cluster_rows] == ["medium", "easy", "easy", "easy", "medium", "easy"]
    assert summary_without_speed(on_cluster.stderr) == summary_without_speed(in_process.stderr)


def test_resume_on_the_cluster_keeps_the_file_and_refuses_rows_of_another_version(
    cluster: tuple[LocalCluster, Client], tmp_path: Path
) -> None:
    rows = {row[0]: row for row in reference("sum15", 0, 39)}
    keys = ("seed", "autoplay", "best", "gap", "won", "states")

    def line(seed: int, version: str) -> str:
        made = {"variant": "sum15", "strategy": "high", "analyses": "none", "version": version}
        return orjson.dumps({**dict(zip(keys, rows[seed], strict=True)), "ms": 1.5, **made}).decode()

    # Seeds 0-9 done; the run was killed partway through seed 10.
    partial = tmp_path / "rows"
    partial.write_text("".join(line(s, __version__) + "\n" for s in range(10)) + line(10, "")[:12])
    args = ("--variant", "sum15", "--seeds", "0-39", "--format", "jsonl", "--out", "rows")
    done = rate_cli(*args, "--scheduler", cluster[0].scheduler_address, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = jsonl_rows(partial.read_text())
    assert [tuple(row[k] for k in keys) for row in written] == [rows[s] for s in range(40)]
    assert {row["version"] for row in written} == {__version__}
    summary = done.stderr.splitlines()
    assert summary[3:5] == ["resumed: 10 rows already in rows", "deals: 40"]
    assert summary[-1].startswith("deals per second: ") and "(30 new deals in " in summary[-1]

    older = tmp_path / "older"
    older.write_text("".join(line(s, "0.0.9" if s == 3 else __version__) + "\n" for s in range(10)))
    before = older.read_bytes()
    refused = rate_cli(*args[:-1], "older", "--scheduler", cluster[0].scheduler_address, cwd=tmp_path)
    assert (refused.returncode, refused.stderr) == (
        2,
        f"triples rate: error: --out older holds rows of version 0.0.9 (not {__version__}) at seed 3: "
        "use the same options, or another file\n",
    )
    assert older.read_bytes() == before


def test_a_worker_killed_mid_run_loses_nothing(cluster: tuple[LocalCluster, Client], tmp_path: Path) -> None:
    local, client = cluster
    pids: dict[str, int] = client.run(os.getpid)
    out = tmp_path / "rows"
    child = subprocess.Popen([*RATE, "--variant", "classic", "--seeds", "0-1499", "--format", "csv", "--out", "rows",
                              "--scheduler", local.scheduler_address], cwd=tmp_path, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    deadline = time.monotonic() + 60
    while not (out.exists() and out.read_text().count("\n") >= 2) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert child.poll() is None, "the run ended before a worker could be killed"
    os.kill(min(pids.values()), signal.SIGKILL)
    _, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    assert "Traceback" not in err
    assert csv_rows(out.read_text()) == reference("classic", 0, 1499)
    client.wait_for_workers(2, timeout=30)  # the nanny has started a new worker in its place
    assert min(pids.values()) not in client.run(os.getpid).values()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_an_unreachable_scheduler_is_one_line_and_exit_2_within_the_timeout(tmp_path: Path) -> None:
    address = f"tcp://127.0.0.1:{free_port()}"
    start = time.monotonic()
    done = rate_cli("--seeds", "0-9", "--format", "jsonl", "--out", "rows", "--scheduler", address,
                    "--scheduler-timeout", "1", cwd=tmp_path)  # fmt: skip
    assert time.monotonic() - start < 15
    message = f"--scheduler {address}: cannot reach the scheduler: Timed out trying to connect to {address} after 1 s"
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"triples rate: error: {message}\n")
    assert not (tmp_path / "rows").exists()


def check_interrupted_output(child: subprocess.Popen[str], rows: Path) -> str:
    """The summary, once checked to be that of an interrupted run that kept whole rows."""
    out, err = child.communicate(timeout=60)
    assert (child.returncode, out) == (130, ""), err
    assert "Traceback" not in err
    written = jsonl_rows(rows.read_text())  # every line whole, or this fails
    assert err.splitlines()[-1] == (
        f"interrupted (SIGINT): rows holds {len(written)} rows of seeds 0-100000; the same command rates the rest"
    )
    seeds = [row["seed"] for row in written]
    assert seeds == sorted(set(seeds))  # a seed still being rated may be missing, none is there twice
    assert err.splitlines()[3] == f"deals: {len(written)}"
    return err


def held_on_workers(client: Client) -> dict[str, set[int]]:
    """The seeds each run's tasks have finished, as the cluster's workers hold them."""

    def held() -> dict[str, list[int]]:  # defined in here, so that Dask sends it to the workers by value
        from triples.doors.rating.cluster import WORKER_ROWS

        with WORKER_ROWS.lock:
            return {run: [row.seed for task in tasks for row in task.rows] for run, tasks in WORKER_ROWS.runs.items()}

    found: dict[str, set[int]] = {}
    for runs in client.run(held).values():
        for run, seeds in runs.items():
            found.setdefault(run, set()).update(seeds)
    return found


def test_ctrl_c_keeps_every_row_finished_on_the_workers_and_cancels_the_clusters_tasks(
    cluster: tuple[LocalCluster, Client], tmp_path: Path
) -> None:
    local, client = cluster
    earlier = set(held_on_workers(client))
    rows = tmp_path / "rows"
    # --fair: slow rows, so that a task (8 of them) is often still running when the signal comes
    child = start(["rate", "--seeds", "0-100000", "--fair", "--format", "jsonl", "--out", "rows",
                   "--scheduler", local.scheduler_address], tmp_path)  # fmt: skip
    wait_for_rows(rows, child)
    time.sleep(0.5)
    finished = {seed for run, seeds in held_on_workers(client).items() if run not in earlier for seed in seeds}
    os.killpg(child.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the command's whole process group
    check_interrupted_output(child, rows)
    assert finished
    assert finished <= {row["seed"] for row in jsonl_rows(rows.read_text())}  # every row finished before the signal
    deadline = time.monotonic() + 20
    while local.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not local.scheduler.tasks


def test_ctrl_c_on_a_local_cluster_stops_its_workers_quietly(tmp_path: Path) -> None:
    rows = tmp_path / "rows"
    child = start(["rate", "--seeds", "0-100000", "--format", "jsonl", "--out", "rows", "--scheduler", "local:2"],
                  tmp_path)  # fmt: skip
    wait_for_rows(rows, child)
    os.killpg(child.pid, signal.SIGINT)  # the local workers get it too, and leave it to the command
    assert "s, 2 workers, local cluster)" in check_interrupted_output(child, rows)
    deadline = time.monotonic() + 20
    while group_alive(child.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not group_alive(child.pid), "a worker process outlived the command"


def group_alive(group: int) -> bool:
    """Whether a live process (not a zombie waiting for this container's init) is in the group."""
    for process in psutil.process_iter(["status"]):
        try:
            if os.getpgid(process.pid) == group and process.info["status"] != psutil.STATUS_ZOMBIE:
                return True
        except ProcessLookupError:
            continue
    return False


def test_rate_without_scheduler_never_imports_dask(tmp_path: Path) -> None:
    probe = (
        "import sys\nfrom triples.doors.cli import main\n"
        "main(['rate', '--variant', 'sum15', '--seeds', '0-3', '--format', 'jsonl', '--jobs', '2'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'dask', 'distributed', 'triples'}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    modules = orjson.loads(done.stdout.splitlines()[-1].replace("'", '"'))
    assert "triples.doors.rating.rate" in modules
    assert [m for m in modules if not m.startswith("triples")] == []
    assert "triples.doors.rating.cluster" not in modules


@pytest.mark.parametrize(
    ("batch_count", "workers", "group"),
    [(200, 2, 10), (48, 2, 3), (31, 2, 1), (5, 2, 1), (10_000, 64, 10), (0, 2, 1)],
    ids=["many", "some", "just-too-few", "few", "big-cluster", "none"],
)
def test_cheap_batches_go_out_several_to_a_task(batch_count: int, workers: int, group: int) -> None:
    from triples.doors.rating.cluster import batches_per_task

    assert batches_per_task(batch_count, workers) == group


def test_grouped_batches_give_the_rows_of_single_batches(cluster: tuple[LocalCluster, Client]) -> None:
    from functools import partial

    from triples.doors.rating.cluster import OnCluster
    from triples.doors.rating.executors import batches
    from triples.doors.rating.interrupts import NEVER
    from triples.doors.rating.rows import RateOptions
    from triples.doors.rating.seed_rows import rate_batch

    options = RateOptions("sum15", "high")
    rate = partial(rate_batch, options)
    executor = OnCluster(cluster[1], "test")
    executor.group = 3  # 15 batches of 7 seeds (the last of 1) in 5 tasks
    on_cluster = list(executor.rate(options, batches(range(100, 199), 7), NEVER))
    in_process = [rate(batch) for batch in batches(range(100, 199), 7)]
    assert [[row.seed for row in rows] for rows in on_cluster] == [[row.seed for row in rows] for rows in in_process]
    strip = [[(r.seed, r.autoplay, r.best, r.gap, r.won, r.states) for r in rows] for rows in on_cluster]
    assert strip == [[(r.seed, r.autoplay, r.best, r.gap, r.won, r.states) for r in rows] for rows in in_process]


def test_a_stop_keeps_the_rows_a_task_still_running_has_finished(
    cluster: tuple[LocalCluster, Client], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One task rates seeds 1-3 at once, then seed 0 for three seconds. A stop a second in
    yields rows 1-3, finished on the worker although the task's result never came."""
    from triples.doors.kit.rows_file import Column
    from triples.doors.rating import rows as rate_rows
    from triples.doors.rating import seed_rows
    from triples.doors.rating.cluster import OnCluster
    from triples.doors.rating.interrupts import StopSignals
    from triples.doors.rating.rows import RateOptions

    def slow_seed_zero(add: bool) -> None:  # defined in here, so that Dask sends it to the workers by value
        from triples.doors.kit.rows_file import Column
        from triples.doors.rating import rows

        if add:
            rows._COLUMNS["slow"] = Column("slow", bool, 4)
            seed_rows._ANALYSES["slow"] = lambda variant, row: time.sleep(3 if row.seed == 0 else 0) or True
        else:
            rows._COLUMNS.pop("slow", None)
            seed_rows._ANALYSES.pop("slow", None)

    client = cluster[1]
    monkeypatch.setitem(rate_rows._COLUMNS, "slow", Column("slow", bool, 4))
    client.run(slow_seed_zero, True)
    try:
        stop = StopSignals()  # not entered: no handlers; the stop is set by hand below
        rated = OnCluster(client, "test").rate(RateOptions("sum15", "high", ("slow",)), [[1, 2, 3, 0]], stop)
        timer = threading.Timer(1.0, setattr, (stop, "signum", signal.SIGTERM))
        timer.start()
        began = time.monotonic()
        batches = list(rated)
        timer.join()
    finally:
        client.run(slow_seed_zero, False)
    assert time.monotonic() - began < 1.0 + EXIT_WITHIN
    assert [[(row.seed, row.extra["slow"]) for row in rows] for rows in batches] == [[(1, True), (2, True), (3, True)]]
    assert [(r.seed, r.autoplay, r.best, r.gap, r.won, r.states) for r in batches[0]] == reference("sum15", 1, 3)


def test_a_worker_keeps_running_tasks_rows_and_drops_those_of_tasks_ended_a_while_ago(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from triples.doors.rating import cluster as on_cluster
    from triples.doors.rating.rows import RateOptions
    from triples.doors.rating.seed_rows import rate_batch

    one, two = rate_batch(RateOptions("sum15", "high"), [1, 2])
    held = on_cluster.WorkerRows()
    ended = held.start_task("run-a")
    held.add(ended, one)
    held.end_task(ended)
    running = held.start_task("run-b")
    held.add(running, two)
    assert (held.finished("run-a"), held.finished("run-b"), held.finished("run-c")) == ([one], [two], [])
    monkeypatch.setattr(on_cluster, "ENDED_KEPT_FOR", 0.0)
    held.start_task("run-b")  # a task starting looks at what is held
    assert (held.finished("run-a"), held.finished("run-b")) == ([], [two])
    assert set(held.runs) == {"run-b"}
