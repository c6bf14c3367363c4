"""Interrupt ``triples rate`` again and again at random moments, resuming the same file each time,
and count what went wrong: rows lost, rows duplicated, worker processes left behind, and the
longest time from a signal to the command's exit.

    python benchmarks/rate_faults.py                       # 300 interrupts over every executor
    python benchmarks/rate_faults.py --interrupts 30       # quicker
    python benchmarks/rate_faults.py --executors jobs-1,jobs-2

Each interrupt starts the command on the file the previous runs left (so each run is also a
resume), waits for its first new row (for a share ``--at-start`` of the runs, not even that) and
then a random time (seeded: ``--seed``), sends SIGINT to its process group (as a
terminal's Ctrl-C does), SIGTERM or SIGHUP to the command alone, and then checks:

- rows lost: rows the command reported as kept (its ``deals:`` line) that are not in the file,
  plus rows the file held before the run that are gone; must be 0;
- rows duplicated: seeds in the file more than once; must be 0;
- wrong rows: rows that differ (timing aside) from an uninterrupted rating of the same seeds;
- orphans: processes below the command still running 2 s after it exited; must be 0;
- the exit status (128 + the signal) and the time from the signal to the exit.

The command is started as the ``triples`` script starts it (``triples.__main__``), so a signal
while it is still loading ends it with 128 + the signal like any other. One that lands even
earlier, in Python's own start-up, ends the process the default way (killed by the signal, or
a KeyboardInterrupt) with nothing rated yet: those are counted apart, the files still checked.

A run that exits before the signal (the range finished) starts a new file. The machine's load is
printed beside the figures: the exit times depend on it.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
from processes import descendants, left_running

from triples.doors.rating.rows import RateOptions, row_values
from triples.doors.rating.seed_rows import rate_batch

# As from a terminal: Ctrl-C and hang-up on, even when this runs in the background or under nohup.
COMMAND = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "signal.signal(signal.SIGHUP, signal.SIG_DFL); from triples.__main__ import main; sys.exit(main())"
)
EXECUTORS = {"jobs-1": ["--jobs", "1"], "jobs-2": ["--jobs", "2"], "local-2": ["--scheduler", "local:2"]}
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
VARIANT, LAST = "classic", 99_999
REFERENCE: dict[int, dict[str, Any]] = {}


def reference(seed: int) -> dict[str, Any]:
    if seed not in REFERENCE:
        batch = list(range(seed, seed + 500))
        for row in rate_batch(RateOptions(VARIANT, "high"), batch):
            REFERENCE[row.seed] = {k: v for k, v in row_values(row).items() if k != "ms"}
    return REFERENCE[seed]


def wait_for_growth(path: Path, lines: int, child: subprocess.Popen[str]) -> None:
    """Until the file has more rows than ``lines`` (or the command ended, or a minute passed)."""
    deadline = time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") > lines:
            return
        time.sleep(0.01)


def file_rows(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [orjson.loads(line) for line in path.read_text().splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interrupts", type=int, default=300, help="how many (default 300)")
    parser.add_argument("--executors", default=",".join(EXECUTORS), help="comma-separated, of " + ", ".join(EXECUTORS))
    parser.add_argument("--seed", type=int, default=20, help="of the random moments and choices (default 20)")
    parser.add_argument("--longest", type=float, default=1.5, help="latest moment after the start, in s (default 1.5)")
    parser.add_argument(
        "--at-start", type=float, default=0.2, help="share of signals timed from the start, not the first row"
    )
    parser.add_argument("--verbose", action="store_true", help="print each interrupt that went wrong")
    args = parser.parse_args()
    executors = args.executors.split(",")
    chosen = random.Random(args.seed)
    directory = Path(tempfile.mkdtemp(prefix="rate-faults-"))
    out, files = directory / "rows-0", 0
    survived = lost = duplicated = wrong = orphans = bad_status = early = failed = 0
    worst = 0.0
    worst_by: Counter[str] = Counter()
    started = time.monotonic()
    for number in range(args.interrupts):
        executor, signum = executors[number % len(executors)], chosen.choice(SIGNALS)
        before = {row["seed"] for row in file_rows(out)}
        command = [sys.executable, "-c", COMMAND, "rate", "--variant", VARIANT, "--seeds", f"0-{LAST}",
                   "--format", "jsonl", "--out", out.name, *EXECUTORS[executor]]  # fmt: skip
        child = subprocess.Popen(command, cwd=directory, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)  # fmt: skip
        if chosen.random() >= args.at_start:  # most signals land while seeds are being rated
            wait_for_growth(out, len(before), child)
        time.sleep(chosen.uniform(0.0, args.longest))
        workers = descendants(child.pid)
        if child.poll() is not None:  # it ended on its own before the signal
            _, err = child.communicate()
            if child.returncode != 0:
                failed += 1
                print(
                    f"  {executor}: ended before the signal, exit {child.returncode}: {err.strip().splitlines()[-3:]}"
                )
            files += 1
            out = directory / f"rows-{files}"
            continue
        if signum == signal.SIGINT:
            os.killpg(child.pid, signum)
        else:
            os.kill(child.pid, signum)
        sent = time.monotonic()
        _, err = child.communicate()
        took = time.monotonic() - sent
        worst = max(worst, took)
        worst_by[executor] = max(worst_by[executor], round(took, 2))
        orphans += len(left_running(workers, 2.0))
        if child.returncode == 0:  # the range was done before the signal: a new file
            files += 1
            out = directory / f"rows-{files}"
            continue
        bad_status += child.returncode not in (128 + signum, -signum)
        rows = file_rows(out)
        seeds = [row["seed"] for row in rows]
        duplicated += len(seeds) - len(set(seeds))
        lost += len(before - set(seeds))
        kept = next((int(line.split()[1]) for line in err.splitlines() if line.startswith("deals: ")), None)
        if kept is not None:
            lost += max(0, kept - len(set(seeds)))
        wrong += sum({k: v for k, v in row.items() if k != "ms"} != reference(row["seed"]) for row in rows)
        if child.returncode == -signum:  # Python's default action: the command's code had not begun
            early += 1
            continue
        ok = child.returncode == 128 + signum and "Traceback" not in err
        survived += ok
        if not ok and args.verbose:
            print(f"  {executor} {signum.name}: exit {child.returncode}: {err.strip().splitlines()[-6:]}")
    one, five, _ = os.getloadavg()
    print(f"interrupts: {args.interrupts} over {', '.join(executors)} in {time.monotonic() - started:.0f} s "
          f"(load average {one:.1f}, {five:.1f}; {os.cpu_count()} cores)")  # fmt: skip
    print(f"interrupts survived: {survived} (exit status 128 + the signal, no traceback)")
    print(f"signals before the command began (Python's own exit, nothing rated yet): {early}")
    print(f"rows lost: {lost}")
    print(f"rows duplicated: {duplicated}")
    print(f"rows unlike an uninterrupted run: {wrong}")
    print(f"orphan processes: {orphans}")
    print(f"unexpected exit statuses: {bad_status}; runs that failed before the signal: {failed}")
    print(f"worst time to exit: {worst:.2f} s ({', '.join(f'{k} {v:.2f} s' for k, v in sorted(worst_by.items()))})")
    return 0 if lost == duplicated == wrong == orphans == bad_status == failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
