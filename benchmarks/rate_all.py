"""Rate every variant over a range of seeds and print the Results tables (Markdown).

    python benchmarks/rate_all.py                       # 1..100,000 (grid100: 1..10,000)
    python benchmarks/rate_all.py --seeds 1000 --grid100-seeds 100   # a short run
    python benchmarks/rate_all.py --page docs/results.md    # also write them into the Results page

Three tables: best play and the strategy on --seeds deals; the fair player beside them on the
first --fair-seeds (default 1,000); and the share of each difficulty band (``triples rate
--difficulty``) on the first --band-seeds (default 2,000). The fair and band figures come from
one pass over 1..max(--fair-seeds, --band-seeds) with the difficulty columns (grid100, where
p_random is out of reach, gets the fair column alone and "-" for the bands); --fair-seeds 0
skips that pass.

The tables go to stdout; each pass's wall time goes to stderr, with the cores it kept busy on
average (fewer than --jobs means the machine was shared and the times are noisy). Rows are
computed exactly as ``triples rate`` computes them (same code, same process pool).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from triples.doors.rating import Row, Summary, batch_size_for, percent, rate_seeds, wilson_interval
from triples.doors.rating.rows import DIFFICULTY_COLUMNS, FAIR_COLUMNS
from triples.doors.rating.seed_rows import has_random_play_chance
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant
from triples.model.variants import VARIANTS, parse_variant


def cpu_seconds() -> float:
    """This process's CPU time and its finished workers' (each variant's pool is joined)."""
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def rate_cell(successes: int, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{percent(successes / trials)} [{percent(low)}, {percent(high)}]"


START, END = "<!-- rate_all:start -->", "<!-- rate_all:end -->"


def write_into_page(path: Path, table: str) -> None:
    """Replace what stands between the page's two markers with the table."""
    text = path.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{path}: no {START} ... {END} markers to write the table between")
    before, rest = text.split(START, 1)
    _, after = rest.split(END, 1)
    path.write_text(f"{before}{START}\n{table}{END}{after}")


def rated(variant: Variant, strategy: str, count: int, jobs: int, columns: tuple[str, ...] = ()) -> Iterator[Row]:
    """Seeds 1..count, rated with the opt-in ``columns``; once all are read, the pass's timing
    goes to stderr."""
    cpu, start = cpu_seconds(), time.perf_counter()
    seeds = range(1, count + 1)
    for batch in rate_seeds(variant, strategy, seeds, jobs, batch_size_for(count, jobs, columns), columns):
        yield from batch
    seconds, cpu = time.perf_counter() - start, cpu_seconds() - cpu
    what = f" with {', '.join(columns)}" if columns else ""
    print(f"{variant.name}{what}: {count} deals in {seconds:.1f} s ({count / seconds:.1f} deals/s, "
          f"{cpu / seconds:.2f} cores busy)", file=sys.stderr)  # fmt: skip


def summary_of(variant: Variant, strategy: str, rows: Iterable[Row]) -> Summary:
    summary = Summary(variant, strategy)
    for row in rows:
        summary.add(row)
    return summary


def fair_and_bands(
    variant: Variant, strategy: str, fair_seeds: int, band_seeds: int, jobs: int
) -> tuple[Summary, Summary]:
    """The summaries of seeds 1..fair_seeds (with the fair column) and 1..band_seeds (with the
    bands), from one pass over the longer range: the shorter one is its prefix."""
    bands = band_seeds > 0 and has_random_play_chance(variant)
    columns = DIFFICULTY_COLUMNS if bands else FAIR_COLUMNS
    fair, banded = Summary(variant, strategy), Summary(variant, strategy)
    for row in rated(variant, strategy, max(fair_seeds, band_seeds if bands else 0), jobs, columns):
        if row.seed <= fair_seeds:
            fair.add(row)
        if bands and row.seed <= band_seeds:
            banded.add(row)
    return fair, banded


def results_table(summaries: list[Summary], strategy: str) -> list[str]:
    lines = [
        f"| variant | deals | mean best | mean autoplay ({strategy}) | won with best play (95% CI) "
        f"| won by {strategy} (95% CI) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for summary in summaries:
        lines.append(
            f"| {summary.variant.name} | {summary.deals:,} | {summary.mean_best:.2f} | {summary.mean_autoplay:.2f} "
            f"| {rate_cell(summary.best_wins, summary.deals)} | {rate_cell(summary.strategy_wins, summary.deals)} |"
        )
    return lines


def fair_table(summaries: list[Summary], strategy: str) -> list[str]:
    """Best play, the strategy and the fair player on the same deals."""
    lines = [
        f"| variant | deals | mean best | mean {strategy} | mean fair | won with best play (95% CI) "
        f"| won by {strategy} (95% CI) | won by fair (95% CI) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in summaries:
        if not s.fair_deals:
            lines.append(f"| {s.variant.name} | - | - | - | - | - | - | - |")
            continue
        lines.append(
            f"| {s.variant.name} | {s.deals:,} | {s.mean_best:.2f} | {s.mean_autoplay:.2f} | {s.mean_fair:.2f} "
            f"| {rate_cell(s.best_wins, s.deals)} | {rate_cell(s.strategy_wins, s.deals)} "
            f"| {rate_cell(s.fair_wins, s.fair_deals)} |"
        )
    return lines


def band_table(summaries: list[Summary]) -> list[str]:
    """The share of each difficulty band (95% CI) and its mean p_random."""
    lines = [
        "| variant | deals | " + " | ".join(f"{band} (95% CI)" for band in BANDS) + " | mean p_random by band |",
        "|---|---:|" + "---:|" * len(BANDS) + "---:|",
    ]
    for s in summaries:
        if not s.band_deals:
            lines.append(f"| {s.variant.name} | - |" + " - |" * len(BANDS) + " - |")
            continue
        shares = " | ".join(rate_cell(s.band_counts[band], s.band_deals) for band in BANDS)
        means = " / ".join("-" if (m := s.mean_p_random(band)) is None else f"{m:.3f}" for band in BANDS)
        lines.append(f"| {s.variant.name} | {s.band_deals:,} | {shares} | {means} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100_000, help="seeds 1..N of each variant (default 100000)")
    parser.add_argument("--grid100-seeds", type=int, default=10_000, help="seeds 1..N of grid100 (default 10000)")
    parser.add_argument("--fair-seeds", type=int, default=1000, help="seeds 1..N for the fair player (default 1000)")
    parser.add_argument("--band-seeds", type=int, default=2000, help="seeds 1..N for the bands (default 2000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--strategy", default="high")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated (default: all)")
    parser.add_argument(
        "--page", "--readme", type=Path, help="also write the tables into this page, between its rate_all markers"
    )
    args = parser.parse_args()

    summaries: list[Summary] = []
    fair_summaries: list[Summary] = []
    band_summaries: list[Summary] = []
    started = time.perf_counter()
    for name in args.variants.split(","):
        variant = parse_variant(name)
        count = args.grid100_seeds if name == "grid100" else args.seeds
        summaries.append(summary_of(variant, args.strategy, rated(variant, args.strategy, count, args.jobs)))
        if args.fair_seeds > 0:
            fair, bands = fair_and_bands(variant, args.strategy, args.fair_seeds, args.band_seeds, args.jobs)
            fair_summaries.append(fair)
            band_summaries.append(bands)
    total = time.perf_counter() - started
    print(f"total wall time: {total:.1f} s with --jobs {args.jobs}", file=sys.stderr)

    lines = results_table(summaries, args.strategy)
    if fair_summaries:
        lines += ["", f"The fair player beside best play and {args.strategy} on seeds 1..{args.fair_seeds:,}:", ""]
        lines += fair_table(fair_summaries, args.strategy)
        if any(s.band_deals for s in band_summaries):
            lines += ["", f"Difficulty bands on seeds 1..{args.band_seeds:,}:", ""]
            lines += band_table(band_summaries)
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if args.page is not None:
        write_into_page(args.page, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
