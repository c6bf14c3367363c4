"""What every rating command shares (``rate``, ``pick``, ``sweep``, ``calendar``): reading the
common options into a ``Request``, the options themselves, and ``rating_run``, the one block
that opens the store, notes stop signals, starts the executor and opens where rows go.

A command is then its own options, its own loop over the rows, and its own report. Refusals
are ``BadInput`` (one line, exit status 2), reported by the command line like any other
command's; a stop signal while a cluster is still starting ends the process at once (Dask
would spend seconds closing what it had begun).
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from typing import IO, NoReturn

from tqdm import tqdm

from triples.doors.kit import options
from triples.doors.kit.exits import BadInput
from triples.doors.kit.install import install_hint
from triples.doors.kit.rows_file import FORMATS, RowsFile
from triples.doors.kit.variant_option import variant_help, variant_of
from triples.doors.rating import plots, store_backed
from triples.doors.rating.executors import Executor, batch_size_for, pool_of
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.resume import RowsRecord, check_resume, open_for_append
from triples.doors.rating.rows import (
    CORE_COLUMNS,
    DIFFICULTY_COLUMNS,
    FAIR_COLUMNS,
    Provenance,
    RateOptions,
    Row,
    analyses_name,
    installed_version,
    rate_format,
    record_columns,
)
from triples.doors.rating.seed_rows import has_random_play_chance
from triples.engines.strategies import DEFAULT_STRATEGY, STRATEGIES, strategy_named
from triples.model.variant import Variant
from triples.model.variants import DEFAULT_VARIANT
from triples.store import Store
from triples.support.errors import TriplesError

DEFAULT_SCHEDULER_TIMEOUT = 10
SEEDS_HELP = f"inclusive seed range, e.g. 1-1000, seeds from 0 to {options.MAX_SEED} (required)"


# ---------------------------------------------------------------- the options


def add_variant_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help=variant_help(DEFAULT_VARIANT))


def add_seeds_option(parser: argparse.ArgumentParser, help: str = SEEDS_HELP, **given: object) -> None:
    parser.add_argument("--seeds", metavar="A-B", type=options.seed_range, help=help, **given)  # type: ignore[arg-type]


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", metavar="N", type=options.jobs, help="worker processes (default: the core count)")


def add_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", default="table", choices=FORMATS, help="row format (default table)")


def add_db_option(parser: argparse.ArgumentParser, help: str = store_backed.DB_HELP) -> None:
    parser.add_argument("--db", metavar="DB", help=help)


def add_scheduler_options(parser: argparse.ArgumentParser) -> None:
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


def add_rate_options(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples rate``, which ``triples sweep`` shares."""
    strategies = ", ".join(STRATEGIES)
    add_variant_option(parser)
    add_seeds_option(parser, required=True)
    parser.add_argument("--strategy", default=DEFAULT_STRATEGY, help=f"{strategies} (default {DEFAULT_STRATEGY})")
    add_jobs_option(parser)
    add_format_option(parser)
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
        help="add p_random (the chance that random moves reach best; - when past the state limit) "
        "and the band easy|medium|hard (implies --fair)",
    )
    parser.add_argument("--plot", metavar="FILE", help=plots.PLOT_HELP)
    add_db_option(parser)
    add_scheduler_options(parser)


# ---------------------------------------------------------------- the request


@dataclass(frozen=True)
class Request:
    """What a rating command was asked: which deals, rated how, run where, written how."""

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
    def rate_options(self) -> RateOptions:
        return RateOptions(self.variant.name, self.strategy, self.extra_columns)

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


def request_of(args: argparse.Namespace) -> Request:
    """The request of ``rate``'s options (``sweep`` shares them)."""
    variant = variant_of(args.variant)
    try:
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


# ---------------------------------------------------------------- rows already written


def resume_from(request: Request) -> RowsRecord:
    """What ``--out`` holds (nothing without ``--out``): refused unless made as this run makes
    rows; the file is not changed here."""
    fmt = rate_format(request.format, request.columns, request.last)
    if request.out is None:
        return RowsRecord(RowsFile("", fmt, needs_header=fmt.has_header))
    return check_resume(request.out, request.provenance, fmt, request.columns)


def resumed_rows(request: Request, record: RowsRecord, last: int | None = None) -> list[Row]:
    """The rows of ``record`` in the range (up to ``last``), in seed order."""
    end = request.last if last is None else last
    return [record.rows[seed] for seed in sorted(record.rows) if request.first <= seed <= end]


# ---------------------------------------------------------------- the run


@dataclass
class RatingRun:
    """What a rating command works with once ``rating_run`` has set it up."""

    store: Store | None
    signals: StopSignals
    executor: Executor  # looks rows up in the store first, with --db
    batch_size: int
    sink: IO[str]  # where rows go: stdout, or the --out file


@contextmanager
def rating_run(
    prog: str, request: Request, db: str | None, seeds_left: range, resumed: frozenset[int], sink: RowsRecord | None
) -> Iterator[RatingRun]:
    """The store of ``db``, the stop signals, an executor sized for the seeds still to rate
    (``seeds_left`` but ``resumed`` ones and, with a store, stored ones), and the rows' sink:
    ``sink``'s file, or stdout when it is None or has no path. The store's line is reported at
    the end."""
    try:
        with ExitStack() as stack:
            store = stack.enter_context(store_backed.opened(db))
            signals = stack.enter_context(StopSignals())
            todo = store_backed.to_rate(store, request.rate_options, seeds_left, resumed)
            executor, size = stack.enter_context(executor_for(request, todo, signals))
            out = stack.enter_context(open_sink(sink))
            run = RatingRun(store, signals, store_backed.backed(executor, store), size, out)
            yield run
            store_backed.report(run.executor)
    except Stop as stopped:  # while the cluster was starting: no seed was rated
        stopped_before_rating(stopped, prog)


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


@contextmanager
def open_sink(record: RowsRecord | None) -> Iterator[IO[str]]:
    """Where rows go: stdout, or appended to the record's file."""
    if record is None or not record.path:
        yield sys.stdout
        return
    with open_for_append(record.file) as sink:
        yield sink


def stopped_before_rating(stopped: Stop, prog: str) -> NoReturn:
    """End the process now: Dask, stopped halfway through starting a cluster, would spend
    seconds at exit closing what it had begun (its worker processes exit with this one)."""
    name = signal.Signals(stopped.signum).name
    show_report([f"{prog}: interrupted ({name}) while the cluster was starting: no seed was rated"], sys.stderr)
    with suppress(OSError, ValueError):
        sys.stdout.flush()
    os._exit(128 + stopped.signum)


# ---------------------------------------------------------------- showing progress and results


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


def show_report(lines: list[str], stream: IO[str], blank_first: bool = False) -> None:
    """Write the report; after a SIGHUP the terminal may be gone, and the rows are what matter."""
    try:
        stream.write(("\n" if blank_first else "") + "".join(line + "\n" for line in lines))
        stream.flush()
    except OSError:
        pass
