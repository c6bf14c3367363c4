"""Rule sets of one's own: the exact search on random rule sets, what ``triples sweep`` costs, and
the --difficulty rows it multiplies.

    python benchmarks/sweep.py                        # all three parts at the issue's size
    python benchmarks/sweep.py --part 1 --deals 30    # part 1 only, 30 seeds per rule set
    python benchmarks/sweep.py --part 2 --seeds 200   # part 2 on seeds 1-200
    python benchmarks/sweep.py --part 3 --before none  # part 3 on this package alone

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

Part 3: ``triples rate --difficulty --jobs 2`` on sum15 and classic over the same seeds (the
real command, its own speed line), with this package and, back to back, with the package as it
was at git commit ``--before`` (default: the last commit before the fair player's speed work;
``none`` skips it). A sweep with ``--difficulty`` rates each rule set this way, so these deals
per second are what such a sweep multiplies by its rule sets. The two packages alternate for
``--repeat`` rounds and each keeps its fastest. Required: at least 100 deals per second on each
variant (a timing: on a busy machine read the ratio to the package before), and the fair
player's win rate within half a point of the package before's (a count, not a timing).
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from common import load, package_at, verdict
from naive import naive_best

from triples.engines import search
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant

RULE_SETS = 20
DEALS = 100
SPEEDUP_REQUIRED = 10.0
OVERHEAD_ALLOWED = 0.10
SPEED = re.compile(r"deals per second: [0-9.]+ \(([0-9]+) new deals in ([0-9.]+) s")
FAIR_WINS = re.compile(r"win rate fair: [0-9.]+% \(([0-9]+)/([0-9]+)\)")
BEFORE_FAIR_SPEED_WORK = "a4ce669"
DIFFICULTY_GOAL = 100.0  # deals per second at --jobs 2
WIN_RATE_DRIFT = 0.5  # percentage points


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
        found.append(parse_variant(spec))
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


def command(*args: str, package: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``triples`` with ``args``; with ``package``, the ``triples`` in that folder instead of this one."""
    env, cwd = None, None
    if package is not None:  # run from the package's folder so that its ``triples`` is the one imported
        env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
        cwd = package
    done = subprocess.run(
        [sys.executable, "-m", "triples", *args], capture_output=True, text=True, check=False, env=env, cwd=cwd
    )
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


def difficulty_run(variant: str, seeds: int, jobs: int, package: Path | None) -> tuple[float, int, int]:
    """Deals per second of ``rate --difficulty`` and the fair player's wins out of its deals."""
    rated = command(
        "rate",
        "--variant",
        variant,
        "--seeds",
        f"1-{seeds}",
        "--difficulty",
        "--jobs",
        str(jobs),
        "--format",
        "csv",
        package=package,
    )
    deals, seconds = seconds_of(rated.stderr)
    found = FAIR_WINS.search(rated.stderr)
    assert found is not None, rated.stderr
    return deals / seconds, int(found[1]), int(found[2])


def part_3(seeds: int, jobs: int, before: str, repeat: int) -> list[str]:
    label = "" if before == "none" else f", alternating with the package at {before}"
    print(f"part 3: rate --difficulty on seeds 1-{seeds}, jobs {jobs}, this package{label}, {repeat} rounds; {load()}")
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        old = None if before == "none" else package_at(before, Path(folder))
        for variant in ("sum15", "classic"):
            # Rounds alternate which package goes first; each keeps its fastest (the machine's
            # speed wanders), and the wins must be the same in every round.
            runs: dict[Path | None, list[tuple[float, int, int]]] = {None: []} | ({} if old is None else {old: []})
            for round_ in range(repeat):
                for package in list(runs)[:: 1 if round_ % 2 == 0 else -1]:
                    runs[package].append(difficulty_run(variant, seeds, jobs, package))
            speed = max(run[0] for run in runs[None])
            _, wins, deals = runs[None][0]
            line = f"  {variant:<8} {speed:6.1f} deals/s, fair wins {wins}/{deals} ({100 * wins / deals:.2f}%)"
            if len({run[1:] for run in runs[None]}) > 1:
                failures.append(f"part 3: {variant}: the fair player's wins differ between rounds")
            if old is not None:
                old_speed = max(run[0] for run in runs[old])
                _, old_wins, old_deals = runs[old][0]
                drift = abs(100 * wins / deals - 100 * old_wins / old_deals)
                line += (
                    f"; before {old_speed:6.1f} deals/s, fair wins {old_wins}/{old_deals}"
                    f" ({100 * old_wins / old_deals:.2f}%); {speed / old_speed:.2f}x"
                )
                if drift > WIN_RATE_DRIFT:
                    failures.append(f"part 3: {variant}: the fair player's win rate moved {drift:.2f} points")
            print(line + " (fastest rounds)")
            if speed < DIFFICULTY_GOAL:
                failures.append(f"part 3: {variant}: {speed:.1f} deals/s, goal {DIFFICULTY_GOAL:.0f}")
    print(f"  after: {load()}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--part", type=int, choices=(1, 2, 3), action="append", help="run only this part (repeatable)")
    parser.add_argument("--deals", type=int, default=DEALS, help=f"part 1: seeds per rule set (default {DEALS})")
    parser.add_argument("--seeds", type=int, default=1000, help="parts 2 and 3: seeds 1..N (default 1000)")
    parser.add_argument("--jobs", type=int, default=2, help="parts 2 and 3: worker processes (default 2)")
    parser.add_argument(
        "--before",
        default=BEFORE_FAIR_SPEED_WORK,
        metavar="REF",
        help=f"part 3: also the package at this git commit (default {BEFORE_FAIR_SPEED_WORK}; none: skip)",
    )
    parser.add_argument(
        "--repeat", type=int, default=3, help="parts 2 and 3: rounds, alternating the order (default 3)"
    )
    args = parser.parse_args(argv)
    parts = args.part or [1, 2, 3]
    failures = (
        (part_1(args.deals) if 1 in parts else [])
        + (part_2(args.seeds, args.jobs, args.repeat) if 2 in parts else [])
        + (part_3(args.seeds, args.jobs, args.before, args.repeat) if 3 in parts else [])
    )
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
