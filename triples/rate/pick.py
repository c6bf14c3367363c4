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
import os
import sys
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import partial
from typing import IO

from triples.config import DEFAULT_VARIANT, VARIANTS, variant_named
from triples.difficulty import BANDS
from triples.errors import TriplesError
from triples.exits import EXIT_INTERRUPTED, EXIT_OK
from triples.rate import command, plots, stored
from triples.rate.columns import BAND, DIFFICULTY_COLUMNS
from triples.rate.command import (
    MAX_SEED,
    Request,
    executor_for,
    extra_columns_for,
    open_sink,
    parse_seed_range,
    positive_integer,
    progress_bar,
    write_rows,
)
from triples.rate.errors import BadInput, ClusterError
from triples.rate.executors import Executor, batches
from triples.rate.formats import FORMATS, RowFormat
from triples.rate.rows import RateOptions, Row, rate_batch
from triples.rate.summary import Summary

PROG = "triples pick"
DEFAULT_COUNT = 10
# The band is defined against high, so the rows' own autoplay column is high's too.
STRATEGY = "high"
# Small batches, so that little is rated past the deal that completes the count: a difficulty
# row takes about a tenth of a second, so a batch is still long against the pool's overhead.
PICK_BATCH = 8
EXIT_FEWER_FOUND = 1  # as grep's "no match": the run went well, the range held too few deals
WIDER = 1.5  # how much more than the observed rate says a suggested range allows for


def fail(message: str) -> int:
    return command.fail(message, PROG)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples pick``; values are checked by ``main`` (one line, exit 2)."""
    variants = ", ".join(v for v in VARIANTS if v != "grid100")
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help=f"{variants} (default {DEFAULT_VARIANT})")
    parser.add_argument("--seeds", metavar="A-B", help="inclusive seed range to look in, in order (required)")
    parser.add_argument("--band", metavar="|".join(BANDS), help="the difficulty band wanted (required)")
    parser.add_argument(
        "--count", metavar="N", default=str(DEFAULT_COUNT), help=f"deals wanted (default {DEFAULT_COUNT})"
    )
    parser.add_argument("--min-best", metavar="K", help="only deals where best play clears at least K cards")
    parser.add_argument("--winnable", action="store_true", help="only deals that best play clears entirely")
    parser.add_argument("--format", default="table", metavar="|".join(FORMATS), help="row format (default table)")
    parser.add_argument(
        "--out", metavar="FILE", help="keep every rated row in FILE (in --format), and reuse the rows already in it"
    )
    parser.add_argument("--jobs", metavar="N", help="worker processes (default: the core count)")
    parser.add_argument("--db", metavar="FILE", help=stored.DB_HELP)
    parser.add_argument("--plot", metavar="FILE", help=plots.PLOT_HELP.replace("of the run", "of the deals looked at"))
    command.one_line_errors(parser, PROG)


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


def non_negative_integer(option: str, value: str) -> int:
    text = value.strip()
    if not (text.isdigit() and text.isascii()):
        raise BadInput(f"{option} {value}: expected a non-negative integer")
    return int(text)


def parse_pick(args: argparse.Namespace) -> tuple[Request, Wanted]:
    try:
        variant = variant_named(args.variant)
    except TriplesError as exc:
        raise BadInput(str(exc)) from None
    first, last = parse_seed_range(args.seeds)
    if args.band is None:
        raise BadInput(f"--band {'|'.join(BANDS)} is required")
    if args.band not in BANDS:
        raise BadInput(f"--band {args.band}: expected one of {', '.join(BANDS)}")
    count = positive_integer("--count", args.count)
    min_best = 0 if args.min_best is None else non_negative_integer("--min-best", args.min_best)
    if min_best > variant.deck_size:
        raise BadInput(f"--min-best {min_best}: {variant.name} has only {variant.deck_size} cards")
    jobs = (os.cpu_count() or 1) if args.jobs is None else positive_integer("--jobs", args.jobs)
    if args.format not in FORMATS:
        raise BadInput(f"--format {args.format}: expected one of {', '.join(FORMATS)}")
    extra = extra_columns_for(variant, fair=True, difficulty=True)
    plot = None if args.plot is None else plots.checked_plot_path(args.plot)
    request = Request(variant, STRATEGY, first, last, jobs, args.format, args.out, extra_columns=extra, plot=plot)
    return request, Wanted(args.band, count, min_best, args.winnable)


def main(args: argparse.Namespace) -> int:
    try:
        request, wanted = parse_pick(args)
        fmt, done, needs_header = command.resume_from(request)
        resumed = [done[seed] for seed in sorted(done) if request.first <= seed <= request.last]
        enough = enough_by(resumed, wanted, request)
        stop = request.last if enough is None else enough
        resumed = [row for row in resumed if row.seed <= stop]
        todo_count = stop - request.first + 1 - len(resumed)
        options = RateOptions(request.variant.name, request.strategy, request.extra_columns)
        with (
            stored.opened(args.db) as store,
            executor_for(request, stored.to_rate(store, options, request.first, stop, todo_count)) as (executor, size),
            open_sink(request.out) as sink,
        ):
            executor = stored.backed(executor, store)
            if request.out is not None and needs_header and todo_count:
                sink.write(fmt.header() + "\n")
            todo = (seed for seed in range(request.first, stop + 1) if seed not in done)
            size = min(size, PICK_BATCH)
            status = pick(request, wanted, fmt, resumed, (todo_count, batches(todo, size)), executor, sink)
            stored.report(executor)
            return status
    except (BadInput, ClusterError) as exc:
        return fail(str(exc))


def enough_by(resumed: list[Row], wanted: Wanted, request: Request) -> int | None:
    """The seed by which the resumed rows alone hold ``wanted.count`` picks: no later seed can be
    among the first picks, so none needs rating. None when they hold fewer."""
    found = 0
    for row in resumed:
        found += wanted.accepts(row, request.variant.deck_size)
        if found == wanted.count:
            return row.seed
    return None


def rated_rows(
    executor: Executor, options: RateOptions, todo: Iterator[list[int]], fmt: RowFormat, sink: IO[str] | None
) -> Generator[Row, None, None]:
    """The rows of ``todo``'s batches one by one, each batch written to ``sink`` as it comes."""
    results = executor.rate(partial(rate_batch, options), todo)
    try:
        for rows in results:
            if sink is not None:
                write_rows(sink, [fmt.line(row) for row in rows], None)
            yield from rows
    finally:
        close = getattr(results, "close", None)  # a pool's generator: shut the pool down now
        if close is not None:
            close()


def pick(
    request: Request,
    wanted: Wanted,
    fmt: RowFormat,
    resumed: list[Row],
    todo: tuple[int, Iterator[list[int]]],
    executor: Executor,
    sink: IO[str],
) -> int:
    """Walk the rows of the range in seed order (resumed and freshly rated, merged) until
    ``wanted.count`` are picked; print the picks and report."""
    count, todo_batches = todo
    options = RateOptions(
        request.variant.name, request.strategy, tuple(c for c in fmt.columns if c in DIFFICULTY_COLUMNS)
    )
    summary = Summary(request.variant, request.strategy)
    picked: list[Row] = []
    rated = rated_rows(executor, options, todo_batches, fmt, sink if request.out is not None else None)
    bar = progress_bar(count, f"{request.variant.name} {wanted.band}")
    looked_last, fresh, interrupted = request.first - 1, 0, False
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
    except KeyboardInterrupt:
        interrupted = True
    finally:
        rated.close()  # stops the pool: batches still queued are cancelled
        if bar is not None:
            bar.close()
    show_picks(fmt, picked)
    looked = f"{request.first}-{looked_last}" if looked_last >= request.first else "none"
    report(request, wanted, summary, looked, fresh, picked, interrupted)
    if request.plot is not None and summary.deals:
        plots.write_plot(request.plot, summary, f"seeds {looked}")
    if interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if len(picked) == wanted.count else EXIT_FEWER_FOUND


def show_picks(fmt: RowFormat, picked: list[Row]) -> None:
    lines = [fmt.header()] if fmt.has_header else []
    lines += [fmt.line(row) for row in picked]
    sys.stdout.write("".join(line + "\n" for line in lines))
    sys.stdout.flush()


def report(
    request: Request,
    wanted: Wanted,
    summary: Summary,
    looked: str,
    fresh: int,
    picked: list[Row],
    interrupted: bool,
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
    if interrupted:
        lines.append(
            f"interrupted: {request.out} holds every rated row; the same command goes on from there"
            if request.out is not None
            else "interrupted"
        )
    elif len(picked) < wanted.count:
        lines.append(fewer_found(request, wanted, len(picked), summary.deals))
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


def fewer_found(request: Request, wanted: Wanted, found: int, looked: int) -> str:
    """The fewer-found line, with a range estimated from the share seen to hold the count."""
    per_seed = found / looked if found and looked else 0.0
    needed = math.ceil(WIDER * wanted.count / per_seed) if per_seed else 10 * max(1, looked)
    last = min(MAX_SEED, request.first + needed - 1)
    deals = "deal" if found == 1 else "deals"
    return (
        f"{PROG}: only {found} {wanted.describe()} {deals} of the {wanted.count} wanted in seeds "
        f"{request.first}-{request.last}; try a wider range, such as --seeds {request.first}-{last}"
    )
