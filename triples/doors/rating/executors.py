"""Where seeds are rated: in this process, or in a pool of worker processes.

An executor takes the ``RateOptions`` of the run and batches of seeds, and yields lists of rows
in seed order as soon as they are due, whatever order they finish in. On a stop signal (see
``triples.doors.rating.interrupts``) it stops rating within a fraction of a second, yields the rows it
already has (in seed order; seeds still being rated are left out) and returns, or raises
``Stop`` when the signal came in the middle of a row computed in this process. The Dask executor
(triples.doors.rating.cluster) keeps the same contract.

The pool is our own rather than ``concurrent.futures``: its workers send each row back within a
tenth of a second of finishing it (not at the end of a batch), and they are killed on a stop and
die with the command (``die_with_parent``), so none is left waiting on a pipe.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Protocol, cast

from triples.doors.rating.interrupts import NEVER, StopSignals, die_with_parent
from triples.doors.rating.rows import RateOptions, Row
from triples.doors.rating.seed_rows import rate_batch, rate_rows
from triples.engines.strategies import strategy_named
from triples.model.variant import Variant

MAX_BATCH = 100
# Rows with --fair or --difficulty take a hundredth to a tenth of a second each, so batches of this
# many: on a cluster a task's rows come back when it ends, within a second; in the pool a worker
# that has finished waits at most one short batch for the other to finish the range.
SLOW_ROWS_BATCH = 8
# A batch per worker and a few queued behind it keeps every worker busy without letting the
# buffer of finished-but-not-yet-due batches grow with the range.
BATCHES_IN_FLIGHT_PER_JOB = 4
SEND_EVERY = 0.1  # seconds: how long a worker holds finished rows before sending them
POLL = 0.05  # seconds: how often the parent looks for a stop signal while it waits
GONE_WITHIN = 1.0  # seconds: how long a worker is given to die after SIGTERM before SIGKILL

RateBatch = Callable[[list[int]], list[Row]]


class Executor(Protocol):
    @property
    def label(self) -> str:
        """Where the work ran, for the summary's speed line."""
        ...

    def rate(self, options: RateOptions, batches: Iterable[list[int]], stop: StopSignals) -> Iterator[list[Row]]: ...


def batch_size_for(count: int, jobs: int, columns: tuple[str, ...] = ()) -> int:
    """Small ranges are still spread over every worker; large ones use batches of MAX_BATCH, or
    of SLOW_ROWS_BATCH when opt-in ``columns`` make each row slow."""
    most = SLOW_ROWS_BATCH if columns else MAX_BATCH
    return max(1, min(most, math.ceil(count / (jobs * BATCHES_IN_FLIGHT_PER_JOB))))


def batches(seeds: Iterable[int], size: int) -> Iterator[list[int]]:
    it = iter(seeds)
    while batch := list(islice(it, size)):
        yield batch


class InProcess:
    """Rows computed in this process one seed at a time, so each is written as it is done."""

    label = "jobs 1"

    def rate(self, options: RateOptions, batches: Iterable[list[int]], stop: StopSignals) -> Iterator[list[Row]]:
        for batch in batches:
            for seed in batch:
                with stop.raising():
                    rows = rate_batch(options, [seed])
                yield rows


def work(connection: Connection, options: RateOptions, parent: int) -> None:
    """A worker process: rate each batch it is sent, sending rows back as they finish (at most
    ``SEND_EVERY`` seconds late) and ``None`` after a batch's last row."""
    die_with_parent(parent)
    while True:
        seeds = connection.recv()
        held: list[Row] = []
        sent = time.monotonic()
        try:
            for row in rate_rows(options, seeds):
                held.append(row)
                if time.monotonic() - sent >= SEND_EVERY:
                    connection.send(held)
                    held, sent = [], time.monotonic()
        except Exception as exc:  # reported by the parent, as if rated there
            connection.send(exc)
            return
        if held:
            connection.send(held)
        connection.send(None)


@dataclass
class Worker:
    process: BaseProcess
    connection: Connection
    batches: int = 0  # sent and not finished


@dataclass
class InOrder:
    """Finished rows held until every earlier seed is done; the seeds sent, in order."""

    due: deque[int] = field(default_factory=deque)
    done: dict[int, Row] = field(default_factory=dict)

    def take_due(self) -> list[Row]:
        rows = []
        while self.due and self.due[0] in self.done:
            rows.append(self.done.pop(self.due.popleft()))
        return rows

    def take_all(self) -> list[Row]:
        """What is finished, in seed order, whatever is missing before it (on a stop)."""
        rows = [self.done[seed] for seed in sorted(self.done)]
        self.done.clear()
        return rows


class ProcessPool:
    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    @property
    def label(self) -> str:
        return f"jobs {self.jobs}"

    def rate(self, options: RateOptions, batches: Iterable[list[int]], stop: StopSignals) -> Iterator[list[Row]]:
        workers = start_workers(self.jobs, options)
        todo = iter(batches)
        order = InOrder()
        window = self.jobs * BATCHES_IN_FLIGHT_PER_JOB  # batches sent and not yet yielded, at most
        ends: deque[int] = deque()  # for each batch sent and not yet yielded: seeds sent up to its end
        sent = yielded = 0
        exhausted = False
        try:
            while not stop.stopped:
                while not exhausted and len(ends) < window:
                    idle = min(workers, key=lambda w: w.batches)
                    if idle.batches:  # a batch queued behind a slow seed would wait for it
                        break
                    batch = next(todo, None)
                    if batch is None:
                        exhausted = True
                        break
                    idle.connection.send(batch)
                    idle.batches += 1
                    order.due.extend(batch)
                    sent += len(batch)
                    ends.append(sent)
                if exhausted and not order.due:
                    return
                by_connection = {w.connection: w for w in workers}
                for ready in wait(list(by_connection), timeout=POLL):
                    if stop.stopped:
                        break
                    receive(by_connection[cast(Connection, ready)], order)
                due = order.take_due()
                if due:
                    yielded += len(due)
                    while ends and ends[0] <= yielded:
                        ends.popleft()
                    yield due
            yield order.take_all()
        finally:
            stop_workers(workers)


def receive(worker: Worker, order: InOrder) -> None:
    try:
        message = worker.connection.recv()
    except EOFError:
        raise RuntimeError("a rating worker process died") from None
    if isinstance(message, BaseException):  # what rating raised there, raised here
        raise message
    if message is None:
        worker.batches -= 1
    else:
        order.done.update((row.seed, row) for row in message)


def start_workers(jobs: int, options: RateOptions) -> list[Worker]:
    # fork: a worker starts in milliseconds with triples already imported (the rows are the same
    # under any start method; the engines keep no state between deals that a row depends on).
    context = multiprocessing.get_context("fork")
    workers = []
    for _ in range(jobs):
        ours, theirs = context.Pipe(duplex=True)
        process = context.Process(target=work, args=(theirs, options, os.getpid()), daemon=True)
        process.start()
        theirs.close()
        workers.append(Worker(process, ours))
    return workers


def stop_workers(workers: list[Worker]) -> None:
    """Every worker gone: SIGTERM (a worker keeps no state worth saving), then SIGKILL."""
    for worker in workers:
        if worker.process.is_alive():
            worker.process.terminate()
    deadline = time.monotonic() + GONE_WITHIN
    for worker in workers:
        worker.process.join(max(0.0, deadline - time.monotonic()))
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.connection.close()


def pool_of(jobs: int) -> Executor:
    """``jobs`` worker processes; 1: this process."""
    return InProcess() if jobs == 1 else ProcessPool(jobs)


def rate_seeds(
    variant: Variant,
    strategy_name: str,
    seeds: Iterable[int],
    jobs: int,
    batch_size: int | None = None,
    columns: tuple[str, ...] = (),
) -> Iterator[list[Row]]:
    """Lists of rows, in the order of ``seeds``; ``jobs`` worker processes (1: in this process);
    ``columns``: opt-in columns to add (e.g. ``columns.DIFFICULTY_COLUMNS``); batches of
    ``batch_size`` seeds (default: the largest ``batch_size_for`` gives those columns)."""
    strategy_named(strategy_name)  # an unknown name fails here, not inside a worker
    if batch_size is None:
        batch_size = SLOW_ROWS_BATCH if columns else MAX_BATCH
    return pool_of(jobs).rate(RateOptions(variant.name, strategy_name, columns), batches(seeds, batch_size), NEVER)
