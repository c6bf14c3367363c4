"""Rule sets of one's own: the exact search on random rule sets, and what ``triples sweep`` costs.

    python benchmarks/sweep.py                       # both parts at the issue's size
    python benchmarks/sweep.py --part 1 --deals 30   # part 1 only, 30 seeds per rule set
    python benchmarks/sweep.py --part 2 --seeds 200  # part 2 on seeds 1-200

Part 1: ``search.analyse`` against a naive memoised search (benchmarks/naive.py: every slot combination of the table,
memoised on the stock position and the sorted table values, no bounds) on 20 random rule sets
(half standard decks, half numeric; 2 to 4 suits; k from 2 to 5; 7 to 12 slots) x 100 seeds. Both run on each
deal back to back, so machine noise hits them alike. Required: agreement on every deal, ours at
least 10x faster in total.

Part 2: ``triples sweep --variant classic --vary target=18..22 --vary slots=9..11`` against
``triples rate`` on each of the same 15 rule sets, over the same seeds, all in this run, each
the real command in a subprocess at ``--jobs 2``. The times compared are the ones each command
prints in its speed line (the rating, not Python's start-up). Required: the sweep's numbers
equal rate's for every rule set, and the sweep's overhead under 10% (its time over the sum of
rate's). The two alternate for ``--repeat`` rounds and each keeps its fastest, since on a
shared machine one round's ratio is noisy.
"""

from __future__ import annotations

import argparse
import csv
import random
import re
import subprocess
import sys
import time
from collections.abc import Sequence

from common import verdict
from naive import naive_best

from triples import search
from triples.config import Variant
from triples.shuffle import shuffled
from triples.table import Table
from triples.variants import variant_from

RULE_SETS = 20
DEALS = 100
SPEEDUP_REQUIRED = 10.0
OVERHEAD_ALLOWED = 0.10
SPEED = re.compile(r"deals per second: [0-9.]+ \(([0-9]+) new deals in ([0-9.]+) s")


def random_rule_sets(count: int, rng: random.Random) -> list[Variant]:
    """Half standard, half numeric; the target near k times the deck's mean card, so that moves
    exist but do not always exist."""
    found: list[Variant] = []
    while len(found) < count:
        k = rng.randint(2, 5)
        spec: dict[str, object] = {"per_move": k, "slots": rng.randint(max(k + 3, 7), 12), "suits": rng.randint(2, 4)}
        if len(found) % 2:
            top = rng.randint(5, 13)
            spec |= {"deck": "numeric", "top_rank": top}
            mean = (top + 1) / 2
        else:
            court = rng.choice([[10, 10, 10], [11, 12, 13], [5, 10, 15]])
            spec |= {"court": court}
            mean = (55 + sum(court)) / 13
        spec["target"] = max(1, round(k * mean) + rng.randint(-3, 3))
        found.append(variant_from(spec))
    return found


def part_1(deals: int) -> list[str]:
    print(f"part 1: best vs the naive memoised search, {RULE_SETS} random rule sets x {deals} seeds")
    ours_total = naive_total = 0.0
    agree = total = 0
    for variant in random_rule_sets(RULE_SETS, random.Random(22)):
        search.analyse(Table(variant, shuffled(variant.cards, 0)))  # per-variant tables, built once
        ours = naive = 0.0
        agreed = 0
        for seed in range(1, deals + 1):
            table = Table(variant, shuffled(variant.cards, seed))
            start = time.perf_counter()
            best = search.analyse(table).best
            middle = time.perf_counter()
            expected, _ = naive_best(table)
            naive += time.perf_counter() - middle
            ours += middle - start
            agreed += best == expected
        print(f"  {variant.name:<72} {agreed:>4}/{deals} agree   ours {ours:7.3f} s   naive {naive:7.3f} s")
        ours_total, naive_total, agree, total = ours_total + ours, naive_total + naive, agree + agreed, total + deals
    ratio = naive_total / ours_total if ours_total else float("inf")
    print(f"  total: agreement {agree}/{total}, ours {ours_total:.3f} s, naive {naive_total:.3f} s, {ratio:.1f}x")
    failures = [] if agree == total else [f"part 1: agreement {agree}/{total}, need all"]
    if ratio < SPEEDUP_REQUIRED:
        failures.append(f"part 1: ours {ratio:.1f}x faster than naive, need {SPEEDUP_REQUIRED:.0f}x")
    return failures


def command(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "triples", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:3])} failed ({done.returncode}): {done.stderr.strip()}")
    return done


def seconds_of(report: str) -> tuple[int, float]:
    found = SPEED.search(report)
    assert found is not None, report
    return int(found[1]), float(found[2])


def timed_sweep(common: list[str]) -> tuple[int, float, list[dict[str, str]]]:
    swept = command("sweep", "--variant", "classic", "--vary", "target=18..22", "--vary", "slots=9..11", *common)
    deals, seconds = seconds_of(swept.stderr)
    return deals, seconds, list(csv.DictReader(swept.stdout.splitlines()))


def timed_rates(rows: list[dict[str, str]], common: list[str]) -> tuple[int, float, list[str]]:
    """rate on each rule set of the sweep's rows: deals, seconds, and the rule sets whose
    summary differs from the sweep's row."""
    total_deals, total_seconds, differ = 0, 0.0, []
    for row in rows:
        rated = command("rate", "--variant", row["variant"], *common)
        deals, seconds = seconds_of(rated.stderr)
        total_deals, total_seconds = total_deals + deals, total_seconds + seconds
        wins = int(row["best_wins"])
        expected = [
            f"mean best: {float(row['mean_best']):.3f}",
            f"win rate best: {100 * wins / int(row['deals']):.2f}%",
        ]
        if not all(line in rated.stderr for line in expected):
            differ.append(row["variant"])
    return total_deals, total_seconds, differ


def part_2(seeds: int, jobs: int, repeat: int) -> list[str]:
    print(f"part 2: sweep classic target 18..22 x slots 9..11 vs rate on each rule set, seeds 1-{seeds}, jobs {jobs}")
    common = ["--seeds", f"1-{seeds}", "--jobs", str(jobs), "--format", "csv"]
    sweep_times, rate_times = [], []
    differ: list[str] = []
    for round_ in range(repeat):
        # Alternate which goes first, so that a change in the machine's load hits both alike.
        if round_ % 2 == 0:
            sweep_deals, seconds, rows = timed_sweep(common)
            sweep_times.append(seconds)
            rate_deals, seconds, differ = timed_rates(rows, common)
            rate_times.append(seconds)
        else:
            rate_deals, seconds, differ = timed_rates(rows, common)
            rate_times.append(seconds)
            sweep_deals, seconds, rows = timed_sweep(common)
            sweep_times.append(seconds)
        print(f"  round {round_ + 1}: sweep {sweep_times[-1]:.2f} s, rate {rate_times[-1]:.2f} s")
    sweep_seconds, rate_seconds = min(sweep_times), min(rate_times)
    overhead = sweep_seconds / rate_seconds - 1
    print(f"  sweep: {sweep_deals} deals in {sweep_seconds:.2f} s, {sweep_deals / sweep_seconds:.1f} deals/s, fastest")
    print(f"  rate:  {rate_deals} deals in {rate_seconds:.2f} s, {rate_deals / rate_seconds:.1f} deals/s, fastest")
    print(f"  the sweep's overhead: {100 * overhead:+.1f}%")
    failures = [f"part 2: {name}: the sweep's row differs from rate's summary" for name in differ]
    if overhead >= OVERHEAD_ALLOWED:
        failures.append(f"part 2: overhead {100 * overhead:.1f}%, need under {100 * OVERHEAD_ALLOWED:.0f}%")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", type=int, choices=(1, 2), action="append", help="run only this part (repeatable)")
    parser.add_argument("--deals", type=int, default=DEALS, help=f"part 1: seeds per rule set (default {DEALS})")
    parser.add_argument("--seeds", type=int, default=1000, help="part 2: seeds 1..N (default 1000)")
    parser.add_argument("--jobs", type=int, default=2, help="part 2: worker processes (default 2)")
    parser.add_argument("--repeat", type=int, default=3, help="part 2: rounds, alternating the order (default 3)")
    args = parser.parse_args(argv)
    parts = args.part or [1, 2]
    failures = (part_1(args.deals) if 1 in parts else []) + (
        part_2(args.seeds, args.jobs, args.repeat) if 2 in parts else []
    )
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
