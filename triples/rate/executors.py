"""Where batches of seeds are rated: in this process, or in a pool of worker processes.

An executor takes a "rate one batch" callable (picklable: ``functools.partial(rate_batch,
options)``) and batches of seeds, and yields each batch's result in the order the batches came,
whatever order they finish in. The Dask executor (triples.rate.cluster) keeps the same contract.
"""

from __future__ import annotations

import math
import signal
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from itertools import islice
from typing import Protocol, TypeVar

from triples.config import Variant
from triples.rate.rows import RateOptions, Row, rate_batch
from triples.strategy import strategy_named

T = TypeVar("T")
Work = TypeVar("Work")  # what one task is given: a batch of seeds, or a group of batches
T_co = TypeVar("T_co", covariant=True)

MAX_BATCH = 100
# A batch per worker and a few queued behind it keeps every worker busy without letting the
# buffer of finished-but-not-yet-due batches grow with the range.
BATCHES_IN_FLIGHT_PER_JOB = 4

RateBatch = Callable[[list[int]], list[Row]]


class Pending(Protocol[T_co]):
    """A submitted task: a concurrent.futures or a Dask future."""

    def result(self) -> T_co: ...


class Executor(Protocol):
    @property
    def label(self) -> str:
        """Where the work ran, for the summary's speed line."""
        ...

    def rate(self, rate: RateBatch, batches: Iterable[list[int]]) -> Iterator[list[Row]]: ...


def batch_size_for(count: int, jobs: int) -> int:
    """Small ranges are still spread over every worker; large ones use batches of MAX_BATCH."""
    return max(1, min(MAX_BATCH, math.ceil(count / (jobs * BATCHES_IN_FLIGHT_PER_JOB))))


def batches(seeds: Iterable[int], size: int) -> Iterator[list[int]]:
    it = iter(seeds)
    while batch := list(islice(it, size)):
        yield batch


def in_submission_order(submit: Callable[[Work], Pending[T]], batches: Iterable[Work], in_flight: int) -> Iterator[T]:
    """Results in the order of ``batches``, with at most ``in_flight`` submitted and not yet
    yielded: a batch that finishes early is held until its turn."""
    pending: deque[Pending[T]] = deque()
    for batch in batches:
        pending.append(submit(batch))
        if len(pending) >= in_flight:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


class InProcess:
    label = "jobs 1"

    def rate(self, rate: RateBatch, batches: Iterable[list[int]]) -> Iterator[list[Row]]:
        return map(rate, batches)


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group; only the parent should act on it, so that it
    # can stop cleanly with every finished row already written.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ProcessPool:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    @property
    def label(self) -> str:
        return f"jobs {self.jobs}"

    def rate(self, rate: RateBatch, batches: Iterable[list[int]]) -> Iterator[list[Row]]:
        pool = ProcessPoolExecutor(max_workers=self.jobs, initializer=_ignore_interrupts)
        try:

            def submit(batch: list[int]) -> Future[list[Row]]:
                return pool.submit(rate, batch)

            yield from in_submission_order(submit, batches, self.jobs * BATCHES_IN_FLIGHT_PER_JOB)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def pool_of(jobs: int) -> Executor:
    """``jobs`` worker processes; 1: this process."""
    return InProcess() if jobs == 1 else ProcessPool(jobs)


def rate_seeds(
    variant: Variant,
    strategy_name: str,
    seeds: Iterable[int],
    jobs: int,
    batch_size: int = MAX_BATCH,
    columns: tuple[str, ...] = (),
) -> Iterator[list[Row]]:
    """Batches of rows, in the order of ``seeds``; ``jobs`` worker processes (1: in this process);
    ``columns``: opt-in columns to add (e.g. ``columns.DIFFICULTY_COLUMNS``)."""
    strategy_named(strategy_name)  # an unknown name fails here, not inside a worker
    rate = partial(rate_batch, RateOptions(variant.name, strategy_name, columns))
    return pool_of(jobs).rate(rate, batches(seeds, batch_size))
