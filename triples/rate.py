"""``triples rate``: rate a range of seeds in parallel: autoplay, the exact best, and win rates.

Each seed is dealt twice from the same shuffle, exactly as ``["new", id, seed, variant]`` deals
it: one table is played out by the strategy, the other goes to the exact search. Rows come out
in seed order whatever ``--jobs`` is, and only the ``ms`` column depends on the machine.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from statistics import NormalDist
from typing import IO, NamedTuple, NoReturn

import orjson
from tqdm import tqdm

from triples import search
from triples.cli import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK
from triples.config import DEFAULT_VARIANT, VARIANTS, Variant, variant_named
from triples.errors import TriplesError
from triples.shuffle import MAX_SEED, shuffled
from triples.strategy import DEFAULT_STRATEGY, STRATEGIES, Strategy, play_out, strategy_named
from triples.table import Table

PROG = "triples rate"
FORMATS = ("table", "jsonl", "csv")
MAX_BATCH = 100
# A batch per worker and a few queued behind it keeps both cores busy without letting the
# buffer of finished-but-not-yet-due batches grow with the range.
BATCHES_IN_FLIGHT_PER_JOB = 4
Z95 = NormalDist().inv_cdf(0.975)


class Row(NamedTuple):
    seed: int
    autoplay: int
    best: int
    gap: int
    won: bool
    states: int
    ms: float


COLUMNS: tuple[str, ...] = Row._fields


class BadInput(TriplesError):
    """A request ``triples rate`` refuses: reported in one line, exit status 2."""


# --- rating ---------------------------------------------------------------------------------


def rate_seed(variant: Variant, choose: Strategy, seed: int) -> Row:
    start = time.perf_counter()
    played = Table(variant, shuffled(variant.cards, seed))
    result = search.analyse(played)  # only reads the table, so the same deal is then played out
    play_out(played, choose)
    ms = (time.perf_counter() - start) * 1000.0
    return Row(
        seed=seed,
        autoplay=played.cleared,
        best=result.best,
        gap=result.best - played.cleared,
        won=result.best == variant.deck_size,
        states=result.states,
        ms=round(ms, 3),
    )


def rate_batch(variant_name: str, strategy_name: str, seeds: list[int]) -> list[Row]:
    """One task of the pool. Names rather than objects cross the process boundary."""
    variant = variant_named(variant_name)
    choose = strategy_named(strategy_name)
    return [rate_seed(variant, choose, seed) for seed in seeds]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; only the parent should act on it, so that it
    # can stop cleanly with every finished row already written.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def batch_size_for(count: int, jobs: int) -> int:
    """Small ranges are still spread over every worker; large ones use batches of MAX_BATCH."""
    return max(1, min(MAX_BATCH, math.ceil(count / (jobs * BATCHES_IN_FLIGHT_PER_JOB))))


def batches(seeds: Iterable[int], size: int) -> Iterator[list[int]]:
    it = iter(seeds)
    while batch := list(islice(it, size)):
        yield batch


def rate_seeds(
    variant: Variant, strategy_name: str, seeds: Iterable[int], jobs: int, batch_size: int = MAX_BATCH
) -> Iterator[list[Row]]:
    """Batches of rows, in the order of ``seeds``; ``jobs`` worker processes (1: in this process)."""
    strategy_named(strategy_name)  # an unknown name fails here, not inside a worker
    if jobs == 1:
        for batch in batches(seeds, batch_size):
            yield rate_batch(variant.name, strategy_name, batch)
        return
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_interrupts)
    try:
        # Futures wait in submission order: a batch that finishes early is held until its turn.
        pending: deque[Future[list[Row]]] = deque()
        for batch in batches(seeds, batch_size):
            pending.append(pool.submit(rate_batch, variant.name, strategy_name, batch))
            if len(pending) >= jobs * BATCHES_IN_FLIGHT_PER_JOB:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# --- statistics -----------------------------------------------------------------------------


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% with the default z)."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, got {successes}/{trials}")
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    # At 0 or all successes the bound is exact in theory; keep rounding from moving it.
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == trials else centre + half
    return low, high


def percent(fraction: float) -> str:
    value = 100.0 * fraction
    if 0 < value < 0.1:  # the upper bound of a rare event over many deals needs its digits
        return f"{value:.2g}%"
    return f"{value:.2f}%"


def rate_with_interval(successes: int, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{percent(successes / trials)} ({successes}/{trials}), 95% CI [{percent(low)}, {percent(high)}]"


HISTOGRAM_WIDTH = 40


@dataclass
class Summary:
    """Running totals over rows; nothing per row is kept, so a range of any length fits."""

    variant: Variant
    strategy: str
    deals: int = 0
    autoplay_total: int = 0
    best_total: int = 0
    best_wins: int = 0
    strategy_wins: int = 0
    best_counts: Counter[int] = field(default_factory=Counter)

    def add(self, row: Row) -> None:
        self.deals += 1
        self.autoplay_total += row.autoplay
        self.best_total += row.best
        self.best_wins += row.won
        self.strategy_wins += row.autoplay == self.variant.deck_size
        self.best_counts[row.best] += 1

    @property
    def mean_autoplay(self) -> float:
        return self.autoplay_total / self.deals

    @property
    def mean_best(self) -> float:
        return self.best_total / self.deals

    @property
    def mean_gap(self) -> float:
        return (self.best_total - self.autoplay_total) / self.deals

    def histogram_lines(self) -> list[str]:
        """One line per possible best from the lowest seen to the highest (cleared counts go in
        steps of a move's size), with a bar scaled to the most common value."""
        if not self.best_counts:
            return []
        low, high = min(self.best_counts), max(self.best_counts)
        values = sorted({*range(low, high + 1, self.variant.per_move), *self.best_counts})
        top = max(self.best_counts.values())
        width = len(str(high))
        lines = []
        for value in values:
            count = self.best_counts[value]
            bar = "#" * (math.ceil(HISTOGRAM_WIDTH * count / top) if count else 0)
            lines.append(f"  {value:>{width}} {bar:<{HISTOGRAM_WIDTH}} {count}")
        return lines

    def lines(self) -> list[str]:
        out = [f"deals: {self.deals}"]
        if not self.deals:
            return out
        out += [
            f"mean autoplay: {self.mean_autoplay:.3f}",
            f"mean best: {self.mean_best:.3f}",
            f"mean gap: {self.mean_gap:.3f}",
            f"win rate best: {rate_with_interval(self.best_wins, self.deals)}",
            f"win rate {self.strategy}: {rate_with_interval(self.strategy_wins, self.deals)}",
            "best histogram:",
            *self.histogram_lines(),
        ]
        return out


def speed_line(new_deals: int, seconds: float, jobs: int) -> str:
    if not new_deals:
        return "deals per second: - (no new deals)"
    rate = new_deals / seconds if seconds > 0 else float("inf")
    return f"deals per second: {rate:.1f} ({new_deals} new deals in {seconds:.2f} s, jobs {jobs})"


# --- row formats ----------------------------------------------------------------------------

TABLE_WIDTHS = {"autoplay": 8, "best": 4, "gap": 4, "won": 3, "states": 10, "ms": 9}


class RowFormat:
    """How rows are written and read back (for resuming) in one output format."""

    name = ""
    has_header = False

    def header(self) -> str:
        return ""

    def line(self, row: Row) -> str:
        raise NotImplementedError

    def parse(self, line: str) -> Row:
        """The row a line holds; ValueError when it holds none."""
        raise NotImplementedError

    def is_header(self, line: str) -> bool:
        return line == self.header()

    def could_begin_with(self, text: str) -> bool:
        """Whether ``text`` could be the start of a file this format wrote."""
        return self.header().startswith(text)


def _row_from_fields(fields: list[str], won_words: tuple[str, str]) -> Row:
    if len(fields) != len(COLUMNS) or fields[4] not in won_words:
        raise ValueError("not a row")
    seed, autoplay, best, gap, states = (int(fields[i]) for i in (0, 1, 2, 3, 5))
    return Row(seed, autoplay, best, gap, fields[4] == won_words[1], states, float(fields[6]))


class JsonLines(RowFormat):
    name = "jsonl"

    def could_begin_with(self, text: str) -> bool:
        opening = '{"seed":'
        return text.startswith(opening) or opening.startswith(text)

    def line(self, row: Row) -> str:
        return orjson.dumps(row._asdict()).decode()

    def parse(self, line: str) -> Row:
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise ValueError("not JSON") from None
        if not isinstance(data, dict) or tuple(data) != COLUMNS:
            raise ValueError("not a row")
        ints = [data[c] for c in ("seed", "autoplay", "best", "gap", "states")]
        if any(type(v) is not int for v in ints) or type(data["won"]) is not bool:
            raise ValueError("not a row")
        if type(data["ms"]) not in (int, float):
            raise ValueError("not a row")
        return Row(**data)


class Csv(RowFormat):
    name = "csv"
    has_header = True

    def header(self) -> str:
        return ",".join(COLUMNS)

    def line(self, row: Row) -> str:
        won = "true" if row.won else "false"
        return f"{row.seed},{row.autoplay},{row.best},{row.gap},{won},{row.states},{row.ms}"

    def parse(self, line: str) -> Row:
        return _row_from_fields(line.split(","), ("false", "true"))


class TextTable(RowFormat):
    name = "table"
    has_header = True

    def __init__(self, seed_width: int = 4) -> None:
        self.seed_width = max(4, seed_width)

    def header(self) -> str:
        return " ".join([f"{'seed':>{self.seed_width}}", *(f"{c:>{w}}" for c, w in TABLE_WIDTHS.items())])

    def line(self, row: Row) -> str:
        w = TABLE_WIDTHS
        return (
            f"{row.seed:>{self.seed_width}} {row.autoplay:>{w['autoplay']}} {row.best:>{w['best']}} "
            f"{row.gap:>{w['gap']}} {'yes' if row.won else 'no':>{w['won']}} {row.states:>{w['states']}} "
            f"{row.ms:>{w['ms']}.2f}"
        )

    def parse(self, line: str) -> Row:
        return _row_from_fields(line.split(), ("no", "yes"))

    def is_header(self, line: str) -> bool:
        return tuple(line.split()) == COLUMNS  # the seed column's width depends on the range

    def could_begin_with(self, text: str) -> bool:
        return " ".join(COLUMNS).startswith(" ".join(text.split()))


def row_format(name: str, last_seed: int) -> RowFormat:
    if name == "jsonl":
        return JsonLines()
    if name == "csv":
        return Csv()
    return TextTable(len(str(last_seed)))


# --- resuming -------------------------------------------------------------------------------


def read_done_rows(path: str, fmt: RowFormat) -> tuple[dict[int, Row], bool]:
    """The rows already in ``path`` by seed, and whether the file still needs its header.

    A run that was killed can leave a last line without its newline: once the rest of the file
    has been read as rows, that line is cut off (its seed is simply rated again). A file that is
    not rows of ``fmt`` is refused untouched, since appending to it would ruin it.
    """
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return {}, fmt.has_header
    refusal = f"--out {path} is not a file of {fmt.name} rows (is --format right?)"
    try:
        *lines, cut = data.decode().split("\n")
    except UnicodeDecodeError:
        raise BadInput(refusal) from None
    done: dict[int, Row] = {}
    for number, line in enumerate(lines, start=1):
        if number == 1 and fmt.has_header:
            if not fmt.is_header(line):
                raise BadInput(f"--out {path} line 1 is not the {fmt.name} header (is --format right?)")
            continue
        try:
            row = fmt.parse(line)
        except ValueError:
            raise BadInput(f"--out {path} line {number} is not a {fmt.name} row (is --format right?)") from None
        done.setdefault(row.seed, row)
    if cut:
        if not lines and not fmt.could_begin_with(cut):  # nothing shows the file is ours
            raise BadInput(refusal)
        with open(path, "r+b") as f:
            f.truncate(len(data) - len(cut.encode()))
    return done, fmt.has_header and not lines


# --- command line ---------------------------------------------------------------------------


def fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _argparse_error(message: str) -> NoReturn:
    # argparse's own report is a usage block plus a line; the contract is one line.
    sys.exit(fail(message))


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
    parser.error = _argparse_error  # type: ignore[method-assign]


@dataclass(frozen=True)
class Request:
    variant: Variant
    strategy: str
    first: int
    last: int
    jobs: int
    format: str
    out: str | None

    @property
    def seeds(self) -> range:
        return range(self.first, self.last + 1)


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


def parse_request(args: argparse.Namespace) -> Request:
    try:
        variant = variant_named(args.variant)
        strategy_named(args.strategy)
    except TriplesError as exc:
        raise BadInput(str(exc)) from None
    first, last = parse_seed_range(args.seeds)
    if args.jobs is None:
        jobs = os.cpu_count() or 1
    else:
        text = str(args.jobs).strip()
        if not (text.isdigit() and text.isascii() and int(text) > 0):
            raise BadInput(f"--jobs {args.jobs}: expected a positive integer")
        jobs = int(text)
    if args.format not in FORMATS:
        raise BadInput(f"--format {args.format}: expected one of {', '.join(FORMATS)}")
    return Request(variant, args.strategy, first, last, jobs, args.format, args.out)


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


def main(args: argparse.Namespace) -> int:
    try:
        request = parse_request(args)
        fmt = row_format(request.format, request.last)
        done: dict[int, Row] = {}
        needs_header = fmt.has_header
        if request.out is not None:
            done, needs_header = read_done_rows(request.out, fmt)
            sink: IO[str] = open(request.out, "a", encoding="utf-8")  # noqa: SIM115 (closed below)
        else:
            sink = sys.stdout
    except BadInput as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"--out {args.out}: {exc.strerror or exc}")
    try:
        return _rate(request, fmt, done, needs_header, sink)
    finally:
        if sink is not sys.stdout:
            sink.close()


def _rate(request: Request, fmt: RowFormat, done: dict[int, Row], needs_header: bool, sink: IO[str]) -> int:
    summary = Summary(request.variant, request.strategy)
    resumed = 0
    for seed in sorted(done):
        if request.first <= seed <= request.last:
            summary.add(done[seed])
            resumed += 1
    todo_count = request.last - request.first + 1 - resumed  # len() of a range past 2^63 overflows
    todo = (seed for seed in request.seeds if seed not in done) if resumed else iter(request.seeds)
    if needs_header:
        sink.write(fmt.header() + "\n")
    size = batch_size_for(todo_count, request.jobs)
    jobs = max(1, min(request.jobs, math.ceil(todo_count / size)))  # no idle workers to start
    bar = progress_bar(todo_count, f"{request.variant.name} {request.first}-{request.last}")
    start = time.perf_counter()
    interrupted = False
    try:
        for rows in rate_seeds(request.variant, request.strategy, todo, jobs, size):
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

    lines = [
        f"variant: {request.variant.name}",
        f"strategy: {request.strategy}",
        f"seeds: {request.first}-{request.last}",
        *summary.lines(),
    ]
    if resumed:
        lines.insert(3, f"resumed: {resumed} rows already in {request.out}")
    lines.append(speed_line(summary.deals - resumed, seconds, jobs))
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
    return EXIT_INTERRUPTED if interrupted else EXIT_OK
