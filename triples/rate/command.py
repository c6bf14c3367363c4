"""The ``triples rate`` command: its options, checking them, and the run from rows to summary."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import IO, NoReturn

from tqdm import tqdm

from triples.config import DEFAULT_VARIANT, VARIANTS, Variant, variant_named
from triples.errors import TriplesError
from triples.exits import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK
from triples.install import install_hint
from triples.rate import plots, stored
from triples.rate.columns import DIFFICULTY_COLUMNS, FAIR_COLUMNS, has_random_play_chance
from triples.rate.errors import BadInput, ClusterError
from triples.rate.executors import Executor, batch_size_for, batches, pool_of
from triples.rate.formats import FORMATS, RowFormat, read_done_rows, row_format
from triples.rate.rows import ANALYSES, CORE_COLUMNS, RECORD_COLUMNS, RateOptions, Row, rate_batch
from triples.rate.summary import Summary, speed_line
from triples.strategy import DEFAULT_STRATEGY, STRATEGIES, strategy_named

PROG = "triples rate"
MAX_SEED = (1 << 64) - 1
DEFAULT_SCHEDULER_TIMEOUT = 10
LOCAL = "local"


def fail(message: str, prog: str = PROG) -> int:
    print(f"{prog}: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def one_line_errors(parser: argparse.ArgumentParser, prog: str = PROG) -> None:
    """Make argparse's refusals one line and exit status 2: its own report is a usage block
    plus a line, and the contract is one line."""

    def error(message: str) -> NoReturn:
        sys.exit(fail(message, prog))

    parser.error = error  # type: ignore[method-assign]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples rate``; values are checked by ``main`` so that every refusal is
    one line and exit status 2."""
    variants, strategies = ", ".join(VARIANTS), ", ".join(STRATEGIES)
    parser.add_argument("--variant", default=DEFAULT_VARIANT, help=f"{variants} (default {DEFAULT_VARIANT})")
    parser.add_argument("--seeds", metavar="A-B", help="inclusive seed range, e.g. 1-1000 (required)")
    parser.add_argument("--strategy", default=DEFAULT_STRATEGY, help=f"{strategies} (default {DEFAULT_STRATEGY})")
    parser.add_argument("--jobs", metavar="N", help="worker processes (default: the core count)")
    parser.add_argument("--format", default="table", metavar="|".join(FORMATS), help="row format (default table)")
    parser.add_argument("--out", metavar="FILE", help="write rows to FILE, skipping seeds already in it")
    parser.add_argument(
        "--fair", action="store_true", help="add the cards the fair strategy clears (it cannot see the stock; slow)"
    )
    parser.add_argument(
        "--difficulty",
        action="store_true",
        help="add p_random (the chance that random moves reach best) and the band easy|medium|hard (implies --fair)",
    )
    parser.add_argument("--plot", metavar="FILE", help=plots.PLOT_HELP)
    parser.add_argument("--db", metavar="FILE", help=stored.DB_HELP)
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="rate on the Dask cluster of this scheduler (tcp://host:8786), or on a local cluster "
        "of N worker processes (local:N; local: the core count); needs the cluster extra",
    )
    parser.add_argument(
        "--scheduler-timeout",
        metavar="S",
        default=str(DEFAULT_SCHEDULER_TIMEOUT),
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
    scheduler: str | None = None
    local_workers: int | None = None  # with --scheduler local[:N]: start a LocalCluster of this many
    scheduler_timeout: float = DEFAULT_SCHEDULER_TIMEOUT
    extra_columns: tuple[str, ...] = ()  # opt-in columns asked for (--fair, --difficulty)
    plot: str | None = None

    @property
    def seeds(self) -> range:
        return range(self.first, self.last + 1)

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns of a new file."""
        return (CORE_COLUMNS if self.format == "table" else RECORD_COLUMNS) + self.extra_columns


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


def check_file_columns(request: Request, fmt: RowFormat) -> None:
    """A resumed --out file must hold every column asked for: its rows cannot gain one."""
    missing = [name for name in request.extra_columns if name not in fmt.columns]
    if missing:
        option = "--difficulty" if any(name in DIFFICULTY_COLUMNS[1:] for name in missing) else "--fair"
        raise BadInput(
            f"--out {request.out} has no {', '.join(missing)} column (it was started without {option}): use a new file"
        )


def parse_seed_range(text: str | None) -> tuple[int, int]:
    if text is None:
        raise BadInput("--seeds A-B is required")
    parts = text.strip().split("-")
    if parts and parts[0] == "" and len(parts) > 1:  # a leading minus sign
        raise BadInput(f"--seeds {text}: seeds must be integers from 0 to {MAX_SEED}")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() and p.isascii() for p in parts):
        raise BadInput(f"--seeds {text}: expected a range A-B of seeds, like 1-1000")
    first, last = int(parts[0]), int(parts[-1])
    if last > MAX_SEED:
        raise BadInput(f"--seeds {text}: seeds must be integers from 0 to {MAX_SEED}")
    if first > last:
        raise BadInput(f"--seeds {text}: the range is empty (A must not exceed B)")
    return first, last


def positive_integer(option: str, value: object) -> int:
    text = str(value).strip()
    if not (text.isdigit() and text.isascii() and int(text) > 0):
        raise BadInput(f"{option} {value}: expected a positive integer")
    return int(text)


def parse_request(args: argparse.Namespace) -> Request:
    try:
        variant = variant_named(args.variant)
        strategy_named(args.strategy)
    except TriplesError as exc:
        raise BadInput(str(exc)) from None
    first, last = parse_seed_range(args.seeds)
    jobs = (os.cpu_count() or 1) if args.jobs is None else positive_integer("--jobs", args.jobs)
    if args.format not in FORMATS:
        raise BadInput(f"--format {args.format}: expected one of {', '.join(FORMATS)}")
    if args.scheduler is not None and args.jobs is not None:
        raise BadInput("--jobs is the process pool's size: with --scheduler, the cluster's workers do the work")
    local = None if args.scheduler is None else local_workers(args.scheduler)
    timeout = positive_number("--scheduler-timeout", args.scheduler_timeout)
    extra = extra_columns_for(variant, args.fair, args.difficulty)
    plot = None if args.plot is None else plots.checked_plot_path(args.plot)
    return Request(
        variant, args.strategy, first, last, jobs, args.format, args.out, args.scheduler, local, timeout, extra, plot
    )


def local_workers(scheduler: str) -> int | None:
    """The worker count of ``local`` (the core count) or ``local:N``; None for an address."""
    if scheduler == LOCAL:
        return os.cpu_count() or 1
    head, colon, count = scheduler.partition(":")
    if head != LOCAL or not colon:
        return None
    if not (count.isdigit() and count.isascii() and int(count) > 0):
        raise BadInput(f"--scheduler {scheduler}: expected {LOCAL}:N with N a positive integer")
    return int(count)


def positive_number(option: str, value: object) -> float:
    try:
        number = float(str(value))
    except ValueError:
        number = math.nan
    if not (number > 0 and math.isfinite(number)):
        raise BadInput(f"{option} {value}: expected a positive number of seconds")
    return number


@contextmanager
def executor_for(request: Request, todo_count: int) -> Iterator[tuple[Executor, int]]:
    """The executor to rate ``todo_count`` seeds on, and the batch size to give it."""
    if request.scheduler is None or todo_count == 0:  # nothing to rate: no cluster to start
        size = batch_size_for(todo_count, request.jobs)
        jobs = max(1, min(request.jobs, math.ceil(todo_count / size)))  # no idle workers to start
        yield pool_of(jobs), size
        return
    try:
        from triples.rate import cluster  # Dask, loaded only for a cluster
    except ImportError:
        raise BadInput(f"--scheduler needs Dask: {install_hint('cluster')}") from None
    with cluster.connect(request.scheduler, request.local_workers, request.scheduler_timeout) as executor:
        size = batch_size_for(todo_count, executor.workers)
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


def resume_from(request: Request) -> tuple[RowFormat, dict[int, Row], bool]:
    """The row format, the rows ``--out`` already holds by seed (none without ``--out``), and
    whether a header is still to be written: a file keeps the format and columns it began with."""
    fmt = row_format(request.format, request.columns, request.last)
    if request.out is None:
        return fmt, {}, fmt.has_header
    done, fmt, needs_header = read_done_rows(request.out, fmt)
    check_file_columns(request, fmt)
    return fmt, done, needs_header


def main(args: argparse.Namespace) -> int:
    try:
        request = parse_request(args)
        fmt, done, needs_header = resume_from(request)
        resumed = [done[seed] for seed in sorted(done) if request.first <= seed <= request.last]
        todo_count = request.last - request.first + 1 - len(resumed)  # len() of a range past 2^63 overflows
        options = RateOptions(request.variant.name, request.strategy, request.extra_columns)
        with (
            stored.opened(args.db) as store,
            executor_for(request, stored.to_rate(store, options, request.first, request.last, todo_count)) as (
                executor,
                size,
            ),
            open_sink(request.out) as sink,
        ):
            executor = stored.backed(executor, store)
            if needs_header:
                sink.write(fmt.header() + "\n")
            todo = (seed for seed in request.seeds if seed not in done) if resumed else iter(request.seeds)
            status = rate(request, fmt, resumed, (todo_count, batches(todo, size)), executor, sink)
            stored.report(executor)
            return status
    except (BadInput, ClusterError) as exc:
        return fail(str(exc))


@contextmanager
def open_sink(out: str | None) -> Iterator[IO[str]]:
    """Where rows go: stdout, or appended to ``out``."""
    if out is None:
        yield sys.stdout
        return
    try:
        sink = open(out, "a", encoding="utf-8")  # noqa: SIM115 (a refusal to open is the user's to see)
    except OSError as exc:
        raise BadInput(f"--out {out}: {exc.strerror or exc}") from None
    with sink:
        yield sink


def rate(
    request: Request,
    fmt: RowFormat,
    resumed: list[Row],
    todo: tuple[int, Iterator[list[int]]],
    executor: Executor,
    sink: IO[str],
) -> int:
    """Rate the batches of ``todo`` (a count of seeds and their batches), write their rows, and
    report; Ctrl-C stops the rating but not the report."""
    summary = Summary(request.variant, request.strategy)
    for row in resumed:
        summary.add(row)
    count, todo_batches = todo
    analyses = tuple(column for column in fmt.columns if column in ANALYSES)  # what the file's columns call for
    options = RateOptions(request.variant.name, request.strategy, analyses)
    bar = progress_bar(count, f"{request.variant.name} {request.first}-{request.last}")
    start = time.perf_counter()
    interrupted = False
    try:
        for rows in executor.rate(partial(rate_batch, options), todo_batches):
            write_rows(sink, [fmt.line(row) for row in rows], bar)
            for row in rows:
                summary.add(row)
            if bar is not None:
                bar.update(len(rows))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    sink.flush()
    speed = speed_line(summary.deals - len(resumed), seconds, executor.label)
    report(request, summary, len(resumed), speed, interrupted)
    if request.plot is not None and summary.deals:
        plots.write_plot(request.plot, summary, f"seeds {request.first}-{request.last}")
    return EXIT_INTERRUPTED if interrupted else EXIT_OK


def report(request: Request, summary: Summary, resumed: int, speed: str, interrupted: bool) -> None:
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
    if interrupted:
        lines.append(
            f"interrupted: {request.out} holds every finished row; the same command goes on from there"
            if request.out is not None
            else "interrupted"
        )
    if request.format == "table":
        if request.out is None:
            sys.stdout.write("\n")
        sys.stdout.write("".join(line + "\n" for line in lines))
        sys.stdout.flush()
    else:
        sys.stderr.write("".join(line + "\n" for line in lines))
