"""``triples pick``: the first deals of a difficulty band in a range of seeds, rated as needed.

Seeds are rated with ``triples rate --difficulty``'s machinery (the same rows, batches, process
pool and resumable ``--out`` file) in seed order, and rating stops as soon as the count is
reached: batches are submitted in order, a few ahead of the one being read, and the pool is shut
down (queued batches cancelled) once enough deals are found. Rows already in ``--out`` are not
rated again; when they alone hold the count by some seed, no seed past it is rated at all.

Exit status 0 when the count was found; 1 (like grep finding nothing) when the range holds
fewer, after printing those it holds and a line on stderr suggesting a wider range; 2 for bad
input; 130 when interrupted.
"""

from __future__ import annotations

import argparse
import heapq
import math
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import IO

from triples.doors.kit import options
from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.rows_file import RowsFormat
from triples.doors.kit.variant_option import variant_of
from triples.doors.rating import plots, runs
from triples.doors.rating.executors import Executor, batches
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.rows import BAND, DIFFICULTY_COLUMNS, RateOptions, Row, line_of
from triples.doors.rating.seed_rows import has_random_play_chance
from triples.doors.rating.summary import Summary
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant

# Shown by ``triples pick --help`` (the command line finds them here by the module's name).
DESCRIPTION = """\
Pick deals by difficulty: rate seeds in order (as rate --difficulty does) and print the
first N of the band. easy: the high strategy reaches best; medium: the fair player, who
cannot see the stock, does and high does not; hard: only perfect information does."""
EXAMPLE = """exit status: 0 found N deals, 1 the range holds fewer (those found are printed), 2 bad input

examples:
  triples pick --variant sum15 --seeds 1-500 --band medium --count 5
  triples pick --variant classic --seeds 1-10000 --band hard --min-best 45 --out classic.jsonl --format jsonl"""

PROG = "triples pick"
DEFAULT_COUNT = 10
# The band is defined against high, so the rows' own autoplay column is high's too.
STRATEGY = "high"
# Small batches, so that little is rated past the deal that completes the count: a difficulty
# row takes about a tenth of a second, so a batch is still long against the pool's overhead.
PICK_BATCH = 8
EXIT_FEWER_FOUND = 1  # as grep's "no match": the run went well, the range held too few deals
WIDER = 1.5  # how much more than the observed rate says a suggested range allows for


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples pick``."""
    runs.add_variant_option(parser)
    runs.add_seeds_option(
        parser,
        help=f"inclusive seed range to look in, in order, seeds from 0 to {options.MAX_SEED} (required)",
        required=True,
    )
    parser.add_argument("--band", choices=BANDS, required=True, help="the difficulty band wanted (required)")
    parser.add_argument(
        "--count", metavar="N", type=options.positive_int, default=DEFAULT_COUNT,
        help=f"deals wanted (default {DEFAULT_COUNT})",
    )  # fmt: skip
    parser.add_argument(
        "--min-best",
        metavar="K",
        type=options.non_negative_int,
        help="only deals where best play clears at least K cards",
    )
    parser.add_argument("--winnable", action="store_true", help="only deals that best play clears entirely")
    runs.add_format_option(parser)
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="keep every rated row in FILE (in --format), and reuse the rows already in it "
        "(refused if they were made otherwise)",
    )
    runs.add_jobs_option(parser)
    runs.add_db_option(parser)
    parser.add_argument("--plot", metavar="FILE", help=plots.PLOT_HELP.replace("of the run", "of the deals looked at"))


@dataclass(frozen=True)
class Wanted:
    """Which deals are picked, and how many."""

    band: str
    count: int
    min_best: int = 0
    winnable: bool = False

    def accepts(self, row: Row, deck_size: int) -> bool:
        return (
            row.value(BAND) == self.band and row.best >= self.min_best and (not self.winnable or row.best == deck_size)
        )

    def describe(self) -> str:
        filters = [f"best >= {self.min_best}"] if self.min_best else []
        if self.winnable:
            filters.append("winnable")
        return self.band + (f" ({', '.join(filters)})" if filters else "")


def parse_pick(args: argparse.Namespace) -> tuple[runs.Request, Wanted]:
    variant = variant_of(args.variant)
    check_band_possible(variant, args.band)
    seeds: options.SeedRange = args.seeds
    min_best = 0 if args.min_best is None else args.min_best
    if min_best > variant.deck_size:
        raise BadInput(f"--min-best {min_best}: {variant.name} has only {variant.deck_size} cards")
    jobs = options.core_count() if args.jobs is None else args.jobs
    plot = None if args.plot is None else plots.checked_plot_path(args.plot)
    request = runs.Request(
        variant, STRATEGY, seeds.first, seeds.last, jobs, args.format, args.out,
        extra_columns=DIFFICULTY_COLUMNS, plot=plot,
    )  # fmt: skip
    return request, Wanted(args.band, args.count, min_best, args.winnable)


def check_band_possible(variant: Variant, band: str) -> None:
    """Refuse what no seed can give, before rating any: the bands of a variant without
    ``p_random``, and a band the variant's rules never produce."""
    if not has_random_play_chance(variant):
        raise BadInput(
            f"{variant.name} has no difficulty bands: they are rated with p_random, the chance that "
            f"random moves reach best, and with all {variant.deck_size} cards dealt at once random play "
            "has too many ways to go to count"
        )
    if variant.per_move == 2 and band != "easy":
        raise BadInput(
            f"no {variant.name} deal is {band}: with two cards a move, a card pairs with one value only, "
            "so every order of play clears the same cards and the high strategy always reaches best "
            "(every deal is easy)"
        )


def main(args: argparse.Namespace) -> int:
    request, wanted = parse_pick(args)
    record = runs.resume_from(request)
    resumed = runs.resumed_rows(request, record)
    enough = enough_by(resumed, wanted, request)
    stop = request.last if enough is None else enough
    resumed = [row for row in resumed if row.seed <= stop]
    done = frozenset(row.seed for row in resumed)
    with runs.rating_run(PROG, request, args.db, range(request.first, stop + 1), done, record) as run:
        todo_count = stop - request.first + 1 - len(resumed)
        if request.out is not None and record.needs_header and todo_count:
            run.sink.write(record.format.header() + "\n")
        todo = (seed for seed in range(request.first, stop + 1) if seed not in record.rows)
        batched = (todo_count, batches(todo, min(run.batch_size, PICK_BATCH)))
        return pick(request, wanted, record.format, resumed, batched, run)


def enough_by(resumed: list[Row], wanted: Wanted, request: runs.Request) -> int | None:
    """The seed by which the resumed rows alone hold ``wanted.count`` picks: no later seed can be
    among the first picks, so none needs rating. None when they hold fewer."""
    found = 0
    for row in resumed:
        found += wanted.accepts(row, request.variant.deck_size)
        if found == wanted.count:
            return row.seed
    return None


def rated_rows(
    executor: Executor,
    rate_options: RateOptions,
    todo: Iterator[list[int]],
    fmt: RowsFormat,
    sink: IO[str] | None,
    signals: StopSignals,
) -> Generator[Row, None, None]:
    """The rows of ``todo``'s batches one by one, each batch written to ``sink`` as it comes."""
    results = executor.rate(rate_options, todo, signals)
    try:
        for rows in results:
            if sink is not None:
                runs.write_rows(sink, [line_of(fmt, row) for row in rows], None)
            yield from rows
    finally:
        close = getattr(results, "close", None)  # a pool's generator: shut the pool down now
        if close is not None:
            close()


def pick(
    request: runs.Request,
    wanted: Wanted,
    fmt: RowsFormat,
    resumed: list[Row],
    todo: tuple[int, Iterator[list[int]]],
    run: runs.RatingRun,
) -> int:
    """Walk the rows of the range in seed order (resumed and freshly rated, merged) until
    ``wanted.count`` are picked; print the picks and report."""
    executor, sink, signals = run.executor, run.sink, run.signals
    count, todo_batches = todo
    rate_options = RateOptions(request.variant.name, request.strategy, request.extra_columns)
    summary = Summary(request.variant, request.strategy)
    picked: list[Row] = []
    rated = rated_rows(executor, rate_options, todo_batches, fmt, sink if request.out is not None else None, signals)
    bar = runs.progress_bar(count, f"{request.variant.name} {wanted.band}")
    looked_last, fresh = request.first - 1, 0
    resumed_seeds = frozenset(row.seed for row in resumed)
    try:
        for row in heapq.merge(resumed, rated, key=lambda row: row.seed):
            summary.add(row)
            looked_last = row.seed
            if row.seed not in resumed_seeds:
                fresh += 1
                if bar is not None:
                    bar.update(1)
            if wanted.accepts(row, request.variant.deck_size):
                picked.append(row)
                if len(picked) == wanted.count:
                    break
    except Stop:
        pass
    finally:
        rated.close()  # stops the pool: batches still queued are cancelled
        if bar is not None:
            bar.close()
    show_picks(fmt, picked)
    looked = f"{request.first}-{looked_last}" if looked_last >= request.first else "none"
    report(request, wanted, summary, looked, fresh, picked, signals)
    if request.plot is not None and summary.deals and not signals.stopped:
        plots.write_plot(request.plot, summary, f"seeds {looked}")
    if signals.stopped:
        return signals.exit_status
    return EXIT_OK if len(picked) == wanted.count else EXIT_FEWER_FOUND


def show_picks(fmt: RowsFormat, picked: list[Row]) -> None:
    lines = [fmt.header()] if fmt.has_header else []
    lines += [line_of(fmt, row) for row in picked]
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def report(
    request: runs.Request,
    wanted: Wanted,
    summary: Summary,
    looked: str,
    fresh: int,
    picked: list[Row],
    signals: StopSignals,
) -> None:
    """What was looked at and found, on stderr (stdout holds only the picked rows)."""
    resumed = summary.deals - fresh
    source = f"{fresh} rated" + (f", {resumed} from {request.out}" if resumed else "")
    lines = [
        f"variant: {request.variant.name}",
        f"band: {wanted.describe()}",
        f"seeds looked at: {looked} ({summary.deals} {'deal' if summary.deals == 1 else 'deals'}: {source})",
        f"picked: {len(picked)} of {wanted.count}",
    ]
    if summary.band_deals:
        share = summary.band_counts[wanted.band] / summary.band_deals
        lines.append(f"share of {wanted.band} deals among those looked at: {100 * share:.1f}%")
    if signals.stopped:
        lines.append(
            f"interrupted ({signals.name}): {request.out} holds every rated row; the same command goes on from there"
            if request.out is not None
            else f"interrupted ({signals.name})"
        )
    elif len(picked) < wanted.count:
        lines.append(fewer_found(request, wanted, len(picked), summary.deals))
    runs.show_report(lines, sys.stderr, blank_first=False)


def fewer_found(request: runs.Request, wanted: Wanted, found: int, looked: int) -> str:
    """The fewer-found line: with some found, a range estimated from the share seen to hold the
    count; with none, that the band may be rare or absent, so a wider range may not help."""
    deals = "deal" if found == 1 else "deals"
    where = f"seeds {request.first}-{request.last}"
    if not found:
        last = min(options.MAX_SEED, request.first + 10 * max(1, looked) - 1)
        return (
            f"{PROG}: no {wanted.describe()} deal in {where} ({looked} looked at): such deals may be rare in "
            f"{request.variant.name}, or absent under these conditions, so a wider range (such as --seeds "
            f"{request.first}-{last}) may find none either"
        )
    needed = math.ceil(WIDER * wanted.count * looked / found)
    last = min(options.MAX_SEED, request.first + needed - 1)
    return (
        f"{PROG}: only {found} {wanted.describe()} {deals} of the {wanted.count} wanted in {where}; "
        f"try a wider range, such as --seeds {request.first}-{last}"
    )
