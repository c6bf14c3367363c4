"""The ``triples rate`` command: its options, checking them, and the run from rows to summary."""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import IO, NoReturn

from tqdm import tqdm

from triples.doors.kit import options
from triples.doors.kit.exits import EXIT_BAD_INPUT, EXIT_OK, CommandError
from triples.doors.kit.install import install_hint
from triples.doors.kit.variant_option import variant_help, variant_of_option
from triples.doors.rating import plots, store_backed
from triples.doors.rating.columns import DIFFICULTY_COLUMNS, FAIR_COLUMNS, has_random_play_chance
from triples.doors.rating.errors import BadInput
from triples.doors.rating.executors import Executor, batch_size_for, batches, pool_of
from triples.doors.rating.formats import FORMATS, RowFormat, row_format
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.resume import RowsRecord, check_resume, open_for_append
from triples.doors.rating.rows import (
    CORE_COLUMNS,
    Provenance,
    RateOptions,
    Row,
    analyses_name,
    installed_version,
    record_columns,
)
from triples.doors.rating.summary import Summary, speed_line
from triples.engines.strategies import DEFAULT_STRATEGY, STRATEGIES, strategy_named
from triples.model.variant import Variant
from triples.model.variants import DEFAULT_VARIANT
from triples.support.errors import TriplesError

# Shown by ``triples rate --help`` (the command line finds them here by the module's name).
DESCRIPTION = "Rate seeds: how much the reference player and the best line clear on each deal."
EXAMPLE = """\
examples:
  triples rate --variant classic --seeds 0-99
  triples rate --seeds 1-100000 --format jsonl --out classic.jsonl --scheduler tcp://head:8786"""

PROG = "triples rate"
DEFAULT_SCHEDULER_TIMEOUT = 10


def fail(message: str, prog: str = PROG, status: int = EXIT_BAD_INPUT) -> int:
    print(f"{prog}: error: {message}", file=sys.stderr)
    return status


def one_line_errors(parser: argparse.ArgumentParser, prog: str = PROG) -> None:
    """Make argparse's refusals one line and exit status 2: its own report is a usage block
    plus a line, and the contract is one line."""

    def error(message: str) -> NoReturn:
        sys.exit(fail(message, prog))

    parser.error = error  # type: ignore[method-assign]


SEEDS_HELP = f"inclusive seed range, e.g. 1-1000, seeds from 0 to {options.MAX_SEED} (required)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples rate``; a refusal is one line and exit status 2."""
    strategies = ", ".join(STRATEGIES)
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help=variant_help(DEFAULT_VARIANT))
    parser.add_argument("--seeds", metavar="A-B", type=options.seed_range, required=True, help=SEEDS_HELP)
    parser.add_argument("--strategy", default=DEFAULT_STRATEGY, help=f"{strategies} (default {DEFAULT_STRATEGY})")
    parser.add_argument("--jobs", metavar="N", type=options.jobs, help="worker processes (default: the core count)")
    parser.add_argument("--format", default="table", choices=FORMATS, help="row format (default table)")
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="write rows to FILE, skipping seeds already in it (refused if its rows were made otherwise)",
    )
    parser.add_argument(
        "--fair", action="store_true", help="add the cards the fair strategy clears (it cannot see the stock; slow)"
    )
    parser.add_argument(
        "--difficulty",
        action="store_true",
        help="add p_random (the chance that random moves reach best) and the band easy|medium|hard (implies --fair)",
    )
    parser.add_argument("--plot", metavar="FILE", help=plots.PLOT_HELP)
    parser.add_argument("--db", metavar="FILE", help=store_backed.DB_HELP)
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        type=options.scheduler,
        help="rate on the Dask cluster of this scheduler (tcp://host:8786), or on a local cluster "
        "of N worker processes (local:N; local: the core count); needs the cluster extra",
    )
    parser.add_argument(
        "--scheduler-timeout",
        metavar="S",
        type=options.positive_seconds,
        default=DEFAULT_SCHEDULER_TIMEOUT,
        help=f"seconds to wait for the scheduler and a first worker (default {DEFAULT_SCHEDULER_TIMEOUT})",
    )
    one_line_errors(parser)


@dataclass(frozen=True)
class Request:
    variant: Variant
    strategy: str
    first: int
    last: int
    jobs: int
    format: str
    out: str | None
    scheduler: options.Scheduler | None = None
    scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT
    extra_columns: tuple[str, ...] = ()  # opt-in columns asked for (--fair, --difficulty)
    plot: str | None = None

    @property
    def seeds(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns written: a table on the screen, read by people, leaves out what made the
        rows; every file and every jsonl or csv stream keeps it on each row."""
        if self.format == "table" and self.out is None:
            return (*CORE_COLUMNS, *self.extra_columns)
        return record_columns(self.extra_columns)

    @property
    def provenance(self) -> Provenance:
        """What this run's rows are made with (the version of this process)."""
        return Provenance(self.variant.name, self.strategy, analyses_name(self.extra_columns), installed_version())


def extra_columns_for(variant: Variant, fair: bool, difficulty: bool) -> tuple[str, ...]:
    """The opt-in columns of --fair and --difficulty, refused where they cannot be computed."""
    if difficulty:
        if not has_random_play_chance(variant):
            raise BadInput(
                f"--difficulty is out of reach on {variant.name}: every card is dealt at once, "
                "so random play has astronomically many ways to go (--fair works)"
            )
        return DIFFICULTY_COLUMNS
    return FAIR_COLUMNS if fair else ()


def parse_request(args: argparse.Namespace) -> Request:
    try:
        variant = variant_of_option(args.variant)
        strategy_named(args.strategy)
    except TriplesError as exc:
        raise BadInput(str(exc)) from None
    seeds: options.SeedRange = args.seeds
    jobs = options.core_count() if args.jobs is None else args.jobs
    if args.scheduler is not None and args.jobs is not None:
        raise BadInput("--jobs is the process pool's size: with --scheduler, the cluster's workers do the work")
    extra = extra_columns_for(variant, args.fair, args.difficulty)
    plot = None if args.plot is None else plots.checked_plot_path(args.plot)
    return Request(
        variant, args.strategy, seeds.first, seeds.last, jobs, args.format, args.out, args.scheduler,
        args.scheduler_timeout, extra, plot,
    )  # fmt: skip


@contextmanager
def executor_for(request: Request, todo_count: int, stop: StopSignals) -> Iterator[tuple[Executor, int]]:
    """The executor to rate ``todo_count`` seeds on, and the batch size to give it."""
    if request.scheduler is None or todo_count == 0:  # nothing to rate: no cluster to start
        size = batch_size_for(todo_count, request.jobs, request.extra_columns)
        jobs = max(1, min(request.jobs, math.ceil(todo_count / size)))  # no idle workers to start
        yield pool_of(jobs), size
        return
    try:
        with stop.raising():  # loading Dask takes seconds on a busy machine
            from triples.doors.rating import cluster  # Dask, loaded only for a cluster
    except ImportError:
        raise BadInput(f"--scheduler needs Dask: {install_hint('cluster')}") from None
    scheduler = request.scheduler
    with cluster.connect(scheduler.address, scheduler.local_workers, request.scheduler_timeout, stop) as executor:
        size = batch_size_for(todo_count, executor.workers, request.extra_columns)
        if not request.extra_columns:  # cheap rows: send several batches to a task
            executor.group = cluster.batches_per_task(math.ceil(todo_count / size), executor.workers)
        yield executor, size


def progress_bar(total: int, label: str) -> tqdm[NoReturn] | None:
    """A tqdm bar on stderr when stderr is a terminal; otherwise None."""
    if not sys.stderr.isatty():
        return None
    tqdm.monitor_interval = 0  # no monitor thread: the pool forks after the bar exists
    size = os.get_terminal_size(sys.stderr.fileno())
    if size.columns and size.lines:
        return tqdm(total=total, file=sys.stderr, unit="deal", desc=label, leave=False, dynamic_ncols=True)
    # Some pseudo-terminals report a size of 0 x 0, in which tqdm draws nothing at all.
    return tqdm(total=total, file=sys.stderr, unit="deal", desc=label, leave=False, ncols=80, nrows=24)


def write_rows(sink: IO[str], lines: list[str], bar: tqdm[NoReturn] | None) -> None:
    if bar is not None and sink.isatty():  # rows on the same terminal: lift the bar first
        with tqdm.external_write_mode(file=sink):
            sink.write("".join(line + "\n" for line in lines))
            sink.flush()
    else:
        sink.write("".join(line + "\n" for line in lines))
        sink.flush()


def resume_from(request: Request) -> RowsRecord:
    """What ``--out`` holds (nothing without ``--out``): refused unless made as this run makes
    rows; the file is not changed here."""
    fmt = row_format(request.format, request.columns, request.last)
    if request.out is None:
        return RowsRecord("", fmt, needs_header=fmt.has_header)
    return check_resume(request.out, request.provenance, fmt, request.columns)


def resumed_rows(request: Request, record: RowsRecord, last: int | None = None) -> list[Row]:
    """The rows of ``record`` in the range (up to ``last``), in seed order."""
    end = request.last if last is None else last
    return [record.rows[seed] for seed in sorted(record.rows) if request.first <= seed <= end]


def main(args: argparse.Namespace) -> int:
    try:
        request = parse_request(args)
        record = resume_from(request)
        resumed = resumed_rows(request, record)
        todo_count = request.last - request.first + 1 - len(resumed)
        rate_options = RateOptions(request.variant.name, request.strategy, request.extra_columns)
        with (
            store_backed.opened(args.db) as store,
            StopSignals() as stop,
            executor_for(
                request, store_backed.to_rate(store, rate_options, request.first, request.last, todo_count), stop
            ) as (
                executor,
                size,
            ),
            open_sink(request, record) as sink,
        ):
            executor = store_backed.backed(executor, store)
            if record.needs_header:
                sink.write(record.format.header() + "\n")
            todo = (seed for seed in request.seeds if seed not in record.rows)
            status = rate(request, record.format, resumed, (todo_count, batches(todo, size)), executor, sink, stop)
            store_backed.report(executor)
            return status
    except CommandError as exc:
        return fail(str(exc), status=exc.status)
    except Stop as stopped:  # while the cluster was starting: no seed was rated
        stopped_before_rating(stopped, PROG)


def stopped_before_rating(stopped: Stop, prog: str) -> NoReturn:
    """End the process now: Dask, stopped halfway through starting a cluster, would spend
    seconds at exit closing what it had begun (its worker processes exit with this one)."""
    name = signal.Signals(stopped.signum).name
    show_report([f"{prog}: interrupted ({name}) while the cluster was starting: no seed was rated"], sys.stderr)
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(128 + stopped.signum)


@contextmanager
def open_sink(request: Request, record: RowsRecord) -> Iterator[IO[str]]:
    """Where rows go: stdout, or appended to ``--out``."""
    if request.out is None:
        yield sys.stdout
        return
    with open_for_append(record) as sink:
        yield sink


def rate(
    request: Request,
    fmt: RowFormat,
    resumed: list[Row],
    todo: tuple[int, Iterator[list[int]]],
    executor: Executor,
    sink: IO[str],
    stop: StopSignals,
) -> int:
    """Rate the batches of ``todo`` (a count of seeds and their batches), write their rows as
    they come, and report; a stop signal stops the rating but not the report."""
    summary = Summary(request.variant, request.strategy)
    for row in resumed:
        summary.add(row)
    count, todo_batches = todo
    options = RateOptions(request.variant.name, request.strategy, request.extra_columns)
    bar = progress_bar(count, f"{request.variant.name} {request.first}-{request.last}")
    start = time.perf_counter()
    try:
        for rows in executor.rate(options, todo_batches, stop):
            write_rows(sink, [fmt.line(row) for row in rows], bar)
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


def interrupted_line(request: Request, stop: StopSignals, kept: int) -> str:
    """What a stopped run kept, and how to go on."""
    if request.out is None:
        return f"interrupted ({stop.name}): {kept} rows were written"
    return (
        f"interrupted ({stop.name}): {request.out} holds {kept} rows of seeds {request.first}-{request.last}; "
        "the same command rates the rest"
    )


def report(request: Request, summary: Summary, resumed: int, speed: str, stop: StopSignals) -> None:
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
    show_report(lines, sys.stdout if table else sys.stderr, blank_first=table and request.out is None)


def show_report(lines: list[str], stream: IO[str], blank_first: bool = False) -> None:
    """Write the report; after a SIGHUP the terminal may be gone, and the rows are what matter."""
    try:
        stream.write(("\n" if blank_first else "") + "".join(line + "\n" for line in lines))
        stream.flush()
    except OSError:
        pass
