"""``triples rate``: rate a range of seeds in parallel: autoplay, the exact best, and win rates.

Rows come out in seed order whatever executes them; only the per-run columns (``ms``) depend on
the machine. The package, by concern:

- ``rows``: what a row is (the column registry, opt-in columns) and how a batch of seeds is rated;
- ``columns``: the opt-in columns ``fair`` (``--fair``), ``p_random`` and ``band`` (``--difficulty``);
- ``executors``: where batches run: this process or a process pool (``cluster``: on Dask, loaded
  only with ``--scheduler``);
- ``formats``: the table, jsonl and csv rows, and reading a file back to resume;
- ``summary``: running totals, Wilson intervals, the histogram, fair and band totals;
- ``plots``: ``--plot FILE`` (matplotlib, an optional extra, imported only to draw);
- ``command``: the options and the run (``add_arguments`` and ``main``, used by triples.cli);
- ``pick``: ``triples pick``, the first deals of a difficulty band, rated with the same machinery.
"""

from __future__ import annotations

from triples.rate.command import add_arguments, main
from triples.rate.executors import batch_size_for, rate_seeds
from triples.rate.rows import COLUMNS, CORE_COLUMNS, Row
from triples.rate.summary import Summary, percent, wilson_interval

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
