# mypy: disallow-untyped-calls=False
# (distributed has no type hints for its client API)
"""Rating on a Dask cluster (dask.distributed): the executor behind ``--scheduler``.

Imported only when ``--scheduler`` is given, so a plain ``triples rate`` never loads Dask. The
batches are the process pool's, submitted as Dask tasks and collected in submission order, so
the rows are the same. Dask reruns the tasks of a worker that dies. A task's result comes back
only when the task ends, so each worker also holds the rows of this run's tasks as they finish
(``WorkerRows``): on a stop signal the command collects them from every worker, and a row
finished before the signal is kept even when its task was still running. Then it cancels
whatever the cluster still holds of this run, and a local cluster is closed at once (its worker
processes also exit by themselves when the command dies). Workers import triples themselves:
every worker needs the same version installed (each row carries the version that rated it).
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import signal
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from functools import partial
from itertools import islice
from typing import Any

import dask
from distributed import Client, Future, KilledWorker, LocalCluster
from distributed.comm.core import connect as open_comm

from triples.doors.kit.exits import BadInput, CommandError
from triples.doors.kit.process import tune_for_the_engines
from triples.doors.rating.executors import BATCHES_IN_FLIGHT_PER_JOB, POLL
from triples.doors.rating.interrupts import StopSignals
from triples.doors.rating.rows import RateOptions, Row, installed_version
from triples.doors.rating.seed_rows import rate_rows

# Dask's own reports (a worker lost and restarted, a closing comm) would mix with the summary
# on stderr; what matters of them reaches the user as rows, or as one error line.
QUIET = logging.CRITICAL
# Throughput settings for a cluster of our own (a shared scheduler keeps its owner's settings):
# the workers' stack sampler, every 10 ms, competes with the rating for each worker's GIL; and
# the batches, few and bounded by the executor's window, may all wait on the workers instead of
# each one going out when the last comes back.
LOCAL_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.worker-saturation": math.inf,
}


class ClusterError(CommandError):
    """The cluster could not do the work (its workers lack triples, or keep dying on a batch):
    reported in one line, exit status 2."""


# A task of one cheap batch (100 classic seeds rate in about 20 ms) is mostly the round trip
# through the scheduler, which shares this machine's cores with the workers: consecutive
# batches go out together, up to this many to a task, when there are enough to keep every
# worker busy (the batches, and so the rows, stay the same).
MAX_BATCHES_PER_TASK = 10
TASKS_PER_WORKER = 8


def batches_per_task(batch_count: int, workers: int) -> int:
    """How many of ``batch_count`` cheap batches one task takes: as many as keep at least
    ``TASKS_PER_WORKER`` tasks for each worker, at most ``MAX_BATCHES_PER_TASK``."""
    return max(1, min(MAX_BATCHES_PER_TASK, batch_count // (workers * TASKS_PER_WORKER)))


# How long a worker keeps the rows of a task that has ended: its result is on its way to the
# command, which on a stop may not have heard of it yet.
ENDED_KEPT_FOR = 5.0  # seconds
COLLECT_WITHIN = 1.0  # seconds: how long a stopped run waits for the workers' finished rows


@dataclass
class TaskRows:
    rows: list[Row] = field(default_factory=list)
    ended: float | None = None  # time.monotonic() when the task ended


class WorkerRows:
    """In a worker process: the rows each task of each run has finished so far, by run. A
    task's rows are the same objects as its result, so holding them costs little; they are
    dropped ``ENDED_KEPT_FOR`` seconds after the task ends (looked at whenever a task starts)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # tasks run on the worker's threads, a collection on its event loop
        self.runs: dict[str, list[TaskRows]] = {}

    def start_task(self, run: str) -> TaskRows:
        held = TaskRows()
        now = time.monotonic()
        with self.lock:
            for name, tasks in list(self.runs.items()):
                tasks[:] = [task for task in tasks if task.ended is None or now - task.ended < ENDED_KEPT_FOR]
                if not tasks:
                    del self.runs[name]
            self.runs.setdefault(run, []).append(held)
        return held

    def add(self, held: TaskRows, row: Row) -> None:
        with self.lock:
            held.rows.append(row)

    def end_task(self, held: TaskRows) -> None:
        with self.lock:
            held.ended = time.monotonic()

    def finished(self, run: str) -> list[Row]:
        with self.lock:
            return [row for task in self.runs.get(run, []) for row in task.rows]


WORKER_ROWS = WorkerRows()


def rate_each(run: str, options: RateOptions, group: list[list[int]]) -> list[list[Row]]:
    """One task's work: each of its batches rated as the pool rates it, every row also held
    in ``WORKER_ROWS`` under ``run`` as soon as it is finished."""
    tune_for_the_engines()  # a worker of any cluster: the command's own settings are not inherited
    held = WORKER_ROWS.start_task(run)
    try:
        rated = []
        for batch in group:
            rows = []
            for row in rate_rows(options, batch):
                rows.append(row)
                WORKER_ROWS.add(held, row)
            rated.append(rows)
        return rated
    finally:
        WORKER_ROWS.end_task(held)


def finished_rows(run: str) -> list[Row]:
    """Run on a worker (``Client.run``): the rows its tasks of ``run`` have finished."""
    return WORKER_ROWS.finished(run)


Submitted = tuple[Future[list[list[Row]]], list[list[int]]]  # a task, and the batches it rates


class OnCluster:
    """The executor: batches as tasks of one Dask client (``group`` consecutive batches to a
    task; 1 unless the rows are cheap, see ``batches_per_task``)."""

    def __init__(self, client: Client, where: str) -> None:
        self.client = client
        self.where = where
        self.group = 1

    @property
    def label(self) -> str:
        return f"{self.workers} workers, {self.where}"

    @property
    def workers(self) -> int:
        """Worker threads now in the cluster (at least 1): batches are sized for them."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def rate(self, options: RateOptions, batches: Iterable[list[int]], stop: StopSignals) -> Iterator[list[Row]]:
        in_flight = self.workers * BATCHES_IN_FLIGHT_PER_JOB
        run = uuid.uuid4().hex  # this call's tasks, among any other run's on the same workers
        pending: deque[Submitted] = deque()  # submitted and not yet yielded, in order
        groups = grouped(batches, self.group)
        try:
            while not stop.stopped:
                while len(pending) < in_flight and (group := next(groups, None)) is not None:
                    pending.append((self.client.submit(rate_each, run, options, group, pure=False), group))
                if not pending:
                    return
                if wait_done(pending[0][0], stop):
                    yield from pending.popleft()[0].result()
            # Stopped: what is finished already, in seed order; nothing more is waited for.
            yield self.finished_at_stop(run, pending)
        except ImportError as exc:
            raise ClusterError(f"a worker cannot import triples ({exc}): {INSTALL_HINT}") from None
        except KilledWorker as exc:  # the same batch took down worker after worker
            raise ClusterError(f"the cluster gave up on a batch: {first_line(exc)}") from None
        finally:
            unfinished = [future for future, _ in pending if not future.done()]
            if unfinished:
                with suppress(Exception):  # best effort: a stopped run's tasks are dropped on closing too
                    self.client.cancel(unfinished, force=True)

    def finished_at_stop(self, run: str, pending: Iterable[Submitted]) -> list[Row]:
        """The finished rows of the tasks not yet yielded: those of whole tasks whose results
        are here, and every row the workers hold of tasks still running (or whose end has not
        reached the command yet); in seed order, each once."""
        pending = list(pending)
        due = {seed for _, group in pending for batch in group for seed in batch}
        found: dict[int, Row] = {}
        for future, _ in pending:
            if future.status == "finished":
                with suppress(Exception):  # its worker may be gone since; its rows may still be collected below
                    found.update((row.seed, row) for rows in future.result() for row in rows)
        try:
            held: dict[str, object] = self.client.run(
                finished_rows, run, on_error="return", callback_timeout=COLLECT_WITHIN
            )
        except Exception:  # best effort: a cluster too busy to answer keeps the rows it sent already
            held = {}
        for rows in held.values():
            if isinstance(rows, list):  # not one worker's error
                found.update((row.seed, row) for row in rows if row.seed in due)
        return [found[seed] for seed in sorted(found)]


def wait_done(future: Future[Any], stop: StopSignals) -> bool:
    """Whether ``future`` finished (True) before a stop signal came (False); its error, if any,
    is raised by its ``result()``.

    Waited for on a thread event set by the future's callback, not by ``result(timeout)``
    polls: a timed Dask call runs ``asyncio.wait_for`` on the client's loop, and under load one
    of many such timeouts can end in a cancellation that Dask reports as an UnboundLocalError.
    """
    finished = threading.Event()
    future.add_done_callback(lambda _: finished.set())
    while not stop.stopped:
        if finished.wait(POLL):
            return True
    return False


def grouped(batches: Iterable[list[int]], size: int) -> Iterator[list[list[int]]]:
    it = iter(batches)
    while group := list(islice(it, size)):
        yield group


INSTALL_HINT = f"install triples {installed_version()} on every worker"


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def ignore_interrupts(worker: Any = None) -> None:
    """Ctrl-C and a closed terminal reach this machine's whole process group: only the command
    acts on them (it closes the cluster, and a local worker also exits when the command dies)."""
    for signum in (signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, signal.SIG_IGN)


dask_setup = ignore_interrupts  # run by each local worker that preloads this module


async def probe(address: str, timeout: float) -> None:
    comm = await open_comm(address, timeout=timeout)
    await comm.close()


def reach(address: str, timeout: float) -> None:
    """Fail in one line, within ``timeout``, when nothing answers at ``address``.

    A Client that fails to connect leaves a half-built object whose clean-up prints a traceback
    at exit; a bare connection first avoids building one for an address that is not there.
    """
    try:
        asyncio.run(probe(address, timeout))
    except (OSError, ValueError, TypeError) as exc:
        raise BadInput(f"--scheduler {address}: cannot reach the scheduler: {first_line(exc)}") from None


@contextmanager
def connect(scheduler: str, local_workers: int | None, timeout: float, stop: StopSignals) -> Iterator[OnCluster]:
    """A client of the scheduler at ``scheduler``, or of a LocalCluster of ``local_workers``,
    whose workers have been checked to import triples; closed (and the local cluster with it)
    on leaving. A stop signal while connecting raises ``Stop`` at once: a local cluster's worker
    processes then exit with the command."""
    logging.getLogger("distributed").setLevel(QUIET)
    with ExitStack() as stack:
        stack.push(partial(quiet_after_stop, stop))  # first in, so last out: sees every close's error
        try:
            with stop.raising():
                if local_workers is None:
                    reach(scheduler, timeout)
                    client = stack.enter_context(Client(scheduler, timeout=timeout, set_as_default=False))
                    where = f"scheduler {scheduler}"
                else:
                    client = start_local(stack, local_workers, stop)
                    where = "local cluster"
                executor = OnCluster(client, where)
                check_workers(client, scheduler, timeout)
        except BaseException:
            # Closing a half-started cluster can fail inside Dask; the reason to report is ours.
            with suppress(Exception):
                stack.close()
            raise
        yield executor


def start_local(stack: ExitStack, workers: int, stop: StopSignals) -> Client:
    """A client of a new LocalCluster of ``workers`` processes, both closed by ``stack``; after a
    stop signal its worker processes are killed first, so that closing it takes no time."""
    try:
        with dask.config.set(LOCAL_CONFIG):  # read by the scheduler and handed to each worker
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # a random free port: 8787 may be another cluster's
                silence_logs=QUIET,
                preload=[__name__],
            )
        stack.enter_context(cluster)
        stack.callback(kill_workers_if_stopped, cluster, stop)
        client: Client = stack.enter_context(Client(cluster, set_as_default=False))
    except Exception as exc:  # Dask's own failure to start (seen on an overloaded machine)
        raise ClusterError(f"the local cluster did not start ({type(exc).__name__}: {first_line(exc)})") from None
    return client


def quiet_after_stop(stop: StopSignals, kind: type[BaseException] | None, exc: BaseException | None, tb: Any) -> bool:
    """After a stop signal, an error from closing the cluster is Dask's own (a coroutine
    cancelled under it, workers already killed): the rows are written, so it is let go."""
    return stop.stopped and isinstance(exc, Exception)


def kill_workers_if_stopped(cluster: LocalCluster, stop: StopSignals) -> None:
    """A graceful close waits for the tasks at work; after a stop signal nothing they finish is
    wanted, so the worker processes are killed and the close that follows only tidies up."""
    if not stop.stopped:
        return
    for nanny in list(cluster.workers.values()):
        pid = getattr(nanny, "pid", None)
        if isinstance(pid, int):
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def check_workers(client: Client, scheduler: str, timeout: float) -> None:
    """Wait for a first worker, and load triples on every worker before the clock starts (a
    forked pool has it loaded already)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise BadInput(f"--scheduler {scheduler}: no worker joined the scheduler in {timeout:g} s") from None
    try:
        client.run(installed_version)
    except Exception as exc:  # whatever the worker raised, typically ModuleNotFoundError
        raise ClusterError(
            f"a worker cannot run triples ({type(exc).__name__}: {first_line(exc)}): {INSTALL_HINT}"
        ) from None
