"""What the store keeps, as Python values: one frozen dataclass a kind of record, and the store's
one error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from triples.support.errors import TriplesError

Value = int | float | bool | str


class StoreError(TriplesError):
    """The store cannot be used: reported in one line."""


PROVENANCE_COLUMNS: tuple[str, ...] = ("variant", "strategy", "analyses", "version")


@dataclass(frozen=True)
class Provenance:
    """What made a row: every column but the timing is a function of these and the seed.

    Rows files carry it on every row (the columns of ``PROVENANCE_COLUMNS``), so a file resumed
    with other options is refused instead of mixed, and the store keys rows by it: a row is
    reused only under exactly the same provenance. ``variant`` is the canonical name;
    ``analyses`` names the opt-in columns asked for: ``none``, ``fair`` (--fair) or
    ``difficulty`` (--difficulty, which brings fair along).
    """

    variant: str
    strategy: str
    analyses: str
    version: str

    def differences(self, wanted: Provenance) -> list[str]:
        """``name this (not wanted)`` for each field where this differs from ``wanted``."""
        return [
            f"{name} {getattr(self, name)} (not {getattr(wanted, name)})"
            for name in PROVENANCE_COLUMNS
            if getattr(self, name) != getattr(wanted, name)
        ]


@dataclass(frozen=True)
class Deal:
    """One date of a variant's calendar."""

    date: str  # YYYY-MM-DD
    variant: str  # canonical name
    seed: int
    spec: Any  # what ``new`` takes as its variant (a name, or a rule-set object)
    band: str
    best: int
    fair: int
    p_random: float


@dataclass(frozen=True)
class SecretDeal:
    """One date of a variant's secret calendar: a deck drawn at random, never a seed."""

    date: str  # YYYY-MM-DD
    variant: str  # canonical name
    deal: str  # a short random id, derived from nothing a player sees
    spec: Any  # what ``new`` takes as its variant
    deck: tuple[str, ...]  # card codes, top first
    band: str
    best: int
    fair: int
    p_random: float
    line: tuple[tuple[int, ...], ...]  # a best line's moves


@dataclass(frozen=True)
class Player:
    id: int
    name: str


@dataclass(frozen=True)
class Attempt:
    """A player's one attempt at a secret deal; times in milliseconds since the epoch."""

    id: int
    player: int
    deal: str
    started: int
    turn: int  # moves made
    cleared: int
    last_move: int  # the start while no move is made
    finished: int | None  # when the last move left no legal move; None while one is left


@dataclass(frozen=True)
class PlayedMove:
    turn: int
    slots: tuple[int, ...]
    played: int


@dataclass(frozen=True)
class Standing:
    """A finished attempt on a leaderboard."""

    name: str
    cleared: int
    moves: int
    milliseconds: int  # from the attempt's start to its last move
    finished: int
    suspect: bool | None = None  # the attempt's audit: played as no blind player plays (None: not audited)


@dataclass(frozen=True)
class FinishedAttempt:
    """A finished attempt with its player's name and its moves, as an audit judges it."""

    attempt: Attempt
    name: str
    moves: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class AuditRecord:
    """What the audit of one finished attempt found (``triples audit``), kept so that it is
    worked out once: an attempt's moves never change once it is finished."""

    attempt: int
    moves: int
    sighted: int
    p: float
    verdict: str  # "blind" or "suspect"
    engine_match: float | None
    version: str  # the audit's method (``triples.engines.audit.METHOD``)


@dataclass(frozen=True)
class Leaderboard:
    started: int
    finished: int
    entries: list[Standing]


def dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def deal_of(record: tuple[Any, ...]) -> Deal:
    variant, date, seed, spec, band, best, fair, p_random = record
    return Deal(date, variant, seed, orjson.loads(spec), band, best, fair, p_random)


def secret_deal_of(record: tuple[Any, ...]) -> SecretDeal:
    variant, date, deal, spec, deck, band, best, fair, p_random, line = record
    moves = tuple(tuple(move) for move in orjson.loads(line))
    return SecretDeal(
        date, variant, deal, orjson.loads(spec), tuple(orjson.loads(deck)), band, best, fair, p_random, moves
    )
