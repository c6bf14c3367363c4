"""``--db FILE``: rows from the ratings store (triples.store), rating only the seeds it lacks.

``backed(executor, store)`` wraps any executor: each batch of seeds is looked up in the store
first, only the seeds it lacks go to the executor, and their rows are added to the store as they
come back (by this process, the one writer of the run). The rows come out in the batch's seed
order as before, so ``rate``, ``pick`` and ``calendar`` need not know which rows were stored.

A stored row is used only under exactly the provenance the run would rate it with: the variant's
canonical name, the strategy, the analyses (opt-in columns) and this version of triples.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import TypeVar

from triples.rate.errors import BadInput
from triples.rate.executors import Executor, RateBatch
from triples.rate.rows import RateOptions, Row, installed_version, rate_batch, row_values
from triples.store import Provenance, Store, StoreError, open_store

T = TypeVar("T")
DB_HELP = "keep rated rows in this SQLite store (created when missing) and reuse the rows it holds"


def provenance_of(options: RateOptions, version: str | None = None) -> Provenance:
    return Provenance(options.variant, options.strategy, options.columns, version or installed_version())


def options_of(rate: RateBatch) -> RateOptions:
    """The options of a ``partial(rate_batch, options)``, the one kind of task the commands give."""
    if isinstance(rate, partial) and rate.func is rate_batch and isinstance(rate.args[0], RateOptions):
        return rate.args[0]
    raise TypeError(f"not a rate_batch task: {rate!r}")


def stored_values(row: Row) -> dict[str, object]:
    """What the store keeps of a row: everything but the seed and version (they are its key)."""
    return {k: v for k, v in row_values(row).items() if k not in ("seed", "version")}


def lookup(store: Store, provenance: Provenance, seeds: list[int]) -> dict[int, Row]:
    """The stored rows of ``seeds``, by seed."""
    if not seeds:
        return {}
    wanted = set(seeds)
    return {
        seed: Row.from_values({"seed": seed, **values, "version": provenance.version})
        for seed, values in store.rows(provenance, min(seeds), max(seeds))
        if seed in wanted
    }


def keep(store: Store, options: RateOptions, rows: list[Row]) -> None:
    """Add freshly rated rows to the store, each under the version that rated it."""
    by_version: dict[str, list[Row]] = {}
    for row in rows:
        by_version.setdefault(row.version, []).append(row)
    for version, group in by_version.items():
        store.put(provenance_of(options, version), [(row.seed, stored_values(row)) for row in group])  # type: ignore[misc]


class StoreBacked:
    """An executor that answers from the store what it can and rates the rest with ``inner``."""

    def __init__(self, inner: Executor, store: Store) -> None:
        self.inner = inner
        self.store = store
        self.looked_up = 0  # rows answered by the store
        self.rated = 0  # rows rated and added to it

    @property
    def label(self) -> str:
        return self.inner.label

    def rate(self, rate: RateBatch, batches: Iterable[list[int]]) -> Generator[list[Row], None, None]:
        options = options_of(rate)
        provenance = provenance_of(options)
        found: deque[tuple[list[int], dict[int, Row]]] = deque()

        def unstored(batches: Iterable[list[int]]) -> Iterator[list[int]]:
            # Every batch goes to the executor, even when the store holds all of it (an empty
            # batch costs next to nothing), so that each result is matched to its batch in order.
            for batch in batches:
                stored = in_store(partial(lookup, self.store, provenance, batch))
                found.append((batch, stored))
                yield [seed for seed in batch if seed not in stored]

        results = self.inner.rate(rate, unstored(batches))
        try:
            for fresh in results:
                batch, stored = found.popleft()
                if fresh:
                    in_store(partial(keep, self.store, options, fresh))
                self.looked_up += len(stored)
                self.rated += len(fresh)
                by_seed = {**stored, **{row.seed: row for row in fresh}}
                yield [by_seed[seed] for seed in batch]
        finally:
            close = getattr(results, "close", None)  # a pool's generator: shut the pool down now
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
    with in_store(lambda: open_store(path)) as store:
        yield store


def to_rate(store: Store | None, options: RateOptions, first: int, last: int, count: int) -> int:
    """How many of ``count`` seeds in ``first``..``last`` are left to rate once the store is used."""
    if store is None:
        return count
    return max(0, count - in_store(lambda: store.count(provenance_of(options), first, last)))


def backed(executor: Executor, store: Store | None) -> Executor:
    return executor if store is None else StoreBacked(executor, store)


def report(executor: Executor) -> None:
    """One line on stderr: how many rows the store answered and how many were added to it."""
    if isinstance(executor, StoreBacked):
        print(
            f"store: {executor.looked_up} rows from {executor.store.path}, {executor.rated} rated and added",
            file=sys.stderr,
        )
