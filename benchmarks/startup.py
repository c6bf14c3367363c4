"""How long the command takes to start, beside the interpreter's own start-up.

Runs each command --runs times (default 20) in turn, interleaved so that a busy moment of the
machine falls on all of them alike, and prints the median and the best wall time of each:
- `python -c pass`: the interpreter alone, the floor;
- `python -c "import triples"`: the package's import;
- `triples run` of a one-operation batch on stdin (`python -m triples run`);
- `triples` with no command, the same batch.
The goal: a one-operation batch within 120 ms, and `import triples` well below it. Then
`python -X importtime` of the batch lists the ten modules that cost the most (their own time).

    python benchmarks/startup.py [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

BATCH = b'[["new","g",1]]'
GOAL_MS = 120
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    'python -c "import triples"': [sys.executable, "-c", "import triples"],
    "triples run (one operation)": [sys.executable, "-m", "triples", "run"],
    "triples (no command)": [sys.executable, "-m", "triples"],
}


def wall_time(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, input=BATCH, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def costliest_imports(count: int) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "triples", "run"], input=BATCH, capture_output=True, check=True
    )
    rows = []
    for line in done.stderr.decode().splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = line.removeprefix("import time:").split("|")
        rows.append((int(own), name.strip()))
    return sorted(rows, reverse=True)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(args.runs):
        for name, command in COMMANDS.items():
            times[name].append(wall_time(command))
    floor = statistics.median(times["python -c pass"])
    print(f"start-up, {args.runs} runs each (load average {os.getloadavg()[0]:.1f}):")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:<30} median {1000 * median:6.1f} ms, best {1000 * min(values):6.1f} ms,"
            f" {1000 * (median - floor):+6.1f} ms over python -c pass"
        )
    print("costliest imports of `triples run` (own time, one run):")
    for own, name in costliest_imports(10):
        print(f"  {own / 1000:6.1f} ms  {name}")
    batch = statistics.median(times["triples run (one operation)"])
    met = batch * 1000 <= GOAL_MS
    print(f"goal: a one-operation batch within {GOAL_MS} ms: {'met' if met else 'NOT met'} ({1000 * batch:.0f} ms)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
