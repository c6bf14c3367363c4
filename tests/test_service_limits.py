"""The players' rate limits (triples/doors/service/limits.py): token buckets on a clock of the
test's own, their Retry-After, and the buckets a scan from many addresses leaves behind."""

from __future__ import annotations

import pytest

from triples.doors.service import limits
from triples.doors.service.limits import Buckets, Limiter, PlayLimits


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    buckets = Buckets(rate=2.0, burst=4.0, clock=clock)
    assert [buckets.take("a") for _ in range(5)] == [0, 0, 0, 0, 1]
    assert buckets.take("b") == 0  # another key has a bucket of its own
    clock.now = 0.5  # one request refilled
    assert [buckets.take("a"), buckets.take("a")] == [0, 1]
    clock.now = 100.0  # never more than the burst
    assert [buckets.take("a") for _ in range(5)] == [0, 0, 0, 0, 1]


def test_retry_after_is_the_whole_seconds_until_a_request_is_allowed() -> None:
    clock = Clock()
    buckets = Buckets(rate=1 / 180, burst=1.0, clock=clock)  # 20 an hour
    assert [buckets.take("a"), buckets.take("a")] == [0, 180]
    clock.now = 179.5
    assert buckets.take("a") == 1
    clock.now = 180.0
    assert buckets.take("a") == 0


def test_the_limiter_has_the_documented_defaults() -> None:
    clock = Clock()
    limiter = Limiter(PlayLimits(), clock)
    assert (limiter.per_player.rate, limiter.per_player.burst) == (10.0, 20.0)
    assert (limiter.per_address.rate, limiter.per_address.burst) == (50.0, 100.0)
    assert [limiter.new_players.take("a") for _ in range(21)] == [0] * 20 + [180]


def test_full_buckets_are_forgotten_once_there_are_too_many(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_KEYS", 3)
    clock = Clock()
    buckets = Buckets(rate=1.0, burst=2.0, clock=clock)
    for key in "abc":
        buckets.take(key)
    clock.now = 0.5
    buckets.take("a")  # "a" is not full; "b" and "c" refill by 1.0
    clock.now = 1.0
    buckets.take("d")
    assert sorted(buckets.buckets) == ["a", "d"]


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="player_rate"):
        PlayLimits(player_rate=0)
