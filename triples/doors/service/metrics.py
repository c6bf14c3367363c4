"""What ``GET /metrics`` shows, in Prometheus's text format: one registry per application, so
that applications built side by side (as the tests build them) count apart."""

from __future__ import annotations

from collections import Counter as Tally
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST

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

    def __init__(self, operation_names: Iterable[str]) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
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
        self.in_flight = Gauge("triples_requests_in_flight", "Requests being answered now", registry=self.registry)
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
        self.operation_names = frozenset(operation_names)
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
        return generate_latest(self.registry)
