"""How often a player and a client address may call the players' game: token buckets.

Each key (a player, or a client address) has a bucket that holds up to ``burst`` requests and
refills at ``rate`` a second; a request takes one, and a request that finds the bucket empty is
refused with ``429`` and ``Retry-After``: the whole seconds until the bucket holds one again.
Three limits, each a setting of ``triples serve`` (``PlayLimits``):

- per player (token), on ``/play``: what a person or a well-behaved program plays;
- per client address, on ``/play`` and ``/players`` together: what one machine may ask;
- per client address, new players an hour: accounts are cheap to make and each one is a new
  token with a bucket of its own, so making them has its own, much slower, rate.

The buckets live in the server process that answers: with ``--workers N`` each process counts
on its own (a client's connections are spread over them, so it may reach up to N times a
limit). Buckets left full are dropped once there are ``MAX_KEYS`` of them, so a scan from many
addresses cannot grow them without bound.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

MAX_KEYS = 100_000
# How ``triples serve`` hands the limits to its server processes (PlayLimits as JSON): they inherit it.
LIMITS_VARIABLE = "TRIPLES_PLAY_LIMITS"


class PlayLimits(BaseModel):
    """The limits of the players' game (the defaults are the documented ones, docs/players.md)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    player_rate: float = Field(default=10.0, gt=0)  # requests a second per player on /play
    address_rate: float = Field(default=50.0, gt=0)  # requests a second per address on /play and /players
    new_players_per_hour: float = Field(default=20.0, gt=0)  # POST /players per address an hour


@dataclass
class Bucket:
    tokens: float
    updated: float


class Buckets:
    """Token buckets by key: ``rate`` a second, at most ``burst`` held."""

    def __init__(self, rate: float, burst: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.clock = clock
        self.buckets: dict[str, Bucket] = {}

    def take(self, key: str) -> int:
        """Take one request for ``key``: 0 when allowed, else the seconds to wait (at least 1)."""
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= MAX_KEYS:
                self.forget_full(now)
            bucket = self.buckets[key] = Bucket(self.burst, now)
        else:
            bucket.tokens = min(self.burst, bucket.tokens + (now - bucket.updated) * self.rate)
            bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return 0
        return max(1, math.ceil((1.0 - bucket.tokens) / self.rate))

    def forget_full(self, now: float) -> None:
        """Drop the buckets that have refilled: forgetting them changes nothing."""
        full = [key for key, b in self.buckets.items() if b.tokens + (now - b.updated) * self.rate >= self.burst]
        for key in full:
            del self.buckets[key]


class Limiter:
    """The three limits of ``PlayLimits``, each a set of buckets."""

    def __init__(self, limits: PlayLimits, clock: Callable[[], float] = time.monotonic) -> None:
        # A second's worth of requests, twice over, may come at once: a page that loads asks a few.
        self.per_player = Buckets(limits.player_rate, 2 * limits.player_rate, clock)
        self.per_address = Buckets(limits.address_rate, 2 * limits.address_rate, clock)
        per_hour = limits.new_players_per_hour
        self.new_players = Buckets(per_hour / 3600.0, per_hour, clock)
