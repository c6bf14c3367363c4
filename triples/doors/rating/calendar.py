"""``triples calendar``: one deal a day, by a pattern of difficulty bands, kept in the store.

Each date of the span gets its band from the pattern (seven bands: by weekday, Monday first;
any other number: in turn from the start date), then the lowest seed of the range whose deal
is of that band (and clears at least ``--min-best``) that the variant's calendar does not use
yet. Seeds are rated as ``pick`` rates them (the ``high`` strategy with fair, p_random and
band), in seed order and only as far as needed; rows the store holds are looked up.

The calendar lives in the store (``--db``): a date once set is never changed, so running the
command again, or for a span that overlaps, only fills the dates still empty. Dates are filled
in order and filling stops at the first date whose band the range has run out of, so a
calendar never has a hole before a published day. Without ``--db`` the calendar is worked out
in a store in memory and nothing is kept.

Exit status 0 when every date has a deal; 1 when the range ran out of deals of a band (the
dates filled so far are kept and printed); 2 for bad input; 130 when interrupted (the dates
filled by then are kept and printed).
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import math
import sys
from collections import Counter
from collections.abc import Generator, Mapping
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import orjson

from triples.doors.kit import options
from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.variant_option import variant_of
from triples.doors.rating import runs, secret, store_backed
from triples.doors.rating.executors import batches
from triples.doors.rating.interrupts import Stop, StopSignals
from triples.doors.rating.pick import PICK_BATCH, STRATEGY, check_band_possible
from triples.doors.rating.rows import BAND, DIFFICULTY_COLUMNS, FAIR, P_RANDOM, Row
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant
from triples.store import Deal, Store

# Shown by ``triples calendar --help`` (the command line finds them here by the module's name).
DESCRIPTION = """\
Give each date from --start a deal: the date's band comes from --pattern (seven bands are
Monday to Sunday; any other number repeats from the start date), and its deal is the lowest
seed of --seeds of that band that the variant's calendar does not use yet. The calendar is
kept in the --db store: dates already set never change, so running again only fills new ones."""
EXAMPLE = """\
exit status: 0 every date has a deal, 1 the range ran out of a band (the dates filled
so far are kept), 2 bad input

examples:
  triples calendar --start 2026-01-05 --days 14 --pattern easy,easy,medium,easy,medium,easy,hard
  triples calendar --variant sum15 --db season.db --start 2026-01-05 --days 91 \\
      --pattern easy,easy,medium,easy,medium,medium,hard --seeds 1-5000 --format csv
  triples calendar --secret --db game.db --start 2026-01-05 --days 28 --pattern easy,medium,hard"""

PROG = "triples calendar"
DEFAULT_SEEDS = "1-10000"
EXIT_RAN_OUT = 1

ROW_COLUMNS = ("date", "variant", "seed", "band", "best", "fair", "p_random")
IN_MEMORY = ":memory:"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``triples calendar``; values are checked by ``main`` (one line, exit 2)."""
    runs.add_variant_option(parser)
    parser.add_argument("--start", metavar="YYYY-MM-DD", required=True, help="the first date (required)")
    parser.add_argument(
        "--days", metavar="N", type=options.positive_int, required=True, help="how many dates from --start (required)"
    )
    parser.add_argument(
        "--pattern",
        metavar="BANDS",
        help="comma list of easy, medium, hard: seven are Monday to Sunday; any other number "
        "repeats from the start date (required, but for --list)",
    )
    runs.add_seeds_option(parser, help=f"seeds to draw from, lowest first (default {DEFAULT_SEEDS})")
    parser.add_argument(
        "--min-best",
        metavar="K",
        type=options.non_negative_int,
        help="only deals where best play clears at least K cards (default: a quarter of the deck, rounded up)",
    )
    parser.add_argument(
        "--secret",
        action="store_true",
        help="the players' calendar: decks drawn at random and kept secret, not seeds (docs/players.md)",
    )
    runs.add_db_option(parser, "the store that keeps the calendar and the ratings (without it nothing is kept)")
    runs.add_format_option(parser)
    runs.add_jobs_option(parser)
    parser.add_argument(
        "--list",
        action="store_true",
        help="show the days of the span kept in --db, with their tables, and fill nothing",
    )


@dataclass(frozen=True)
class Plan:
    variant: Variant
    spec: Any  # the variant as `new` takes it
    dates: list[date]
    pattern: tuple[str, ...]
    first: int
    last: int
    min_best: int
    jobs: int
    format: str
    db: str | None

    def band_of(self, day: date) -> str:
        if len(self.pattern) == 7:
            return self.pattern[day.weekday()]
        return self.pattern[(day - self.dates[0]).days % len(self.pattern)]

    def accepts(self, row: Row) -> bool:
        # A deal whose p_random is unknown (past the state limit) is not published: every day
        # shows its chance for random play.
        return row.best >= self.min_best and row.value(P_RANDOM) is not None


def parse_span(args: argparse.Namespace) -> list[date]:
    """The dates of ``--start`` and ``--days``."""
    start = options.day_of("--start", args.start)
    days: int = args.days
    try:
        return [start + timedelta(days=offset) for offset in range(days)]
    except OverflowError:
        raise BadInput(f"--days {days}: the span ends past the year 9999") from None


def parse_pattern(text: str) -> tuple[str, ...]:
    bands = tuple(part.strip() for part in text.split(","))
    wrong = [band for band in bands if band not in BANDS]
    if wrong:
        raise BadInput(f"--pattern {text}: '{wrong[0]}' is not a band (expected {', '.join(BANDS)})")
    return bands


def parse_plan(args: argparse.Namespace) -> Plan:
    variant = variant_of(args.variant)
    dates = parse_span(args)
    if args.pattern is None:
        raise BadInput("the following arguments are required: --pattern (all but --list need it)")
    pattern = parse_pattern(args.pattern)
    for band in sorted(set(pattern), key=BANDS.index):
        check_band_possible(variant, band)
    if getattr(args, "secret", False) and args.seeds is not None:
        raise BadInput("--seeds: a secret calendar draws its decks at random, from no seed")
    seeds: options.SeedRange = options.seed_range(DEFAULT_SEEDS) if args.seeds is None else args.seeds
    min_best: int = default_min_best(variant) if args.min_best is None else args.min_best
    if min_best > variant.deck_size:
        raise BadInput(f"--min-best {min_best}: {variant.name} has only {variant.deck_size} cards")
    jobs = options.core_count() if args.jobs is None else args.jobs
    # `new` takes the canonical name as the variant, rules of one's own included
    return Plan(variant, variant.name, dates, pattern, seeds.first, seeds.last, min_best, jobs, args.format, args.db)


def default_min_best(variant: Variant) -> int:
    """So that no published day clears only a move or two: a quarter of the deck, rounded up."""
    return math.ceil(variant.deck_size / 4)


def main(args: argparse.Namespace) -> int:
    if args.list:
        from triples.doors.rating.calendar_list import list_days

        return list_days(args, parse_span(args))
    plan = parse_plan(args)
    fill = secret.run if args.secret else run
    with store_backed.opened(plan.db or IN_MEMORY) as store, StopSignals() as signals:
        assert store is not None
        return fill(plan, store, signals)


def run(plan: Plan, store: Store, signals: StopSignals) -> int:
    """Fill the span's empty dates, print the span's deals, and report."""
    filler = Filler(plan, store, signals)
    with suppress(Stop):  # a stop signal while a row was rated here: the dates found so far are set
        filler.fill()
    interrupted = signals.stopped
    if interrupted:
        filler.empty = filler.assign()  # what was found by then is kept
    deals = store_backed.in_store(lambda: store.calendar(plan.variant.name))
    span = [deals[day.isoformat()] for day in plan.dates if day.isoformat() in deals]
    sys.stdout.write(formatted(plan, span))
    sys.stdout.flush()
    report(plan, filler, len(span), interrupted, gaps(deals))
    if interrupted:
        return signals.exit_status
    return EXIT_OK if len(span) == len(plan.dates) else EXIT_RAN_OUT


class Filler:
    """Walks the range in seed order, keeping the deals of each band not yet in the calendar,
    and sets dates in the store as soon as enough are found for every empty date."""

    def __init__(self, plan: Plan, store: Store, signals: StopSignals) -> None:
        self.plan = plan
        self.store = store
        self.signals = signals
        self.candidates: dict[str, list[Row]] = {band: [] for band in BANDS}
        self.already = 0  # dates of the span set before this run
        self.added = 0
        self.looked_last = plan.first - 1
        self.looked = 0  # deals looked at, in seed order up to looked_last
        self.looked_rated = 0  # of them, rated in this run (the rest came from the store)
        self.skipped = 0  # seeds up to looked_last passed over: a date of the calendar uses them
        self.executor: store_backed.StoreBacked | None = None
        deals = store_backed.in_store(lambda: store.calendar(plan.variant.name))
        self.empty = [day for day in plan.dates if day.isoformat() not in deals]
        self.already = len(plan.dates) - len(self.empty)

    def needs_more(self) -> bool:
        need = Counter(self.plan.band_of(day) for day in self.empty)
        return any(len(self.candidates[band]) < count for band, count in need.items())

    def fill(self) -> None:
        if not self.empty:
            return
        used = {
            deal.seed for deal in store_backed.in_store(lambda: self.store.calendar(self.plan.variant.name)).values()
        }
        with closing(self.rows(used)) as rows:
            for row in rows:
                self.looked_last = row.seed
                self.looked += 1
                self.looked_rated += self.executor is not None and row.seed in self.executor.rated_seeds
                if self.plan.accepts(row):
                    self.candidates[str(row.value(BAND))].append(row)
                    if not self.needs_more():
                        self.empty = self.assign()
                        if not self.empty:
                            break
            else:
                self.empty = self.assign()
        self.skipped = sum(1 for seed in used if self.plan.first <= seed <= self.looked_last)

    def assign(self) -> list[date]:
        """Set the span's empty dates, in order, from the candidates, stopping at the first date
        whose band has none left; the dates still empty. Done in one write transaction that
        reads the calendar afresh, so another run's dates and seeds are respected."""
        plan, name = self.plan, self.plan.variant.name

        def transaction() -> list[date]:
            with self.store.writing() as connection:
                deals = self.store.calendar(name)
                used = {deal.seed for deal in deals.values()}
                for band in BANDS:
                    self.candidates[band] = [row for row in self.candidates[band] if row.seed not in used]
                empty = [day for day in plan.dates if day.isoformat() not in deals]
                new: list[Deal] = []
                for day in empty:
                    left = self.candidates[plan.band_of(day)]
                    if not left:
                        break
                    new.append(deal_of(plan, day, left.pop(0)))
                self.store.add_deals(connection, new)
                self.added += len(new)
                return empty[len(new) :]

        return store_backed.in_store(transaction)

    def rows(self, used: set[int]) -> Generator[Row, None, None]:
        """The rows of the range in seed order (skipping seeds the calendar uses), looked up or
        rated, with a progress bar counting the rated ones."""
        plan = self.plan
        request = runs.Request(
            plan.variant, STRATEGY, plan.first, plan.last, plan.jobs, "jsonl", None, extra_columns=DIFFICULTY_COLUMNS
        )
        rate_options = request.rate_options
        unrated = store_backed.to_rate(self.store, rate_options, request.seeds, frozenset(used))
        with runs.executor_for(request, unrated, self.signals) as (inner, size):
            executor = store_backed.StoreBacked(inner, self.store)
            self.executor = executor
            todo = (seed for seed in range(plan.first, plan.last + 1) if seed not in used)
            results = executor.rate(rate_options, batches(todo, min(size, PICK_BATCH)), self.signals)
            bar = runs.progress_bar(unrated, f"{plan.variant.name} calendar")
            try:
                for found in results:
                    if bar is not None:
                        bar.update(executor.rated - bar.n)
                    yield from found
            finally:
                results.close()
                if bar is not None:
                    bar.close()


def deal_of(plan: Plan, day: date, row: Row) -> Deal:
    fair, p_random = row.value(FAIR), row.value(P_RANDOM)
    assert isinstance(fair, int) and isinstance(p_random, int | float)  # the columns' kinds
    return Deal(
        day.isoformat(), plan.variant.name, row.seed, plan.spec, str(row.value(BAND)), row.best, fair, float(p_random)
    )


def values_of(deal: Deal) -> dict[str, Any]:
    return {name: getattr(deal, name) for name in ROW_COLUMNS}


def formatted(plan: Plan, deals: list[Deal]) -> str:
    """The deals as rows in the plan's format."""
    if plan.format == "jsonl":
        return "".join(orjson.dumps(values_of(deal)).decode() + "\n" for deal in deals)
    if plan.format == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(ROW_COLUMNS)
        writer.writerows([[values_of(deal)[c] for c in ROW_COLUMNS] for deal in deals])
        return text.getvalue()
    widths = {"date": 10, "variant": max(7, len(plan.variant.name)), "band": 6, "best": 4, "fair": 4, "p_random": 8}
    widths["seed"] = max(4, *(len(str(deal.seed)) for deal in deals)) if deals else 4
    lines = [
        " ".join(f"{c:>{widths[c]}}" if c not in ("date", "variant") else f"{c:<{widths[c]}}" for c in ROW_COLUMNS)
    ]
    for deal in deals:
        cells = {**values_of(deal), "p_random": f"{deal.p_random:.4f}"}
        lines.append(
            " ".join(
                f"{cells[c]!s:>{widths[c]}}" if c not in ("date", "variant") else f"{cells[c]!s:<{widths[c]}}"
                for c in ROW_COLUMNS
            )
        )
    return "".join(line.rstrip() + "\n" for line in lines)


def report(plan: Plan, filler: Filler, filled: int, interrupted: bool, holes: list[tuple[date, date]]) -> None:
    """What was done, on stderr (stdout holds only the rows)."""
    first, last = plan.dates[0].isoformat(), plan.dates[-1].isoformat()
    lines = [
        f"variant: {plan.variant.name}",
        f"dates: {first} to {last}: {filled} of {len(plan.dates)} have a deal "
        f"({filler.already} already set, {filler.added} new)",
    ]
    if filler.executor is not None:
        lines.append(looked_line(plan, filler, filler.executor))
    if plan.db is None:
        lines.append("not kept: without --db the calendar is worked out in memory only")
    if interrupted:
        lines.append("interrupted: the dates filled so far are kept")
    elif filler.empty:
        lines.append(ran_out(plan, filler.empty[0]))
    if holes:
        lines.append(gaps_warning(plan.variant.name, holes))
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()


def gaps(deals: Mapping[str, Deal]) -> list[tuple[date, date]]:
    """The runs of dates without a deal between the first and the last published ones."""
    published = sorted(date.fromisoformat(day) for day in deals)
    holes = []
    for before, after in itertools.pairwise(published):
        if (after - before).days > 1:
            holes.append((before + timedelta(days=1), after - timedelta(days=1)))
    return holes


GAPS_SHOWN = 3


def gaps_warning(variant: str, holes: list[tuple[date, date]]) -> str:
    """One line naming the dates left without a deal between published days."""
    spans = [first.isoformat() if first == last else f"{first} to {last}" for first, last in holes]
    shown = ", ".join(spans[:GAPS_SHOWN]) + (f" and {len(spans) - GAPS_SHOWN} more" if len(spans) > GAPS_SHOWN else "")
    return (
        f"{PROG}: warning: the {variant} calendar has no deal for {shown}, between published days; "
        "run the command for those dates to fill them"
    )


def looked_line(plan: Plan, filler: Filler, executor: store_backed.StoreBacked) -> str:
    """The seeds looked at, and where their rows came from: the counts add up to the range."""
    if filler.looked_last < plan.first:
        return "seeds looked at: none"
    deals = "deal" if filler.looked == 1 else "deals"
    parts = [f"{filler.looked_rated} rated", f"{filler.looked - filler.looked_rated} from the store"]
    if filler.skipped:
        parts.append(f"{filler.skipped} skipped as already in the calendar")
    line = f"seeds looked at: {plan.first}-{filler.looked_last} ({filler.looked} {deals}: {', '.join(parts)})"
    ahead = len(executor.rated_seeds) - filler.looked_rated
    if ahead > 0:  # the pool rates a batch or two ahead of the deal that completes the span
        line += f"; {ahead} more rated ahead of need" + (" and kept in the store" if plan.db else "")
    return line


def ran_out(plan: Plan, day: date) -> str:
    """The line for a range that holds too few deals of a band, with a range twice as long."""
    band = plan.band_of(day)
    wanted = band + (f" (best >= {plan.min_best})" if plan.min_best else "")
    wider = min(options.MAX_SEED, plan.first + 2 * (plan.last - plan.first + 1) - 1)
    return (
        f"{PROG}: seeds {plan.first}-{plan.last} hold no more {wanted} deals of {plan.variant.name} "
        f"for {day.isoformat()}; try a wider range, such as --seeds {plan.first}-{wider}"
    )
