"""Every cache the engines keep between calls, in one place: bounded, keyed by value, one ``clear``.

Two kinds, both registered here so that ``clear()`` empties them all:

- ``PerVariant``: a table derived from a variant's rules (``triples.model.derived``, the search's
  layouts and bounds, the fair player's packing), keyed by the ``Variant`` itself. A variant
  is a frozen model whose hash is computed once, and equal only to a variant with the same
  rules and name, so two variants that share a name but not their rules never share an
  entry. Least recently used first out, past ``VARIANTS_KEPT`` variants (a sweep over rule
  sets sees many).
- ``Memo``: what a pure function of its key returned (a bound per multiset, a fair choice
  per seen position, an expectimax value per state), in a plain dict, since the engines read
  them in their innermost loops; past its bound the oldest tenth of its entries are dropped
  (insertion order), never the whole, so speed has no cliff.

Thread safety, for the service's worker threads: an entry is a pure function of its key, so
a reader that misses an entry another thread just dropped recomputes the same value. Nothing
ever clears a dict another thread may be reading, except ``clear()`` itself, which is for
tests and benchmarks between runs. Single dict operations are atomic under the interpreter
lock; eviction takes its victims with one C-level pass and removes them one by one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from itertools import count, islice
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_NOTHING = object()  # a key no caller has

# Distinct variants whose derived tables are kept.
VARIANTS_KEPT = 64


class Memo(Generic[K, V]):
    """A plain dict, ``data``, with a bound: ``trim`` drops the oldest tenth of the entries
    once over it. The engines read ``data`` itself in their inner loops (an exact dict is what
    the interpreter's fast paths are for), and it is never replaced, only trimmed in place."""

    __slots__ = ("data", "limit", "name")

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.data: dict[K, V] = {}

    def trim(self) -> None:
        """Drop the oldest entries when over the bound (callers call it between searches)."""
        data = self.data
        excess = len(data) - self.limit
        if excess > 0:
            for key in list(islice(data, excess + self.limit // 10)):
                data.pop(key, None)

    def __len__(self) -> int:
        return len(self.data)

    def clear(self) -> None:
        self.data.clear()


class PerVariant(Generic[K, V]):
    """One table per key (a variant, or a variant and an option), built on first use by
    ``build`` and kept least recently used first out past ``limit`` keys."""

    def __init__(self, name: str, build: Callable[[K], V], limit: int = VARIANTS_KEPT) -> None:
        self.name = name
        self.build = build
        self.limit = limit
        # Per key: [table, when it was last used]. A hit stamps the entry in place, so it
        # hashes the key once (a variant's hash is a Python call); eviction, past the limit
        # only, scans the few entries for the oldest stamp.
        self._tables: dict[K, list[Any]] = {}
        self._clock = count()
        self._lock = threading.Lock()
        # The key asked last and its table, as one tuple (replaced whole, so a thread never
        # reads a key with another's table): a run of searches asks for one variant again and
        # again, and the same object needs no hash. Its table is a pure derivation of the key,
        # so it stays right even if the entry has since been evicted.
        self._last: tuple[object, Any] = (_NOTHING, None)

    def __call__(self, key: K) -> V:
        last = self._last
        if last[0] is key:
            return last[1]  # type: ignore[no-any-return]
        entry = self._tables.get(key)
        if entry is not None:
            entry[1] = next(self._clock)
            self._last = (key, entry[0])
            return entry[0]  # type: ignore[no-any-return]
        # Built outside the lock: a build may need other tables. Two threads may both build
        # one; the tables are deterministic, so either result serves.
        built = self.build(key)
        with self._lock:
            tables = self._tables
            entry = tables.setdefault(key, [built, next(self._clock)])
            while len(tables) > self.limit:
                oldest = min(tables, key=lambda k: tables[k][1])
                del tables[oldest]
        self._last = (key, entry[0])
        return entry[0]  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return len(self._tables)

    def clear(self) -> None:
        with self._lock:
            self._tables.clear()
            self._last = (_NOTHING, None)


_MEMOS: list[Memo[object, object]] = []
_TABLES: list[PerVariant[object, object]] = []


def memo(name: str, limit: int) -> Memo[K, V]:
    """A new registered ``Memo``."""
    made: Memo[K, V] = Memo(name, limit)
    _MEMOS.append(made)  # type: ignore[arg-type]
    return made


def per_variant(name: str, build: Callable[[K], V], limit: int = VARIANTS_KEPT) -> PerVariant[K, V]:
    """A new registered ``PerVariant`` table."""
    made = PerVariant(name, build, limit)
    _TABLES.append(made)  # type: ignore[arg-type]
    return made


def clear() -> None:
    """Empty every cache: the next call of any engine starts cold (tests, benchmarks)."""
    for table in _TABLES:
        table.clear()
    for kept in _MEMOS:
        kept.clear()


def sizes() -> dict[str, int]:
    """How many entries each cache holds, by name (for tests and for looking inside)."""
    found = {table.name: len(table) for table in _TABLES}
    found.update((kept.name, len(kept)) for kept in _MEMOS)
    return found
