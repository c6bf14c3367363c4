"""How much faster ``triples rate --jobs 2`` is than ``--jobs 1`` (the target is at least 1.8x).

    python benchmarks/rate_jobs.py                  # 20,000 classic seeds
    python benchmarks/rate_jobs.py --seeds 2000     # shorter

Both runs are the real command in a subprocess, start-up included, writing CSV to a pipe; the
rows of the two runs are compared (all but ``ms``) as a check that the speed-up changed
nothing. Each run also reports the cores it got (the CPU time of the command and its workers
over the wall time): a ``--jobs 2`` run that got clearly fewer than 2 shared the machine, and
its ratio is noisy. For that case it also prints the CPU time per deal of each setting and
the speed-up two whole cores would give at most (2 x the ratio of CPU per deal; the parent's
own work and the workers' start-up count in the --jobs 2 figure). ``--repeat N`` alternates
the runs N times and keeps each one's fastest.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time

from common import load, rate_run_options


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # waited-for descendants: the workers too
    return usage.ru_utime + usage.ru_stime


def timed_run(variant: str, first: int, last: int, jobs: int) -> tuple[float, float, list[str]]:
    """Wall seconds, cores used on average, and the rows without their ms column."""
    command = [sys.executable, "-m", "triples", "rate", "--variant", variant, "--seeds", f"{first}-{last}",
               "--format", "csv", "--jobs", str(jobs)]  # fmt: skip
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds, cpu = time.perf_counter() - start, children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"rate --jobs {jobs} failed ({done.returncode}): {done.stderr.strip()}")
    header, *lines = done.stdout.splitlines()
    timing = header.split(",").index("ms")  # found by name: opt-in columns may follow it
    rows = [",".join(cell for i, cell in enumerate(line.split(",")) if i != timing) for line in lines]
    return seconds, cpu / seconds, rows


def main() -> int:
    args, first, last = rate_run_options(__doc__.splitlines()[0])
    fastest: dict[int, tuple[float, float]] = {}
    cpu_seconds = {1: 0.0, 2: 0.0}
    reference: list[str] | None = None
    for attempt in range(args.repeat):
        for jobs in (1, 2) if attempt % 2 == 0 else (2, 1):
            seconds, cores, rows = timed_run(args.variant, first, last, jobs)
            print(f"  run {attempt + 1}, --jobs {jobs}: {seconds:.2f} s, {cores:.2f} cores busy")
            if reference is None:
                reference = rows
            elif rows != reference:
                print("MISMATCH: --jobs 1 and --jobs 2 gave different rows", file=sys.stderr)
                return 1
            cpu_seconds[jobs] += seconds * cores
            if jobs not in fastest or seconds < fastest[jobs][0]:
                fastest[jobs] = (seconds, cores)
    print(f"after: {load()}")
    for jobs, (seconds, cores) in sorted(fastest.items()):
        print(f"--jobs {jobs}: {seconds:8.2f} s  {args.seeds / seconds:8.1f} deals/s  ({cores:.2f} cores busy)")
    ratio = fastest[1][0] / fastest[2][0]
    verdict = "meets" if ratio >= 1.8 else "misses"
    print(f"speed-up --jobs 2 over --jobs 1: {ratio:.2f}x ({verdict} the 1.8x target); rows identical")
    per_deal = {jobs: 1000 * cpu / (args.repeat * args.seeds) for jobs, cpu in cpu_seconds.items()}
    print(f"CPU per deal: --jobs 1 {per_deal[1]:.3f} ms, --jobs 2 {per_deal[2]:.3f} ms; "
          f"two whole cores would give up to {2 * per_deal[1] / per_deal[2]:.2f}x")  # fmt: skip
    if fastest[2][1] < 1.8:
        print("noisy: the --jobs 2 run did not get two whole cores; the machine was shared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
