"""How much faster ``triples rate --jobs 2`` is than ``--jobs 1`` (the target is at least 1.8x).

    python benchmarks/rate_jobs.py                  # 20,000 classic seeds
    python benchmarks/rate_jobs.py --seeds 2000     # shorter

Both runs are the real command in a subprocess, start-up included, writing CSV to a pipe; the
rows of the two runs are compared (all but ``ms``) as a check that the speed-up changed
nothing. The load average is printed before and after: on a shared machine, a load above
about 0.5 before the first run means the ratio is noisy.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time


def timed_run(variant: str, first: int, last: int, jobs: int) -> tuple[float, list[str]]:
    command = [sys.executable, "-m", "triples", "rate", "--variant", variant, "--seeds", f"{first}-{last}",
               "--format", "csv", "--jobs", str(jobs)]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"rate --jobs {jobs} failed ({done.returncode}): {done.stderr.strip()}")
    rows = [line.rsplit(",", 1)[0] for line in done.stdout.splitlines()[1:]]
    return seconds, rows


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20_000, help="how many seeds (default 20000)")
    parser.add_argument("--first", type=int, default=1, help="first seed (default 1)")
    parser.add_argument("--variant", default="classic")
    args = parser.parse_args()
    first, last = args.first, args.first + args.seeds - 1

    print(f"{args.variant} seeds {first}-{last} on {os.cpu_count()} cores; before: {load()}")
    one_seconds, one_rows = timed_run(args.variant, first, last, 1)
    two_seconds, two_rows = timed_run(args.variant, first, last, 2)
    print(f"after: {load()}")
    if one_rows != two_rows:
        print("MISMATCH: --jobs 1 and --jobs 2 gave different rows", file=sys.stderr)
        return 1
    for jobs, seconds in ((1, one_seconds), (2, two_seconds)):
        print(f"--jobs {jobs}: {seconds:8.2f} s  {args.seeds / seconds:8.1f} deals/s")
    ratio = one_seconds / two_seconds
    verdict = "meets" if ratio >= 1.8 else "misses"
    print(f"speed-up --jobs 2 over --jobs 1: {ratio:.2f}x ({verdict} the 1.8x target); rows identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
