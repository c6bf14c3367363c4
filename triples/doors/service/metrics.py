"""What ``GET /metrics`` shows, in Prometheus's text format.

In one process, one registry per application, so that applications built side by side (as the
tests build them) count apart. With several server processes (``triples serve --workers N``),
prometheus-client's multiprocess mode: each process writes its counters into the folder named
by ``PROMETHEUS_MULTIPROC_DIR`` (``triples serve`` makes one), and a scrape, whichever process
answers it, adds up every process's. Alongside the counters, a gauge read from the store at each
scrape: how many days ahead each calendar runs (negative: it has run out), worth an alert.
"""

from __future__ import annotations

import os
from collections import Counter as Tally
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector

CONTENT_TYPE = CONTENT_TYPE_LATEST
MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"

# The paths counted by name; any other is "other", so that a scan of random URLs cannot grow
# the metrics without bound.
KNOWN_PATHS = frozenset({"/run", "/health", "/metrics", "/", "/docs", "/openapi.json", "/players", "/play"})
PATH_PREFIXES = ("/static/", "/docs/assets/", "/daily/", "/play/", "/leaderboard/")
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


def path_label(path: str) -> str:
    if path in KNOWN_PATHS:
        return path
    for prefix in PATH_PREFIXES:
        if path.startswith(prefix):
            return prefix + "*"
    return "other"


class ServiceMetrics:
    """The counters of one application."""

    def __init__(self, operation_names: Iterable[str], store: str | None = None) -> None:
        self.shared = bool(os.environ.get(MULTIPROCESS_VARIABLE))
        # Shared: the metrics write to the folder and belong to no registry; each scrape gathers.
        self.registry: CollectorRegistry | None = None if self.shared else CollectorRegistry(auto_describe=True)
        self.store = store
        self.requests = Counter(
            "triples_requests", "HTTP requests answered, by path and status", ["path", "status"], registry=self.registry
        )
        self.latency = Histogram(
            "triples_request_seconds",
            "Time from a request's arrival to its answer, by path",
            ["path"],
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "triples_requests_in_flight",
            "Requests being answered now",
            registry=self.registry,
            multiprocess_mode="livesum",
        )
        self.operations = Counter(
            "triples_operations", "Operations received in POST /run, by name", ["operation"], registry=self.registry
        )
        self.time_limit_hits = Counter(
            "triples_time_limit_hits", "Requests stopped by the time limit", registry=self.registry
        )
        self.overloaded = Counter(
            "triples_overload_rejections",
            "Requests refused with 503 because too many were waiting",
            registry=self.registry,
        )
        self.internal_errors = Counter(
            "triples_internal_errors",
            "Defects met while answering: an operation's internal error, or a 500 (each logged with its traceback)",
            registry=self.registry,
        )
        self.operation_names = frozenset(operation_names)
        if self.registry is not None and store is not None:
            self.registry.register(CalendarAhead(store))
        self._requests: dict[tuple[str, int], Any] = {}
        self._latency: dict[str, Any] = {}
        self._operations: dict[str, Any] = {}

    def observe(self, path: str, status: int, seconds: float) -> None:
        label = path_label(path)
        key = (label, status)
        child = self._requests.get(key)
        if child is None:  # a labelled child is found by a lock and a dict: keep them once found
            child = self._requests[key] = self.requests.labels(label, str(status))
        child.inc()
        latency = self._latency.get(label)
        if latency is None:
            latency = self._latency[label] = self.latency.labels(label)
        latency.observe(seconds)

    def count_operations(self, operations: list[Any]) -> None:
        tally = Tally(op[0] if type(op) is list and op and type(op[0]) is str else None for op in operations)
        for name, count in tally.items():
            label = "malformed" if name is None else name if name in self.operation_names else "unknown"
            child = self._operations.get(label)
            if child is None:
                child = self._operations[label] = self.operations.labels(label)
            child.inc(count)

    def text(self) -> bytes:
        if self.registry is not None:
            return generate_latest(self.registry)
        from prometheus_client import multiprocess

        gathered = CollectorRegistry()
        multiprocess.MultiProcessCollector(gathered)  # type: ignore[no-untyped-call]
        if self.store is not None:
            gathered.register(CalendarAhead(self.store))
        return generate_latest(gathered)


class CalendarAhead(Collector):
    """``triples_calendar_days_ahead{calendar, variant}``: the days from today (UTC) to each
    calendar's last published date, read from the store at each scrape."""

    def __init__(self, store: str) -> None:
        self.store = store

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from triples.store import StoreError, open_store, readable

        family = GaugeMetricFamily(
            "triples_calendar_days_ahead",
            "Days from today (UTC) to the calendar's last published date; below 0 it has run out",
            labels=["calendar", "variant"],
        )
        if "://" in self.store or readable(self.store) is None:
            today = datetime.now(UTC).date()
            try:
                with open_store(self.store) as opened:
                    ends = opened.calendar_ends()
            except StoreError:
                ends = []
            for kind, variant, last in ends:
                family.add_metric([kind, variant], (date.fromisoformat(last) - today).days)
        yield family
