"""``triples calendar --secret``: the players' calendar, of decks drawn at random rather than seeds.

A seed names its whole deck, and the original generator has only 2**32 states, so the face-up
cards of a seed's deal give the seed away in moments. A secret day's deck is shuffled with the
operating system's cryptographic randomness (``secrets``): a Fisher-Yates shuffle whose every
draw is ``secrets.randbelow``, so every order of the variant's deck is equally likely and
nothing a player sees narrows it down. Each deck is rated with the engines that rate seeds
(best and a best line by the exact search, what ``high`` and ``fair`` clear, random play's
chance of best, and the band read off them), and decks are drawn again until the date's band
and ``--min-best`` hold. A deck that fits another empty date of the span is kept for it, so no
rated deck is wasted; every deck kept is still uniform among the decks that fit its date.

The store keeps each day's deck, rules, rating and best line under a short random deal id; a
date once set never changes, as in the seed calendar. Nothing here is ever served before its
day ends: the service shows a live day's table only.

``MAX_DRAWS_PER_DATE`` decks per empty date bound a run whose band and ``--min-best`` are too
rare to find (exit status 1, the dates filled so far kept and printed).
"""

from __future__ import annotations

import csv
import io
import multiprocessing
import os
import secrets
import sys
from collections import Counter
from collections.abc import Generator
from contextlib import closing, suppress
from dataclasses import dataclass
from datetime import date
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any, Protocol, cast

import orjson

from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.rating import store_backed
from triples.doors.rating.interrupts import Stop, StopSignals, die_with_parent
from triples.engines import difficulty, search
from triples.engines.difficulty import BANDS
from triples.engines.strategies import strategy_named
from triples.model.cards import Card
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant
from triples.store import SecretDeal, Store

PROG = "triples calendar"
EXIT_RAN_OUT = 1
ROW_COLUMNS = ("date", "variant", "deal", "band", "best", "fair", "p_random")
# Deal ids: letters and digits that no font confuses; 31**10 ids, so two never meet in practice.
DEAL_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
DEAL_ID_LENGTH = 10
MAX_DRAWS_PER_DATE = 2000
POLL = 0.05  # seconds: how often the parent looks for a stop signal while workers rate


class Plan(Protocol):
    """What the calendar command parsed (``triples.doors.rating.calendar.Plan``)."""

    @property
    def variant(self) -> Variant: ...
    @property
    def spec(self) -> Any: ...
    @property
    def dates(self) -> list[date]: ...
    @property
    def min_best(self) -> int: ...
    @property
    def jobs(self) -> int: ...
    @property
    def format(self) -> str: ...
    @property
    def db(self) -> str | None: ...

    def band_of(self, day: date) -> str: ...


def draw_deck(variant: Variant) -> list[Card]:
    """The variant's deck in an order drawn uniformly from all of them (Fisher-Yates, with the
    operating system's cryptographic randomness for every draw)."""
    deck = list(variant.cards)
    for i in range(len(deck) - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def new_deal_id() -> str:
    return "".join(secrets.choice(DEAL_ID_ALPHABET) for _ in range(DEAL_ID_LENGTH))


@dataclass(frozen=True)
class Rated:
    """A drawn deck and how hard it is."""

    deck: tuple[str, ...]
    best: int
    line: tuple[tuple[int, ...], ...]
    fair: int
    p_random: float
    band: str


def rate_deck(variant: Variant, deck: list[Card]) -> Rated:
    """The deck's rating by the engines that rate seeds: the exact search's best (with a line
    that reaches it), what ``high`` and ``fair`` clear, random play's chance of best, the band."""
    table = Table(variant, deck)
    best, line = search.solve(table)
    high = difficulty.played_out(table, strategy_named("high"))
    fair = difficulty.played_out(table, strategy_named("fair"))
    try:
        p_random = difficulty.p_random(table, best)
    except difficulty.TooManyStates as exc:
        raise BadInput(f"--secret: a deck of {variant.name}: {exc}") from None
    band = difficulty.band(high=high, fair=fair, best=best)
    return Rated(tuple(card.code for card in deck), best, tuple(tuple(move) for move in line), fair, p_random, band)


def draw_and_rate(variant: Variant) -> Rated:
    return rate_deck(variant, draw_deck(variant))


def run(plan: Plan, store: Store, signals: StopSignals) -> int:
    """Fill the span's empty dates with secret deals, print the span's deals, and report."""
    filler = Filler(plan, store, signals)
    with suppress(Stop):  # a stop while a deck was rated here: the dates found so far are set
        filler.fill()
    deals = store_backed.in_store(lambda: store.secret_calendar(plan.variant.name))
    span = [deals[day.isoformat()] for day in plan.dates if day.isoformat() in deals]
    sys.stdout.write(formatted(plan.format, span))
    sys.stdout.flush()
    report(plan, filler, len(span), signals.stopped)
    if signals.stopped:
        return signals.exit_status
    return EXIT_OK if len(span) == len(plan.dates) else EXIT_RAN_OUT


class Filler:
    """Draws and rates decks, keeping those that fit an empty date's band, and sets dates in
    the store, in order, as soon as each has one."""

    def __init__(self, plan: Plan, store: Store, signals: StopSignals) -> None:
        self.plan = plan
        self.store = store
        self.signals = signals
        self.candidates: dict[str, list[Rated]] = {band: [] for band in BANDS}
        deals = store_backed.in_store(lambda: store.secret_calendar(plan.variant.name))
        self.empty = [day for day in plan.dates if day.isoformat() not in deals]
        self.already = len(plan.dates) - len(self.empty)
        self.added = 0
        self.drawn = 0
        self.budget = MAX_DRAWS_PER_DATE * len(self.empty)

    def wanted(self, rated: Rated) -> bool:
        """Whether the deck fits an empty date that no kept deck is meant for yet."""
        if rated.best < self.plan.min_best:
            return False
        need = Counter(self.plan.band_of(day) for day in self.empty)
        return len(self.candidates[rated.band]) < need[rated.band]

    def fill(self) -> None:
        if not self.empty:
            return
        with closing(self.rated_decks()) as decks:  # closing it stops the workers
            for rated in decks:
                self.drawn += 1
                if self.wanted(rated):
                    self.candidates[rated.band].append(rated)
                    self.empty = self.assign()
                if not self.empty or self.drawn >= self.budget:
                    return

    def assign(self) -> list[date]:
        """Set the empty dates, in order, from the kept decks, stopping at the first date whose
        band has none; the dates still empty. One write transaction that reads the calendar
        afresh, so dates another run set meanwhile keep their deals."""
        plan, name = self.plan, self.plan.variant.name

        def transaction() -> list[date]:
            with self.store.writing() as connection:
                deals = self.store.secret_calendar(name)
                empty = [day for day in plan.dates if day.isoformat() not in deals]
                new: list[SecretDeal] = []
                for day in empty:
                    left = self.candidates[plan.band_of(day)]
                    if not left:
                        break
                    new.append(secret_deal(plan, day, left.pop(0)))
                self.store.add_secret_deals(connection, new)
                self.added += len(new)
                return empty[len(new) :]

        return store_backed.in_store(transaction)

    def rated_decks(self) -> Generator[Rated, None, None]:
        """Rated random decks without end: in this process (``--jobs 1``) or in worker processes."""
        variant = self.plan.variant
        if self.plan.jobs == 1:
            while True:
                with self.signals.raising():
                    rated = draw_and_rate(variant)
                yield rated
        workers = start_workers(self.plan.jobs, variant)
        try:
            connections = [connection for _, connection in workers]
            while not self.signals.stopped:
                for ready in wait(connections, timeout=POLL):
                    try:
                        message = cast(Connection, ready).recv()
                    except EOFError:
                        raise RuntimeError("a rating worker process died") from None
                    if isinstance(message, BaseException):
                        raise message
                    yield cast(Rated, message)
        finally:
            stop_workers(workers)


def work(connection: Connection, variant_name: str, parent: int) -> None:
    """A worker process: draw and rate decks until stopped, sending each rating back."""
    die_with_parent(parent)
    variant = parse_variant(variant_name)
    while True:
        try:
            rated = draw_and_rate(variant)
        except Exception as exc:  # raised again by the parent
            connection.send(exc)
            return
        connection.send(rated)


def start_workers(jobs: int, variant: Variant) -> list[tuple[BaseProcess, Connection]]:
    # fork, as the rating pool: a worker starts with triples imported; ``secrets`` reads the
    # operating system's randomness on every draw, so forked workers share no random state.
    context = multiprocessing.get_context("fork")
    workers: list[tuple[BaseProcess, Connection]] = []
    for _ in range(jobs):
        ours, theirs = context.Pipe(duplex=False)
        process = context.Process(target=work, args=(theirs, variant.name, os.getpid()), daemon=True)
        process.start()
        theirs.close()
        workers.append((process, ours))
    return workers


def stop_workers(workers: list[tuple[BaseProcess, Connection]]) -> None:
    for process, _ in workers:
        if process.is_alive():
            process.kill()  # a worker keeps nothing worth saving
    for process, connection in workers:
        process.join()
        connection.close()


def secret_deal(plan: Plan, day: date, rated: Rated) -> SecretDeal:
    return SecretDeal(
        day.isoformat(), plan.variant.name, new_deal_id(), plan.spec, rated.deck, rated.band, rated.best, rated.fair,
        rated.p_random, rated.line,
    )  # fmt: skip


def values_of(deal: SecretDeal) -> dict[str, Any]:
    return {name: getattr(deal, name) for name in ROW_COLUMNS}


def formatted(kind: str, deals: list[SecretDeal]) -> str:
    """The deals as rows: the seed calendar's columns, with the deal id where it shows the seed."""
    if kind == "jsonl":
        return "".join(orjson.dumps(values_of(deal)).decode() + "\n" for deal in deals)
    if kind == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(ROW_COLUMNS)
        writer.writerows([[values_of(deal)[c] for c in ROW_COLUMNS] for deal in deals])
        return text.getvalue()
    rows = [list(ROW_COLUMNS)] + [
        [str(values_of(deal)[c]) if c != "p_random" else f"{deal.p_random:.4f}" for c in ROW_COLUMNS] for deal in deals
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(ROW_COLUMNS))]
    left = {0, 1, 2}  # date, variant and deal read left to right; numbers line up on the right
    lines = [
        " ".join(cell.ljust(widths[i]) if i in left else cell.rjust(widths[i]) for i, cell in enumerate(row))
        for row in rows
    ]
    return "".join(line.rstrip() + "\n" for line in lines)


def report(plan: Plan, filler: Filler, filled: int, interrupted: bool) -> None:
    """What was done, on stderr (stdout holds only the rows)."""
    first, last = plan.dates[0].isoformat(), plan.dates[-1].isoformat()
    lines = [
        f"variant: {plan.variant.name} (secret decks)",
        f"dates: {first} to {last}: {filled} of {len(plan.dates)} have a deal "
        f"({filler.already} already set, {filler.added} new)",
    ]
    if filler.drawn:
        lines.append(f"decks drawn and rated: {filler.drawn}")
    if plan.db is None:
        lines.append("not kept: without --db the calendar is worked out in memory only")
    if interrupted:
        lines.append("interrupted: the dates filled so far are kept")
    elif filler.empty:
        day = filler.empty[0]
        lines.append(
            f"{PROG}: {filler.drawn} decks drawn, too few {plan.band_of(day)} deals of {plan.variant.name} "
            f"with best >= {plan.min_best} for {day.isoformat()}; try a lower --min-best or another band"
        )
    sys.stderr.write("".join(line + "\n" for line in lines))
    sys.stderr.flush()
