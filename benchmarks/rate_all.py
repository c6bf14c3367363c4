"""Rate every variant over a range of seeds and print the README's Results table (Markdown).

    python benchmarks/rate_all.py                       # 1..100,000 (grid100: 1..10,000)
    python benchmarks/rate_all.py --seeds 1000 --grid100-seeds 100   # a short run
    python benchmarks/rate_all.py --readme README.md    # also write it into README's Results

The table goes to stdout; each variant's wall time goes to stderr, with the cores it kept busy
on average (fewer than --jobs means the machine was shared and the times are noisy). Rows are
computed exactly as ``triples rate`` computes them (same code, same process pool).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

from triples.config import VARIANTS, variant_named
from triples.rate import Summary, batch_size_for, percent, rate_seeds, wilson_interval


def cpu_seconds() -> float:
    """This process's CPU time and its finished workers' (each variant's pool is joined)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def rate_cell(successes: int, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{percent(successes / trials)} [{percent(low)}, {percent(high)}]"


START, END = "<!-- rate_all:start -->", "<!-- rate_all:end -->"


def write_into_readme(path: Path, table: str) -> None:
    """Replace what stands between the README's two markers with the table."""
    text = path.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{path}: no {START} ... {END} markers to write the table between")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    path.write_text(f"{before}{START}\n{table}{END}{after}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100_000, help="seeds 1..N of each variant (default 100000)")
    parser.add_argument("--grid100-seeds", type=int, default=10_000, help="seeds 1..N of grid100 (default 10000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--strategy", default="high")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated (default: all)")
    parser.add_argument("--readme", type=Path, help="also write the table into this README's Results section")
    args = parser.parse_args()

    summaries: list[tuple[Summary, float]] = []
    started = time.perf_counter()
    for name in args.variants.split(","):
        variant = variant_named(name)
        count = args.grid100_seeds if name == "grid100" else args.seeds
        summary = Summary(variant, args.strategy)
        cpu, start = cpu_seconds(), time.perf_counter()
        seeds = range(1, count + 1)
        for rows in rate_seeds(variant, args.strategy, seeds, args.jobs, batch_size_for(count, args.jobs)):
            for row in rows:
                summary.add(row)
        seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        summaries.append((summary, seconds))
        print(f"{name}: {count} deals in {seconds:.1f} s ({count / seconds:.1f} deals/s, "
              f"{cpu / seconds:.2f} cores busy)", file=sys.stderr)  # fmt: skip
    total = time.perf_counter() - started
    print(f"total wall time: {total:.1f} s with --jobs {args.jobs}", file=sys.stderr)

    strategy = args.strategy
    lines = [
        f"| variant | deals | mean best | mean autoplay ({strategy}) | won with best play (95% CI) "
        f"| won by {strategy} (95% CI) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for summary, _ in summaries:
        lines.append(
            f"| {summary.variant.name} | {summary.deals:,} | {summary.mean_best:.2f} | {summary.mean_autoplay:.2f} "
            f"| {rate_cell(summary.best_wins, summary.deals)} | {rate_cell(summary.strategy_wins, summary.deals)} |"
        )
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if args.readme is not None:
        write_into_readme(args.readme, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
