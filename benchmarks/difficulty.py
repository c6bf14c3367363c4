"""p_random against best: the random player's exact chance and the exact search, same deals.

    python benchmarks/difficulty.py               # seeds 1..500 per variant, Fractions on 1..50
    python benchmarks/difficulty.py --seeds 50    # a short run
    python benchmarks/difficulty.py --bands 100   # deals per band instead (plays fair: slow)
    python benchmarks/difficulty.py --variant grid --seeds 100   # one variant
    python benchmarks/difficulty.py --rows 1000 --jobs 2 --variant sum15   # rate's --difficulty rows

With --rows N it measures what ``triples rate --difficulty`` computes per deal instead (the
row's best and high, then fair, p_random and the band) over seeds 1..N on ``--jobs`` worker
processes, and prints deals per second and the fair player's win rate.

For each deal it times ``search.analyse`` (the baseline), then ``difficulty.p_random`` twice
(warm and cold: the two were apart while a memo of empty-stock states was kept between calls;
now each call has its own, so that no answer or state count depends on what came before, and
the two differ by noise only), then ``exhaustive_best`` below:
the exact best over the same state space as p_random (stock position and value counts, value
combinations) without bounds or incumbents, which must visit every state as p_random does. All
run back to back on each deal, so that machine noise hits them alike. Ratios are total times
over best's total time. On the first ``--exact`` seeds it also computes ``p_random_exact``
(Fractions) and reports the largest difference from the float result and the Fractions' time.
grid100 is measured apart: its fully dealt table is refused (TooManyStates) and the time to
refuse is printed.

Exit status 1 when a float result differs from its Fraction by more than 1e-12, or the
exhaustive best from search's; with --bands, when a strategy clears more than ``best``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from triples.engines import difficulty, search
from triples.model import rules
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variants import parse_variant

VARIANTS = ("classic", "pairs", "quads", "sum15", "grid")
TOLERANCE = 1e-12


def exhaustive_best(table: Table) -> tuple[int, int]:
    """The exact best with no bound: every value combination of every state, memoised on
    (stock position, value counts); (best, states)."""
    variant = table.variant
    k, target, top, deck = variant.per_move, variant.target, variant.max_value, table.deck_values
    memo: dict[tuple[int, tuple[int, ...]], int] = {}

    def gain(p: int, counts: list[int]) -> int:
        key = (p, tuple(counts))
        found = memo.get(key)
        if found is not None:
            return found
        found = 0
        refill = deck[p : p + k]
        for combo in rules.value_combos(counts, k, target):
            for v in combo:
                counts[v] -= 1
            for w in refill:
                counts[w] += 1
            found = max(found, k + gain(p + len(refill), counts))
            for w in refill:
                counts[w] -= 1
            for v in combo:
                counts[v] += 1
        memo[key] = found
        return found

    return table.cleared + gain(table.next_card, rules.histogram(table.values, top)), len(memo)


@dataclass
class Tally:
    best_ms: list[float] = field(default_factory=list)
    warm_ms: list[float] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)
    exact_ms: list[float] = field(default_factory=list)
    exhaustive_ms: list[float] = field(default_factory=list)
    exhaustive_states: int = 0
    best_states: int = 0
    random_states: list[int] = field(default_factory=list)
    chances: list[float] = field(default_factory=list)
    worst_difference: float = 0.0
    agree: bool = True


def percentile(ordered: Sequence[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def spread(ms: list[float]) -> str:
    ordered = sorted(ms)
    return f"p50 {percentile(ordered, 0.5):7.3f}  p99 {percentile(ordered, 0.99):7.3f}  max {ordered[-1]:7.3f} ms"


def timed_ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def measure(name: str, seeds: int, exact_seeds: int) -> Tally:
    variant = parse_variant(name)
    tally = Tally()
    warm = seeded(variant, 0)
    difficulty.p_random(warm, search.best_cleared(warm))  # per-variant tables, built once
    for seed in range(1, seeds + 1):
        table = seeded(variant, seed)
        start = time.perf_counter()
        result = search.analyse(table)
        tally.best_ms.append(timed_ms(start))
        tally.best_states += result.states
        start = time.perf_counter()
        chance = difficulty.p_random(table, result.best)
        tally.warm_ms.append(timed_ms(start))
        tally.chances.append(chance)
        # Every call starts from an empty memo of its own: the state count is a cold run's.
        start = time.perf_counter()
        states = difficulty.random_states(table, result.best)
        tally.cold_ms.append(timed_ms(start))
        tally.random_states.append(states)
        start = time.perf_counter()
        exhaustive, explored = exhaustive_best(table)
        tally.exhaustive_ms.append(timed_ms(start))
        tally.exhaustive_states += explored
        tally.agree &= exhaustive == result.best
        if seed <= exact_seeds:
            start = time.perf_counter()
            exact = difficulty.p_random_exact(table, result.best)
            tally.exact_ms.append(timed_ms(start))
            tally.worst_difference = max(tally.worst_difference, abs(float(exact) - chance))
    return tally


def report(name: str, seeds: int, exact_seeds: int, tally: Tally) -> bool:
    best_s, warm_s, cold_s, exhaustive_s = (
        sum(ms) / 1000 for ms in (tally.best_ms, tally.warm_ms, tally.cold_ms, tally.exhaustive_ms)
    )
    ones = sum(1 for p in tally.chances if p == 1.0)
    zeros = sum(1 for p in tally.chances if p == 0.0)
    print(f"{name}: seeds 1..{seeds}")
    print(f"  best            total {best_s:8.3f} s   {spread(tally.best_ms)}   states {tally.best_states}")
    print(f"  p_random warm   total {warm_s:8.3f} s   {spread(tally.warm_ms)}   ratio {warm_s / best_s:6.1f}x")
    print(
        f"  p_random cold   total {cold_s:8.3f} s   {spread(tally.cold_ms)}   ratio {cold_s / best_s:6.1f}x"
        f"   states {sum(tally.random_states)} (max {max(tally.random_states)})"
    )
    print(
        f"  exhaustive best total {exhaustive_s:8.3f} s   {spread(tally.exhaustive_ms)}   ratio"
        f" {exhaustive_s / best_s:6.1f}x   states {tally.exhaustive_states}"
        f"   agrees with best: {'yes' if tally.agree else 'NO'}"
    )
    print(
        f"  p_random mean {statistics.fmean(tally.chances):.4f}  median {statistics.median(tally.chances):.4f}"
        f"  min {min(tally.chances):.3g}  p = 1 on {ones}, p = 0 on {zeros}"
    )
    exact_s = sum(tally.exact_ms) / 1000
    agree = tally.worst_difference <= TOLERANCE
    print(
        f"  Fractions on seeds 1..{exact_seeds}: total {exact_s:.3f} s, largest |float - exact| "
        f"{tally.worst_difference:.3g} ({'ok' if agree else 'FAILED'})"
    )
    return agree and tally.agree


def grid100_refusal() -> None:
    variant = parse_variant("grid100")
    table = seeded(variant, 1)
    start = time.perf_counter()
    try:
        difficulty.p_random(table, 99)
        print("grid100: p_random finished (unexpected)")
    except difficulty.TooManyStates as refused:
        print(f"grid100 seed 1: refused in {timed_ms(start) / 1000:.2f} s: {refused}")


def band_census(names: Sequence[str], seeds: int) -> bool:
    """How many deals fall in each band, with the random player's mean chance per band. Slow:
    the fair strategy plays every deal (about 0.1 to 1 s a deal; grid100 is left out). A deal
    where a strategy beats ``best`` (a defect in one of them) is listed, not banded."""
    consistent = True
    for name in names:
        variant = parse_variant(name)
        by_band: dict[str, list[float]] = {band: [] for band in difficulty.BANDS}
        beaten: list[str] = []
        start = time.perf_counter()
        for seed in range(1, seeds + 1):
            try:
                measured = difficulty.assess(seeded(variant, seed))
            except ValueError as defect:
                beaten.append(f"seed {seed}: {defect}")
                continue
            assert measured.p_random is not None
            by_band[measured.band].append(measured.p_random)
        parts = [
            f"{band} {len(chances)} (p_random mean {statistics.fmean(chances):.3f})" if chances else f"{band} 0"
            for band, chances in by_band.items()
        ]
        print(f"bands {name} seeds 1..{seeds}: {', '.join(parts)}   {time.perf_counter() - start:.1f} s")
        for line in beaten:
            print(f"  NOT BANDED, {line}")
        consistent &= not beaten
    return consistent


def difficulty_rows(name: str, seeds: list[int]) -> tuple[list[tuple[int, int]], float]:
    """(fair cleared, deck size) per seed, and the CPU seconds they took: one worker's share
    of ``rows_per_second``."""
    from triples.doors.rating import rows as columns
    from triples.doors.rating.seed_rows import ANALYSES, rate_seed, with_analyses
    from triples.engines.strategies import strategy_named

    cpu = time.process_time()
    variant = parse_variant(name)
    analyses = [(column, ANALYSES[column]) for column in columns.DIFFICULTY_COLUMNS]
    out = []
    for seed in seeds:
        row = with_analyses(variant, rate_seed(variant, strategy_named("high"), seed), analyses)
        fair = row.extra[columns.FAIR]
        assert isinstance(fair, int)
        out.append((fair, variant.deck_size))
    return out, time.process_time() - cpu


def rows_per_second(names: Sequence[str], rows: int, jobs: int) -> None:
    """Deals per second of rate's --difficulty columns on ``jobs`` processes, seeds 1..rows, in
    batches of 25 as a pool hands them out, and the fair player's win rate. Beside the wall
    time, the CPU time the workers spent on the rows: on a busy machine deals per CPU second
    times ``jobs`` is what idle cores would give (less the pool's own cost)."""
    from concurrent.futures import ProcessPoolExecutor

    for name in names:
        batches = [list(range(start, min(start + 25, rows + 1))) for start in range(1, rows + 1, 25)]
        start = time.perf_counter()
        with ProcessPoolExecutor(jobs) as pool:
            shares = list(pool.map(difficulty_rows, [name] * len(batches), batches))
        elapsed = time.perf_counter() - start
        done = [pair for batch, _ in shares for pair in batch]
        cpu = sum(seconds for _, seconds in shares)
        won = sum(1 for fair, size in done if fair == size)
        print(
            f"{name}: --difficulty rows of seeds 1..{rows} on {jobs} processes: {rows / elapsed:.1f} deals/s"
            f" ({elapsed:.1f} s), {rows / cpu:.1f} deals per CPU second ({cpu:.1f} s of CPU),"
            f" fair wins {won}/{rows} ({100 * won / rows:.2f}%)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=500, help="seeds 1..N per variant (default 500)")
    parser.add_argument("--exact", type=int, default=50, help="compare with Fractions on seeds 1..N (default 50)")
    parser.add_argument("--no-grid100", action="store_true", help="skip the grid100 refusal (some 3 s)")
    parser.add_argument("--bands", type=int, default=0, help="only count the bands of seeds 1..N (slow)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only this variant (repeatable)")
    parser.add_argument("--rows", type=int, default=0, help="only time rate's --difficulty rows of seeds 1..N")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes for --rows (default 2)")
    args = parser.parse_args(argv)
    names = args.variant or VARIANTS
    if args.rows:
        rows_per_second(names, args.rows, args.jobs)
        return 0
    if args.bands:
        return 0 if band_census(names, args.bands) else 1
    ok = True
    for name in names:
        ok &= report(name, args.seeds, min(args.exact, args.seeds), measure(name, args.seeds, args.exact))
    if not args.no_grid100:
        grid100_refusal()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
