"""``triples rate``: rate a range of seeds in parallel: autoplay, the exact best, and win rates.

Rows come out in seed order whatever executes them; only the timing (``ms``) depends on the
machine. Each kept row says what made it (variant, strategy, analyses, version), so a file is
never resumed with other options. The package, by concern:

- ``rows``: what a row is (the column registry, opt-in columns, ``Provenance``) and how seeds
  are rated;
- ``record``: a rows file read back to resume (``check_resume``), refused when made otherwise;
- ``interrupts``: SIGINT, SIGTERM and SIGHUP noted and acted on between rows; workers that die
  with the command;
- ``columns``: the opt-in columns ``fair`` (``--fair``), ``p_random`` and ``band`` (``--difficulty``);
- ``executors``: where batches run: this process or a pool of worker processes (``cluster``: on
  Dask, loaded only with ``--scheduler``);
- ``formats``: the table, jsonl and csv rows;
- ``summary``: running totals, Wilson intervals, the histogram, fair and band totals;
- ``plots``: ``--plot FILE`` (matplotlib, an optional extra, imported only to draw);
- ``command``: the options and the run (``add_arguments`` and ``main``, used by triples.doors.cli);
- ``pick``: ``triples pick``, the first deals of a difficulty band, rated with the same machinery.
"""

from __future__ import annotations

from triples.doors.rating.command import add_arguments, main
from triples.doors.rating.executors import batch_size_for, rate_seeds
from triples.doors.rating.rows import COLUMNS, CORE_COLUMNS, Row
from triples.doors.rating.summary import Summary, percent, wilson_interval

__all__ = [
    "COLUMNS",
    "CORE_COLUMNS",
    "Row",
    "Summary",
    "add_arguments",
    "batch_size_for",
    "main",
    "percent",
    "rate_seeds",
    "wilson_interval",
]
