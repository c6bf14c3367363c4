"""Every cache the engines keep between calls, in one place: bounded by memory, keyed by value,
one ``clear``.

Two kinds, both registered here so that ``clear()`` empties them all and ``settle()`` keeps
them, together, within one budget of bytes (``budget()``, 512 MiB unless ``set_budget`` says
otherwise; ``triples serve`` sets its own):

- ``PerVariant``: a table derived from a variant's rules (``triples.model.derived``, the search's
  layouts, bounds and kits, the fair player's packing), keyed by the ``Variant`` itself. A
  variant is a frozen model whose hash is computed once, and equal only to a variant with the
  same rules and name, so two variants that share a name but not their rules never share an
  entry. Each entry's size is measured once, when it is built (``footprint``); an entry that
  holds memos of its own (a search kit, the fair player's expectimax) adds theirs as they grow.
- ``Memo``: what a pure function of its key returned (a bound per multiset, a fair choice
  per seen position, an expectimax value per state), in a plain dict, since the engines read
  them in their innermost loops; past its bound in entries the oldest tenth of its entries are
  dropped (insertion order), never the whole, so speed has no cliff. Its size in bytes is its
  dict's own plus its entry count times an entry's size, measured on a sample of entries.

``settle()`` runs between computations (before each search, each fair move, on each table
built): at most ten times a second it adds up every cache, and while the total is over the
budget it drops the least recently used tables, across every kind, never the one asked for
last; if that one alone is over, its memos keep only their newest entries. So memory
follows the budget whatever the rule sets asked for, and answers never depend on what was
kept: every entry is a pure function of its key.

Thread safety, for the service's worker threads: an entry is a pure function of its key, so
a reader that misses an entry another thread just dropped recomputes the same value. Single
dict operations are atomic under the interpreter lock; eviction takes its victims with one
C-level pass and removes them one by one; the engines never iterate a memo.
"""

from __future__ import annotations

import sys
import threading
import types
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import count, islice
from time import monotonic
from typing import Any, Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_NOTHING = object()  # a key no caller has

MIB = 1024 * 1024
DEFAULT_BUDGET = 512 * MIB  # bytes every cache together may hold (``set_budget`` changes it)
# Distinct keys a PerVariant table keeps at most, whatever their size (a sweep over rule sets sees many).
VARIANTS_KEPT = 64
SETTLE_EVERY = 0.1  # seconds: the accounts are added up at most this often
_SAMPLE = 16  # entries a memo's entry size is measured on

_budget = DEFAULT_BUDGET
_clock = count()  # one clock for every table, so that the least recently used is found across all
_lock = threading.RLock()
_last_settled = float("-inf")


def budget() -> int:
    """The bytes every cache together may hold."""
    return _budget


def set_budget(limit: int) -> None:
    """Hold every cache within ``limit`` bytes from now on (at the next ``settle``)."""
    global _budget, _last_settled
    if limit < 1:
        raise ValueError("a cache budget is a positive number of bytes")
    _budget = limit
    _last_settled = float("-inf")


# ---------------------------------------------------------------- measuring


def footprint(root: object) -> int:
    """The bytes ``root`` and everything it refers to occupy, each object counted once: the
    measured size of a table, taken once when it is built. Walks tuples, lists, sets, dicts,
    and the fields of objects (``__dict__`` and ``__slots__``); classes, functions and modules
    are shared by everyone and not counted. A container of many items is measured on an even
    sample of them (its own size exactly), so that measuring costs a small part of building."""
    return int(_walk(root, set()))


_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)
_ATOMS = (str, bytes, int, float, complex, type(None))
_SAMPLE_PAST = 64  # items a container may have and still be walked whole
_SAMPLED = 32  # items walked of a larger one


def _walk(root: object, seen: set[int]) -> float:
    total = 0.0
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, _SHARED) or (type(item) is int and -5 <= item <= 256):
            continue  # shared by everyone: small ints are made once by the interpreter
        seen.add(id(item))
        total += sys.getsizeof(item)
        if isinstance(item, _ATOMS):
            continue
        children: Sequence[object]
        if isinstance(item, dict):
            children = [*item.keys(), *item.values()]
        elif isinstance(item, tuple | list):
            children = item
        elif isinstance(item, set | frozenset):
            children = list(item)
        else:
            children = [getattr(item, "__dict__", None)]
            children += [
                getattr(item, name, None)
                for cls in type(item).__mro__
                for name in getattr(cls, "__slots__", ())
                if name != "__weakref__"
            ]
            children = [child for child in children if child is not None]
        if len(children) > _SAMPLE_PAST:
            # Items another container holds too (a table's combinations in two orders) were
            # counted with it: only the others are sampled, and then all are marked seen.
            fresh = [child for child in children if id(child) not in seen]
            if len(fresh) > _SAMPLE_PAST:
                step = len(fresh) / _SAMPLED
                sampled = sum(_walk(fresh[int(i * step)], seen) for i in range(_SAMPLED))
                total += sampled * len(fresh) / _SAMPLED
                seen.update(map(id, fresh))
            else:
                stack.extend(fresh)
        else:
            stack.extend(children)
    return total


def _shallow(value: object) -> int:
    """An entry's key or value: its own bytes and those of the tuples and large ints in it (a
    memo's values refer to shared moves and combinations, counted with their table)."""
    size = sys.getsizeof(value)
    if type(value) is tuple:
        for item in value:
            if type(item) is tuple or (type(item) is int and not -5 <= item <= 256):
                size += sys.getsizeof(item)
    return size


class Memo(Generic[K, V]):
    """A plain dict, ``data``, with a bound: ``trim`` drops the oldest tenth of the entries
    once over it. The engines read ``data`` itself in their inner loops (an exact dict is what
    the interpreter's fast paths are for), and it is never replaced, only trimmed in place."""

    __slots__ = ("_entry_bytes", "_sampled_at", "data", "limit", "name")

    def __init__(self, name: str, limit: int) -> None:
        self.name = name
        self.limit = limit
        self.data: dict[K, V] = {}
        self._entry_bytes = 0.0  # an entry's measured size (key, value and their parts)
        self._sampled_at = 0  # the entry count it was measured at

    def trim(self) -> None:
        """Drop the oldest entries when over the bound (callers call it between searches)."""
        data = self.data
        excess = len(data) - self.limit
        if excess > 0:
            self.drop_oldest(excess + self.limit // 10)

    def drop_oldest(self, how_many: int) -> None:
        data = self.data
        for key in list(islice(data, how_many)):
            data.pop(key, None)

    def keep_newest(self, how_many: int) -> None:
        """Keep only the ``how_many`` newest entries, in a table of their size: a dict keeps
        its table when entries are dropped, so it is emptied (which frees it) and refilled.
        The dict stays the same object, so whoever holds ``data`` still holds the memo."""
        data = self.data
        kept = list(islice(reversed(data.items()), max(0, how_many)))
        data.clear()
        data.update(reversed(kept))

    def nbytes(self) -> int:
        """The memo's size: its dict's own table plus each entry's key and value, measured on a
        sample of entries again whenever the count has doubled or halved since."""
        data = self.data
        entries = len(data)
        sampled_at = self._sampled_at
        if entries and (not sampled_at or entries >= 2 * sampled_at or entries <= sampled_at // 2):
            sample = list(islice(data.items(), _SAMPLE))
            if sample:
                self._entry_bytes = sum(_shallow(key) + _shallow(value) for key, value in sample) / len(sample)
                self._sampled_at = entries
        return sys.getsizeof(data) + int(entries * self._entry_bytes)

    def __len__(self) -> int:
        return len(self.data)

    def clear(self) -> None:
        self.data.clear()


def memos_of(table: object) -> Iterable[Memo[Any, Any]]:
    """The memos a table holds of its own (a kit's, an expectimax's): it lists them in ``memos()``."""
    listed = getattr(table, "memos", None)
    return listed() if callable(listed) else ()


class PerVariant(Generic[K, V]):
    """One table per key (a variant, or a variant and an option), built on first use by
    ``build``; the least recently used go first when the caches pass their budget (``settle``),
    or past ``limit`` keys."""

    def __init__(self, name: str, build: Callable[[K], V], limit: int = VARIANTS_KEPT) -> None:
        self.name = name
        self.build = build
        self.limit = limit
        # Per key: [table, when it was last used, its measured bytes]. A hit stamps the entry
        # in place, so it hashes the key once (a variant's hash is a Python call).
        self._tables: dict[K, list[Any]] = {}
        # The key asked last and its table, as one tuple (replaced whole, so a thread never
        # reads a key with another's table): a run of searches asks for one variant again and
        # again, and the same object needs no hash. Its table is a pure derivation of the key,
        # so it stays right even if the entry has since been evicted.
        self._last: tuple[object, list[Any]] = (_NOTHING, [None, 0, 0])

    def __call__(self, key: K) -> V:
        last = self._last
        if last[0] is key:
            hit = last[1]
            hit[1] = next(_clock)  # stamped: the table in use is the last to go
            return hit[0]  # type: ignore[no-any-return]
        found = self._tables.get(key)
        if found is not None:
            found[1] = next(_clock)
            self._last = (key, found)
            return found[0]  # type: ignore[no-any-return]
        # Built outside the lock: a build may need other tables. Two threads may both build
        # one; the tables are deterministic, so either result serves.
        built = self.build(key)
        size = footprint(built)
        with _lock:
            tables = self._tables
            entry = tables.setdefault(key, [built, next(_clock), size])
            while len(tables) > self.limit:
                oldest = min(tables, key=lambda k: tables[k][1])
                del tables[oldest]
        self._last = (key, entry)
        settle(force=size > _budget // 16)  # a large table is accounted for at once
        return entry[0]  # type: ignore[no-any-return]

    def entries(self) -> list[tuple[int, int, K, Any]]:
        """(last used, bytes now, key, table) per entry: its measured size plus its own memos'."""
        return [
            (entry[1], entry[2] + sum(memo.nbytes() for memo in memos_of(entry[0])), key, entry[0])
            for key, entry in list(self._tables.items())
        ]

    def evict(self, key: K) -> None:
        self._tables.pop(key, None)
        if self._last[0] is key or self._last[0] == key:
            self._last = (_NOTHING, [None, 0, 0])

    def __len__(self) -> int:
        return len(self._tables)

    def clear(self) -> None:
        with _lock:
            self._tables.clear()
            self._last = (_NOTHING, [None, 0, 0])


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


def held() -> int:
    """The bytes every cache holds now, as ``settle`` counts them."""
    with _lock:
        in_tables = sum(size for table in _TABLES for _, size, _, _ in table.entries())
        return in_tables + sum(kept.nbytes() for kept in _MEMOS)


def settle(*, force: bool = False) -> None:
    """Keep every cache within the budget (see the module docstring). Cheap when called often:
    the accounts are added up at most every ``SETTLE_EVERY`` seconds unless ``force``."""
    global _last_settled
    now = monotonic()
    if not force and now - _last_settled < SETTLE_EVERY:
        return
    with _lock:
        _last_settled = now
        entries = sorted(
            ((stamp, size, table, key, held) for table in _TABLES for stamp, size, key, held in table.entries()),
            key=lambda entry: entry[0],
        )
        total = sum(entry[1] for entry in entries) + sum(kept.nbytes() for kept in _MEMOS)
        limit = _budget
        for _, size, table, key, _ in entries[:-1]:  # never the table asked for last
            if total <= limit:
                return
            table.evict(key)
            total -= size
        if total <= limit:
            return
        # What is left is over the budget by itself: its memos (and the registered ones) keep
        # their newest entries, as many as fit.
        memos = [*_MEMOS, *(memo for entry in entries[-1:] for memo in memos_of(entry[4]))]
        in_memos = sum(memo.nbytes() for memo in memos)
        if in_memos > 0:
            share = max(0.0, 1 - (total - limit) / in_memos)
            for memo in memos:
                memo.keep_newest(int(len(memo) * share))
