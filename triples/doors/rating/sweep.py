"""``triples sweep``: rate the same seeds under every combination of varied rule fields.

``--vary FIELD=VALUES`` (``a..b`` inclusive, or a comma list; court values ``J/Q/K``) may be
given several times; the rule sets are the cartesian product, the first ``--vary`` outermost,
each laid over the ``--variant`` base. Each rule set is rated exactly as ``triples rate`` rates
that variant on those seeds (the same rows, executors and options), and summed up into one row
(triples.doors.rating.sweep_rows). ``--out`` resumes by rule set: a rule set whose row is in the file is
not rated again, and one cut short by Ctrl-C is rated again from its first seed.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import IO

from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.rows_file import Column, RowsFile, RowsFormat, format_named, open_for_append
from triples.doors.rating import plots, runs
from triples.doors.rating.executors import Executor, batches
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.rows import DIFFICULTY_COLUMNS, FAIR_COLUMNS, RateOptions
from triples.doors.rating.summary import Summary, speed_line
from triples.doors.rating.sweep_rows import (
    MEASURES,
    TEXT_FIELDS,
    SweepRecord,
    SweepRow,
    check_same_run,
    columns_for,
    read_done,
    sweep_row,
)
from triples.model.variant import Variant
from triples.model.variants import FIELDS, fields_of, parse_variant, value_of_text
from triples.support.errors import TriplesError

# Shown by ``triples sweep --help`` (the command line finds them here by the module's name).
DESCRIPTION = """\
Sweep rules: rate the same seeds under every combination of the --vary values laid over the
--variant base (the first --vary outermost), one row per rule set with its canonical name,
mean best, win rates with 95% Wilson intervals, and with --fair/--difficulty the fair player
and the bands. Each row is what triples rate reports for that variant and those seeds."""
EXAMPLE = """\
examples:
  triples sweep --variant classic --vary target=18..22 --vary slots=9..11 --seeds 1-1000 --plot sweep.png
  triples sweep --variant sum15 --vary per_move=2,3 --seeds 1-500 --difficulty --plot hard.png --measure hard
  triples sweep --variant '{"base": "pairs", "suits": 2}' --vary court=10/10/10,11/12/13 --seeds 1-200 \\
      --format csv --out pairs.csv"""

PROG = "triples sweep"
DEFAULT_MEASURE = "win_best"
VARY_EXAMPLE = "like target=18..22, deck=standard,numeric or court=10/10/10,11/12/13"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """rate's options, then the sweep's own; values are checked by ``main`` (one line, exit 2)."""
    runs.add_rate_options(parser)
    options = parser._option_string_actions  # rate's help, reworded where the sweep differs
    options["--variant"].help = "the base the varied fields are laid over: " + str(options["--variant"].help)
    options["--out"].help = "write rows to FILE, skipping rule sets already in it"
    options["--plot"].help = (
        "draw --measure into FILE (.png or .svg; needs the plot extra): a heatmap over two varied fields, "
        "a line over one"
    )
    parser.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="FIELD=VALUES",
        help=f"a field and its values, a..b or a comma list ({', '.join(FIELDS)}); repeatable, the first outermost",
    )
    parser.add_argument(
        "--measure",
        metavar="M",
        help=f"what --plot draws: {', '.join(MEASURES)} (default {DEFAULT_MEASURE})",
    )


@dataclass(frozen=True)
class Vary:
    field: str
    values: tuple[object, ...]  # as a variant object holds them: integers, a deck word, a court list
    text: str  # as given, for the report


@dataclass(frozen=True)
class RuleSet:
    varied: dict[str, object]
    variant: Variant


@dataclass(frozen=True)
class Sweep:
    request: runs.Request  # rate's request for the base: seeds, strategy, executors, format, --out
    varies: tuple[Vary, ...]
    rule_sets: tuple[RuleSet, ...]
    columns: tuple[Column, ...]
    plot: str | None
    measure: str

    @property
    def seeds_text(self) -> str:
        return f"{self.request.first}-{self.request.last}"

    @property
    def base_name(self) -> str:
        return self.request.variant.name

    @property
    def strategy(self) -> str:
        return self.request.strategy


def parse_vary(text: str) -> Vary:
    name, equals, listed = (part.strip() for part in text.partition("="))
    if not equals or not listed:
        raise BadInput(f"--vary {text}: expected FIELD=VALUES, {VARY_EXAMPLE}")
    if name not in FIELDS:
        raise BadInput(f"--vary {text}: unknown field '{name}' (fields: {', '.join(FIELDS)})")
    values: list[object]
    if ".." in listed:
        low, _, high = (part.strip() for part in listed.partition(".."))
        first, last = value_of_text(name, low), value_of_text(name, high)
        if name in TEXT_FIELDS or not isinstance(first, int) or not isinstance(last, int):
            raise BadInput(f"--vary {text}: a range a..b is of integers, {VARY_EXAMPLE}")
        if first > last:
            raise BadInput(f"--vary {text}: the range is empty (a must not exceed b)")
        values = list(range(first, last + 1))
    else:
        parts = [part.strip() for part in listed.split(",")]
        if not all(parts):
            raise BadInput(f"--vary {text}: a value is missing, {VARY_EXAMPLE}")
        values = [value_of_text(name, part) for part in parts]
    if len({str(value) for value in values}) < len(values):
        raise BadInput(f"--vary {text}: a value is listed twice")
    return Vary(name, tuple(values), text)


def rule_sets_of(base: Variant, varies: tuple[Vary, ...], fair: bool, difficulty: bool) -> tuple[RuleSet, ...]:
    """Every combination of the varied values over the base, the first --vary outermost; each
    is checked as a variant object is, and for the columns asked for, before anything is rated."""
    over = fields_of(base)
    found = []
    for values in itertools.product(*(vary.values for vary in varies)):
        varied = {vary.field: value for vary, value in zip(varies, values, strict=True)}
        label = ", ".join(f"{field}={value_text(value)}" for field, value in varied.items())
        try:
            variant = parse_variant({**over, **varied})
        except TriplesError as exc:
            raise BadInput(f"rule set {label}: {exc}") from None
        runs.extra_columns_for(variant, fair, difficulty)
        found.append(RuleSet(varied, variant))
    return tuple(found)


def value_text(value: object) -> str:
    return "/".join(map(str, value)) if isinstance(value, list) else str(value)


def parse_sweep(args: argparse.Namespace) -> Sweep:
    # rate's checks of the shared options; --fair and --difficulty are checked on each rule set
    # (the base alone may be out of reach where the rule sets are not, or the other way round).
    shared = {**vars(args), "plot": None, "fair": False, "difficulty": False}
    request = runs.request_of(argparse.Namespace(**shared))
    if not args.vary:
        raise BadInput(f"--vary FIELD=VALUES is required, {VARY_EXAMPLE}")
    varies = tuple(parse_vary(text) for text in args.vary)
    fields = [vary.field for vary in varies]
    repeated = sorted({field for field in fields if fields.count(field) > 1})
    if repeated:
        raise BadInput(f"--vary: {repeated[0]} is varied twice (list all its values in one --vary)")
    rule_sets = rule_sets_of(request.variant, varies, args.fair, args.difficulty)
    extra = DIFFICULTY_COLUMNS if args.difficulty else FAIR_COLUMNS if args.fair else ()
    request = replace(request, extra_columns=extra)
    name_width = max(len(rule_set.variant.name) for rule_set in rule_sets)
    columns = columns_for(tuple(fields), args.fair, args.difficulty, name_width)
    measure = checked_measure(args, {column.name for column in columns}, len(varies))
    plot = None if args.plot is None else plots.checked_plot_path(args.plot)
    return Sweep(request, varies, rule_sets, columns, plot, measure)


def checked_measure(args: argparse.Namespace, columns: set[str], varied: int) -> str:
    measure = DEFAULT_MEASURE if args.measure is None else args.measure
    if args.measure is not None and args.plot is None:
        raise BadInput("--measure chooses what --plot draws: give --plot FILE too")
    if measure not in MEASURES:
        raise BadInput(f"--measure {measure}: expected one of {', '.join(MEASURES)}")
    if measure not in columns:
        option = "--fair" if measure.endswith("fair") else "--difficulty"
        raise BadInput(f"--measure {measure} needs {option}")
    if args.plot is not None and varied > 2:
        raise BadInput(f"--plot draws one or two varied fields, and this sweep varies {varied}")
    return measure


def main(args: argparse.Namespace) -> int:
    sweep = parse_sweep(args)
    request = sweep.request
    fmt = format_named(request.format, sweep.columns)
    record = SweepRecord({}, RowsFile("", fmt, needs_header=fmt.has_header))
    if request.out is not None:
        record = read_done(request.out, fmt)
        check_same_run(request.out, record.rows, request.strategy, sweep.seeds_text)
    todo = [rule_set for rule_set in sweep.rule_sets if rule_set.variant.name not in record.rows]
    # Each rule set is rated on its own, so the executor is sized for one rule set's seeds; with
    # --db, each rule set's stored rows are looked up as its batches come.
    seeds = request.seeds if todo else range(0)
    with runs.rating_run(PROG, request, args.db, seeds, frozenset(), None) as run, open_out(record.file) as sink:
        if record.file.needs_header:
            sink.write(fmt.header() + "\n")
        return sweep_all(sweep, fmt, dict(record.rows), todo, run, sink)


@contextmanager
def open_out(file: RowsFile) -> Iterator[IO[str]]:
    """Where rows go: stdout, or appended to the --out file (a last line a killed sweep left
    unfinished is cut away first)."""
    if not file.path:
        yield sys.stdout
        return
    with open_for_append(file) as sink:
        yield sink


def rated(
    sweep: Sweep, rule_set: RuleSet, executor: Executor, size: int, stop: StopSignals
) -> Iterator[tuple[int, Summary | None]]:
    """Rate one rule set as ``triples rate`` would: the count of each batch of rows as it comes,
    then the summary of them all (None when a stop signal cut the rule set short)."""
    request = sweep.request
    summary = Summary(rule_set.variant, request.strategy)
    options = RateOptions(rule_set.variant.name, request.strategy, request.extra_columns)
    for rows in executor.rate(options, batches(iter(request.seeds), size), stop):
        for row in rows:
            summary.add(row)
        yield len(rows), None
    yield 0, None if stop.stopped else summary


def sweep_all(
    sweep: Sweep,
    fmt: RowsFormat,
    done: dict[str, SweepRow],
    todo: list[RuleSet],
    run: runs.RatingRun,
    sink: IO[str],
) -> int:
    """Rate the rule sets still to do, writing each one's row as it is finished; a stop signal
    stops the rating (the rule set under way is dropped) but not the report and the plot."""
    executor, size, stop = run.executor, run.batch_size, run.signals
    request = sweep.request
    rows = dict(done)
    bar = runs.progress_bar(len(todo) * (request.last - request.first + 1), f"sweep {sweep.seeds_text}")
    new_deals = 0
    start = time.perf_counter()
    try:
        for rule_set in todo:
            for count, summary in rated(sweep, rule_set, executor, size, stop):
                new_deals += count
                if bar is not None:
                    bar.update(count)
                if summary is not None:
                    row = sweep_row(rule_set.varied, rule_set.variant, summary, sweep.seeds_text, sweep.columns)
                    runs.write_rows(sink, [fmt.line(row)], bar)
                    rows[rule_set.variant.name] = row
            if stop.stopped:
                break
    except Stop:
        pass
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    sink.flush()
    finished = [rows[r.variant.name] for r in sweep.rule_sets if r.variant.name in rows]
    report(sweep, len(finished), len(done), speed_line(new_deals, seconds, executor.label), stop)
    if sweep.plot is not None and finished and not stop.stopped:
        from triples.doors.rating import sweep_plots

        sweep_plots.write_sweep_plot(sweep.plot, sweep, finished)
    return stop.exit_status if stop.stopped else EXIT_OK


def report(sweep: Sweep, finished: int, resumed: int, speed: str, stop: StopSignals) -> None:
    """The summary: after the rows on stdout for a table, else on stderr."""
    request = sweep.request
    lines = [
        f"base: {request.variant.name}",
        f"varied: {'; '.join(vary.text for vary in sweep.varies)}",
        f"strategy: {request.strategy}",
        f"seeds: {sweep.seeds_text}",
        f"rule sets: {finished} of {len(sweep.rule_sets)}",
    ]
    if resumed:
        lines.append(f"resumed: {resumed} rule sets already in {request.out}")
    lines.append(speed)
    if stop.stopped:
        lines.append(
            f"interrupted ({stop.name}): {request.out} holds every finished rule set; the same command goes on"
            if request.out is not None
            else f"interrupted ({stop.name})"
        )
    table = request.format == "table"
    runs.show_report(lines, sys.stdout if table else sys.stderr, blank_first=table and request.out is None)
