"""The rating commands: ``triples rate``, ``pick``, ``sweep`` and ``calendar``, and what they
share. By concern:

- ``rows``: what a rate row is (its columns, ``Row``, ``Provenance``); ``seed_rows``: how one
  seed is rated into one (the core columns, then ``fair``, ``p_random`` and ``band``);
- ``resume``: rate's rows file and what made it, over the kit's rows layer (``rows_file``);
- ``runs``: the kit every rating command is built from (the shared options, the ``Request``,
  ``rating_run``: the store, stop signals, the executor and where rows go);
- ``interrupts``: SIGINT, SIGTERM and SIGHUP noted and acted on between rows; workers that die
  with the command;
- ``executors``: where batches run: this process or a pool of worker processes (``cluster``: on
  Dask, loaded only with ``--scheduler``); ``store_backed``: rows looked up in the store first;
- ``summary``: running totals, Wilson intervals, the histogram, fair and band totals;
- ``plots``, ``sweep_plots``: ``--plot FILE`` (matplotlib, an optional extra, imported only to draw);
- the commands: ``rate``, ``pick``, ``sweep`` (with ``sweep_rows``), ``calendar``.
"""

from __future__ import annotations

from triples.doors.rating.executors import batch_size_for, rate_seeds
from triples.doors.rating.rows import COLUMNS, CORE_COLUMNS, Row
from triples.doors.rating.summary import Summary, percent, wilson_interval

__all__ = [
    "COLUMNS",
    "CORE_COLUMNS",
    "Row",
    "Summary",
    "batch_size_for",
    "percent",
    "rate_seeds",
    "wilson_interval",
]
