"""``--db``: rows from the ratings store (triples.store), rating only the seeds it lacks.

``backed(executor, store)`` wraps any executor: each batch of seeds is looked up in the store
first, only the seeds it lacks go to the executor, and their rows are added to the store as they
come back (by this process, the one writer of the run). Rows come out in seed order as before,
so ``rate``, ``pick`` and ``calendar`` need not know which rows were stored.

A stored row is used only under exactly the provenance the run would rate it with (the variant's
canonical name, the strategy, the analyses and this version of triples); a fresh row is kept
under the provenance it carries.

A long stretch of stored seeds is answered without the executor: the executor is given the
seeds to rate up to that stretch, drained, and started again after it, so that a store holding
most of a range neither keeps a pool busy nor holds many rows in memory.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict
from functools import partial
from typing import TypeVar

from triples.doors.kit.exits import BadInput
from triples.doors.rating.executors import MAX_BATCH, Executor
from triples.doors.rating.interrupts import StopSignals
from triples.doors.rating.rows import PROVENANCE_COLUMNS, RateOptions, Row, installed_version, row_values
from triples.store import Provenance, Store, StoreError, open_store

T = TypeVar("T")
DB_HELP = (
    "keep rated rows in this store and reuse the rows it holds: a SQLite file (created when missing) "
    "or a postgresql:// URL"
)
# Stored seeds in a row past which the executor is drained and the rest answered from the store.
STORED_STRETCH = 10 * MAX_BATCH


def provenance_of(options: RateOptions) -> Provenance:
    """The provenance this process rates ``options``' rows with, as the store keys it."""
    return options.provenance(installed_version())


def stored_values(row: Row) -> dict[str, object]:
    """What the store keeps of a row: all but the seed and provenance (they are its key)."""
    return {k: v for k, v in row_values(row).items() if k != "seed" and k not in PROVENANCE_COLUMNS}


def lookup(store: Store, provenance: Provenance, seeds: list[int]) -> dict[int, Row]:
    """The stored rows of ``seeds``, by seed."""
    if not seeds:
        return {}
    wanted, made = set(seeds), asdict(provenance)
    return {
        seed: Row.from_values({"seed": seed, **values, **made})
        for seed, values in store.rows(provenance, min(seeds), max(seeds))
        if seed in wanted
    }


def keep(store: Store, rows: list[Row]) -> None:
    """Add freshly rated rows to the store, each under the provenance it carries."""
    by_provenance: dict[Provenance, list[Row]] = {}
    for row in rows:
        by_provenance.setdefault(row.provenance, []).append(row)
    for provenance, group in by_provenance.items():
        store.put(provenance, [(row.seed, stored_values(row)) for row in group])  # type: ignore[misc]


class StoreBacked:
    """An executor that answers from the store what it can and rates the rest with ``inner``."""

    def __init__(self, inner: Executor, store: Store) -> None:
        self.inner = inner
        self.store = store
        self.looked_up = 0  # rows answered by the store
        self.rated = 0  # rows rated and added to it
        self.rated_seeds: set[int] = set()  # their seeds

    @property
    def label(self) -> str:
        return self.inner.label

    def rate(
        self, options: RateOptions, batches: Iterable[list[int]], stop: StopSignals
    ) -> Generator[list[Row], None, None]:
        provenance = provenance_of(options)
        source = iter(batches)
        while (batch := next(source, None)) is not None:
            stored = in_store(partial(lookup, self.store, provenance, batch))
            if len(stored) == len(batch):
                self.looked_up += len(batch)
                yield [stored[seed] for seed in batch]
            else:
                yield from self.rate_stretch(options, provenance, (batch, stored), source, stop)
                if stop.stopped:
                    return

    def rate_stretch(
        self,
        options: RateOptions,
        provenance: Provenance,
        first: tuple[list[int], dict[int, Row]],
        source: Iterator[list[int]],
        stop: StopSignals,
    ) -> Generator[list[Row], None, None]:
        """Rows of ``first`` and the batches after it, until a long stretch of stored seeds (or
        the end): what is stored comes from the store, the rest from the inner executor."""
        due: deque[tuple[int, Row | None]] = deque()  # every seed given, in order, with its stored row
        fresh: dict[int, Row] = {}

        def to_rate() -> Iterator[list[int]]:
            batch, stored = first
            stretch = 0
            while True:
                due.extend((seed, stored.get(seed)) for seed in batch)
                missing = [seed for seed in batch if seed not in stored]
                stretch = 0 if missing else stretch + len(batch)
                if missing:
                    yield missing
                elif stretch >= STORED_STRETCH:
                    return
                next_batch = next(source, None)
                if next_batch is None:
                    return
                batch, stored = next_batch, in_store(partial(lookup, self.store, provenance, next_batch))

        def ready(complete: bool) -> list[Row]:
            """The rows due next, in order: up to the first seed still being rated (past it too
            when ``complete``: on a stop, what is done is given, gaps left out)."""
            rows = []
            while due:
                seed, row = due[0]
                if row is None and seed not in fresh and not complete:
                    break
                due.popleft()
                if row is not None:
                    self.looked_up += 1
                    rows.append(row)
                elif seed in fresh:
                    rows.append(fresh.pop(seed))
            return rows

        results = self.inner.rate(options, to_rate(), stop)
        try:
            for rows in results:
                if rows:
                    in_store(partial(keep, self.store, rows))
                    self.rated += len(rows)
                    self.rated_seeds.update(row.seed for row in rows)
                    fresh.update((row.seed, row) for row in rows)
                if out := ready(complete=False):
                    yield out
            if out := ready(complete=True):
                yield out
        finally:
            close = getattr(results, "close", None)  # a pool's generator: stop its workers now
            if close is not None:
                close()


def in_store(work: Callable[[], T]) -> T:
    """``work()``, with the store's one-line errors as ``BadInput`` (exit status 2)."""
    try:
        return work()
    except StoreError as exc:
        raise BadInput(str(exc)) from None


@contextmanager
def opened(path: str | None) -> Iterator[Store | None]:
    """The store of ``--db`` (None without it), closed at the end."""
    if path is None:
        yield None
        return
    with in_store(partial(open_store, path)) as store:
        yield store


def to_rate(store: Store | None, options: RateOptions, seeds: range, resumed: frozenset[int]) -> int:
    """How many ``seeds`` are left to rate: neither ``resumed`` (already in the rows file) nor,
    with a store, stored. A seed in both the file and the store is counted out once."""
    left = len(seeds) - sum(1 for seed in resumed if seed in seeds)
    if store is None or not seeds:
        return left
    provenance = provenance_of(options)

    def stored_anew() -> int:
        return sum(1 for seed in store.stored_seeds(provenance, seeds.start, seeds.stop - 1) if seed not in resumed)

    return max(0, left - in_store(stored_anew))


def backed(executor: Executor, store: Store | None) -> Executor:
    return executor if store is None else StoreBacked(executor, store)


def report(executor: Executor) -> None:
    """One line on stderr: how many rows the store answered and how many were added to it."""
    if isinstance(executor, StoreBacked):
        print(
            f"store: {executor.looked_up} rows from {executor.store.path}, {executor.rated} rated and added",
            file=sys.stderr,
        )
