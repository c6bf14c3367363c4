"""``triples rate --scheduler local:2`` against ``--jobs 2``: what running on Dask costs on one machine.

    python benchmarks/rate_cluster.py                 # 20,000 classic seeds, each setting once
    python benchmarks/rate_cluster.py --repeat 3      # alternate 3 times, keep each one's fastest

Both are the real command in a subprocess writing CSV to a pipe; their rows are compared (all
but the per-run ``ms`` column) as a check that the cluster changed nothing. Two figures each:

- rating: the deals per second the command itself reports, timed from the first batch to the
  last row (the process pool's figure includes starting its workers, which fork in
  milliseconds; the cluster's starts once its workers are up). The target is at least 0.8x.
- end to end: seeds over the whole command's wall time, start-up included (a LocalCluster
  spawns its worker processes, which import Dask and triples afresh: seconds, not milliseconds).

The machine may be shared: the load average is printed before and after, and runs alternate so
that a busy spell hurts both settings alike.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

from common import load, rate_run_options

SPEED = re.compile(r"deals per second: (\d+\.\d) \((\d+) new deals in (\d+\.\d\d) s, ")
SETTINGS = {"--jobs 2": ["--jobs", "2"], "--scheduler local:2": ["--scheduler", "local:2"]}
TARGET = 0.8


def timed_run(variant: str, first: int, last: int, options: list[str]) -> tuple[float, float, list[str]]:
    """The rating's deals per second, the wall seconds of the command, and its rows without ms."""
    command = [sys.executable, "-m", "triples", "rate", "--variant", variant, "--seeds", f"{first}-{last}",
               "--format", "csv", *options]  # fmt: skip
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"rate {' '.join(options)} failed ({done.returncode}): {done.stderr.strip()}")
    match = SPEED.match(done.stderr.splitlines()[-1])
    if match is None:
        raise SystemExit(f"rate {' '.join(options)}: no speed line in {done.stderr!r}")
    rows = [",".join(line.split(",")[:6]) for line in done.stdout.splitlines()[1:]]
    return float(match[1]), seconds, rows


def main() -> int:
    args, first, last = rate_run_options(__doc__.splitlines()[0])
    best: dict[str, tuple[float, float]] = {}  # the fastest rating and the shortest wall time
    reference: list[str] | None = None
    for attempt in range(args.repeat):
        order = list(SETTINGS) if attempt % 2 == 0 else list(reversed(SETTINGS))
        for name in order:
            rate, seconds, rows = timed_run(args.variant, first, last, SETTINGS[name])
            print(f"  run {attempt + 1}, {name}: rating {rate:.1f} deals/s, {seconds:.2f} s end to end")
            if reference is None:
                reference = rows
            elif rows != reference:
                print("MISMATCH: the process pool and the cluster gave different rows", file=sys.stderr)
                return 1
            fastest_rate, shortest = best.get(name, (0.0, float("inf")))
            best[name] = (max(fastest_rate, rate), min(shortest, seconds))
    print(f"after: {load()}")
    for name, (rate, seconds) in best.items():
        print(
            f"{name:<20} rating {rate:8.1f} deals/s   end to end {args.seeds / seconds:8.1f} deals/s ({seconds:.2f} s)"
        )
    pool, cluster = best["--jobs 2"], best["--scheduler local:2"]
    ratio = cluster[0] / pool[0]
    verdict = "meets" if ratio >= TARGET else "misses"
    print(f"cluster / process pool, rating: {ratio:.2f}x ({verdict} the {TARGET}x target); rows identical")
    print(f"cluster / process pool, end to end (start-up included): {pool[1] / cluster[1]:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
