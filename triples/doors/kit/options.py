"""The option parsers of every command, one of each: a seed range, a positive or non-negative
integer, a worker count, a port, a positive number of seconds, a scheduler.

Each is a function from the option's text to its value that raises
``argparse.ArgumentTypeError`` with a message naming the text, so argparse reports a refusal
as ``argument --seeds: ...`` on one line (the commands make argparse's errors one line).

Seeds are 0..2^32-1: the deal keeps only a seed's low 32 bits, so seeds 2^32 apart deal the same
cards. A wider range would count those deals twice, so it is refused rather than repeated.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from dataclasses import dataclass
from datetime import date

from triples.doors.kit.exits import BadInput
from triples.model.shuffle import MASK32

MAX_SEED = MASK32  # 4294967295: seeds past it deal what seed - 2^32 deals
LOCAL = "local"


@dataclass(frozen=True)
class SeedRange:
    """An inclusive range of seeds, ``first <= last``, both in 0..MAX_SEED."""

    first: int
    last: int

    @property
    def seeds(self) -> range:
        return range(self.first, self.last + 1)

    def __len__(self) -> int:
        return self.last - self.first + 1

    def __str__(self) -> str:
        return f"{self.first}-{self.last}"


def seed_range(text: str) -> SeedRange:
    """``A-B`` (or a single seed ``A``): the seeds from A to B inclusive."""
    parts = text.strip().split("-")
    if parts and parts[0] == "" and len(parts) > 1:  # a leading minus sign
        raise argparse.ArgumentTypeError(f"{text}: seeds are integers from 0 to {MAX_SEED}")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() and p.isascii() for p in parts):
        raise argparse.ArgumentTypeError(f"{text}: expected a range A-B of seeds, like 1-1000")
    first, last = int(parts[0]), int(parts[-1])
    if last > MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"{text}: seeds are integers from 0 to {MAX_SEED} (a deal repeats every 2^32 seeds)"
        )
    if first > last:
        raise argparse.ArgumentTypeError(f"{text}: the range is empty (A must not exceed B)")
    return SeedRange(first, last)


def positive_int(text: str) -> int:
    stripped = text.strip()
    if not (stripped.isdigit() and stripped.isascii() and int(stripped) > 0):
        raise argparse.ArgumentTypeError(f"{text}: expected a positive integer")
    return int(stripped)


def non_negative_int(text: str) -> int:
    stripped = text.strip()
    if not (stripped.isdigit() and stripped.isascii()):
        raise argparse.ArgumentTypeError(f"{text}: expected a non-negative integer")
    return int(stripped)


def jobs(text: str) -> int:
    """A worker process count: a positive integer (the commands default to the core count)."""
    return positive_int(text)


def core_count() -> int:
    return os.cpu_count() or 1


# Longer than any wait anyone means, and short enough for a clock's arithmetic.
MOST_SECONDS = 1e9


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds (refuses nan, inf and anything past MOST_SECONDS)."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not (0 < number <= MOST_SECONDS):
        raise argparse.ArgumentTypeError(f"{text}: expected a positive number of seconds")
    return number


def positive_rate(text: str) -> float:
    """A positive, finite number of events (requests a second, names an hour)."""
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not (0 < number <= MOST_SECONDS):
        raise argparse.ArgumentTypeError(f"{text}: expected a positive number")
    return number


def port(text: str) -> int:
    """A TCP port, 0 (any free port) to 65535."""
    stripped = text.strip()
    if not (stripped.isdigit() and stripped.isascii() and int(stripped) <= 65535):
        raise argparse.ArgumentTypeError(f"{text}: expected a port number from 0 to 65535")
    return int(stripped)


@dataclass(frozen=True)
class Scheduler:
    """Where Dask work goes: a scheduler's address, or a local cluster of ``local_workers``."""

    address: str
    local_workers: int | None = None  # set for local and local:N

    @property
    def is_local(self) -> bool:
        return self.local_workers is not None


def scheduler(text: str) -> Scheduler:
    """``local`` (a local cluster of the core count), ``local:N``, or a scheduler's address."""
    if text == LOCAL:
        return Scheduler(text, core_count())
    head, colon, count = text.partition(":")
    if head != LOCAL or not colon:
        return Scheduler(text)
    if not (count.isdigit() and count.isascii() and int(count) > 0):
        raise argparse.ArgumentTypeError(f"{text}: expected {LOCAL}:N with N a positive integer")
    return Scheduler(text, int(count))


def day_of(option: str, text: str) -> date:
    """The date ``text`` names, YYYY-MM-DD exactly; BadInput naming ``option`` otherwise."""
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        raise BadInput(f"{option} {text}: expected a date YYYY-MM-DD")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BadInput(f"{option} {text}: no such date") from None
