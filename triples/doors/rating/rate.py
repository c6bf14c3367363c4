"""``triples rate``: rate a range of seeds in parallel: autoplay, the exact best, and win rates.

Rows come out in seed order whatever executes them; only the timing (``ms``) depends on the
machine. Each kept row says what made it (variant, strategy, analyses, version), so a file is
never resumed with other options.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator

from triples.doors.kit.exits import EXIT_OK
from triples.doors.kit.rows_file import RowsFormat
from triples.doors.rating import plots, runs
from triples.doors.rating.executors import batches
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.rows import Row, line_of
from triples.doors.rating.summary import Summary, speed_line

# Shown by ``triples rate --help`` (the command line finds them here by the module's name).
DESCRIPTION = "Rate seeds: how much the reference player and the best line clear on each deal."
EXAMPLE = """\
examples:
  triples rate --variant classic --seeds 0-99
  triples rate --seeds 1-100000 --format jsonl --out classic.jsonl --scheduler tcp://head:8786"""

PROG = "triples rate"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples rate`` (``triples sweep`` shares them)."""
    runs.add_rate_options(parser)


def main(args: argparse.Namespace) -> int:
    request = runs.request_of(args)
    record = runs.resume_from(request)
    resumed = runs.resumed_rows(request, record)
    done = frozenset(row.seed for row in resumed)
    with runs.rating_run(PROG, request, args.db, request.seeds, done, record) as run:
        if record.needs_header:
            run.sink.write(record.format.header() + "\n")
        todo_count = len(request.seeds) - len(done)
        todo = (seed for seed in request.seeds if seed not in record.rows)
        return rate(request, record.format, resumed, (todo_count, batches(todo, run.batch_size)), run)


def rate(
    request: runs.Request,
    fmt: RowsFormat,
    resumed: list[Row],
    todo: tuple[int, Iterator[list[int]]],
    run: runs.RatingRun,
) -> int:
    """Rate the batches of ``todo`` (a count of seeds and their batches), write their rows as
    they come, and report; a stop signal stops the rating but not the report."""
    executor, sink, stop = run.executor, run.sink, run.signals
    summary = Summary(request.variant, request.strategy)
    for row in resumed:
        summary.add(row)
    count, todo_batches = todo
    bar = runs.progress_bar(count, f"{request.variant.name} {request.first}-{request.last}")
    start = time.perf_counter()
    try:
        for rows in executor.rate(request.rate_options, todo_batches, stop):
            runs.write_rows(sink, [line_of(fmt, row) for row in rows], bar)
            for row in rows:
                summary.add(row)
            if bar is not None:
                bar.update(len(rows))
    except Stop:
        pass
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    sink.flush()
    speed = speed_line(summary.deals - len(resumed), seconds, executor.label)
    report(request, summary, len(resumed), speed, stop)
    if request.plot is not None and summary.deals and not stop.stopped:
        plots.write_plot(request.plot, summary, f"seeds {request.first}-{request.last}")
    return stop.exit_status if stop.stopped else EXIT_OK


def interrupted_line(request: runs.Request, stop: StopSignals, kept: int) -> str:
    """What a stopped run kept, and how to go on."""
    if request.out is None:
        return f"interrupted ({stop.name}): {kept} rows were written"
    return (
        f"interrupted ({stop.name}): {request.out} holds {kept} rows of seeds {request.first}-{request.last}; "
        "the same command rates the rest"
    )


def report(request: runs.Request, summary: Summary, resumed: int, speed: str, stop: StopSignals) -> None:
    """The summary: after the rows on stdout for a table, else on stderr."""
    lines = [
        f"variant: {request.variant.name}",
        f"strategy: {request.strategy}",
        f"seeds: {request.first}-{request.last}",
        *summary.lines(),
    ]
    if resumed:
        lines.insert(3, f"resumed: {resumed} rows already in {request.out}")
    lines.append(speed)
    if stop.stopped:
        lines.append(interrupted_line(request, stop, summary.deals))
    table = request.format == "table"
    runs.show_report(lines, sys.stdout if table else sys.stderr, blank_first=table and request.out is None)
