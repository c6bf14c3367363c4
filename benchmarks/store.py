"""The ratings store: pick, calendar and rate answered from a store of rated seeds, against the
same commands rating from scratch, and the store's size per row.

    python benchmarks/store.py                                   # pairs, 100,000 seeds, --jobs 2
    python benchmarks/store.py --variant classic --rows 3000     # a variant with every band
    python benchmarks/store.py --rows 2000                       # a short run

Every step is a real ``triples`` process (as a designer runs it), timed by wall clock and by
the CPU time of the process and its workers. First ``triples rate --difficulty --db`` rates
seeds 1..N into a new store (rating from scratch: the baseline of the ``rate`` line), then:

- ``rate`` of the same seeds again, every row now a lookup;
- ``pick --count C`` of the variant's rarest band in the pattern, without a store and then
  from the store;
- ``calendar`` of a quarter (91 days from a Monday) by a weekly pattern, without a store (in
  memory: rated from scratch) and from a copy of the store whose calendar is still empty.

Ratios are from-scratch time over from-store time (wall clock). The size per row is the store
file's size over the rows it holds (after the last writer closed it, so the log is folded in).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

WEEK = {
    "pairs": "easy,easy,easy,easy,easy,easy,easy",  # every pairs deal is easy
}
DEFAULT_WEEK = "easy,easy,medium,easy,medium,easy,hard"
QUARTER = 91
MONDAY = "2026-01-05"


def timed(args: list[str], cwd: Path) -> tuple[float, float]:
    """Run ``triples ARGS`` to the end; (wall seconds, CPU seconds of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "triples", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        check=False,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"triples {' '.join(args)} failed ({done.returncode}): {done.stderr.decode().strip()}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def stored_rows(db: Path) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute("SELECT count(*) FROM rows").fetchone()[0])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="pairs")
    parser.add_argument("--rows", type=int, default=100_000, help="seeds 1..N rated into the store")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--count", type=int, default=20, help="deals pick asks for")
    args = parser.parse_args(argv)
    week = WEEK.get(args.variant, DEFAULT_WEEK)
    band = "hard" if "hard" in week else "easy"
    seeds = f"1-{args.rows}"
    jobs = ["--jobs", args.jobs]
    variant = ["--variant", args.variant]
    quarter = ["calendar", *variant, "--start", MONDAY, "--days", str(QUARTER), "--pattern", week, "--seeds", seeds]
    pick = ["pick", *variant, "--band", band, "--count", str(args.count), "--seeds", seeds]
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        db = where / "store.db"
        print(f"variant {args.variant}, seeds {seeds}, --jobs {args.jobs}; pattern {week}; pick --band {band}")
        build = timed(["rate", *variant, "--difficulty", "--seeds", seeds, "--db", str(db), *jobs], where)
        size = db.stat().st_size
        rows = stored_rows(db)
        lines = [("rate --difficulty, from scratch (fills the store)", build, None)]
        again = timed(["rate", *variant, "--difficulty", "--seeds", seeds, "--db", str(db), *jobs], where)
        lines.append(("rate --difficulty, from the store", again, build[0] / again[0]))
        pick_scratch = timed([*pick, *jobs], where)
        lines.append((f"pick --count {args.count}, from scratch", pick_scratch, None))
        pick_stored = timed([*pick, "--db", str(db), *jobs], where)
        lines.append((f"pick --count {args.count}, from the store", pick_stored, pick_scratch[0] / pick_stored[0]))
        calendar_scratch = timed([*quarter, *jobs], where)
        lines.append((f"calendar --days {QUARTER}, from scratch", calendar_scratch, None))
        fresh = where / "season.db"
        shutil.copy(db, fresh)
        calendar_stored = timed([*quarter, "--db", str(fresh), *jobs], where)
        lines.append(
            (f"calendar --days {QUARTER}, from the store", calendar_stored, calendar_scratch[0] / calendar_stored[0])
        )
        print(f"{'step':<52} {'wall s':>8} {'cpu s':>8} {'ratio':>8}")
        for name, (wall, cpu), ratio in lines:
            print(f"{name:<52} {wall:8.2f} {cpu:8.2f} {'' if ratio is None else f'{ratio:7.1f}x':>8}")
        print(f"store: {rows:,} rows in {size:,} bytes: {size / rows:.0f} bytes per row")
    return 0


if __name__ == "__main__":
    sys.exit(main())
