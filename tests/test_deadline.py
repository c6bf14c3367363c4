"""The cooperative time limit (triples/support/deadline.py): a deadline per context, one that
another thread can end early, and how often the engines look at the clock."""

from __future__ import annotations

import threading
import time

import pytest

from triples import run
from triples.api import OperationTimedOut
from triples.support import deadline


def test_check_raises_only_within_a_limit_that_has_passed() -> None:
    deadline.check()  # no limit: nothing
    with deadline.limited(60):
        deadline.check()
    with deadline.limited(deadline.Deadline(-1)), pytest.raises(deadline.TimeLimitExceeded):
        deadline.check()
    deadline.check()  # the limit ended with its block


def test_a_deadline_restarts_unless_it_was_ended() -> None:
    limit = deadline.Deadline(-1)
    assert limit.passed()
    limit.restart(60)
    assert not limit.passed()
    limit.expire()
    limit.restart(60)  # ended early: it stays ended
    assert limit.passed()


def test_another_thread_can_end_a_search_at_once() -> None:
    limit = deadline.Deadline(3600)
    stopped: list[BaseException] = []

    def search() -> None:
        with deadline.limited(limit):
            try:  # minutes of work: lookahead over some 12,000 combinations a move
                run([["new", "g", 1, {"base": "grid100", "per_move": 6, "target": 78}], ["autoplay", "g", "lookahead"]])
            except deadline.TimeLimitExceeded as exc:
                stopped.append(exc)

    thread = threading.Thread(target=search)
    thread.start()
    time.sleep(0.3)
    limit.expire()
    thread.join(timeout=30)
    assert not thread.is_alive() and len(stopped) == 1


@pytest.mark.parametrize(
    "operation",
    [["autoplay", "g", "lookahead"], ["rating", "g"], ["fair_move", "g"], ["autoplay", "g", "fair"]],
    ids=["lookahead", "rating", "fair-move", "fair"],
)
def test_every_engine_stops_at_the_limit_on_rules_with_many_combinations(operation: list[object]) -> None:
    # Each of these takes minutes on six cards a move over a hundred slots: the limit stops it.
    with pytest.raises(OperationTimedOut, match="exceeded at operation 1"):
        run([["new", "g", 1, {"base": "grid100", "per_move": 6, "target": 78}], operation], time_limit=0.2)


def test_the_clock_is_looked_at_more_often_where_a_step_costs_more() -> None:
    assert [deadline.check_mask(n) for n in (13, 85, 500, 12_000, 10**6)] == [1023, 255, 63, 1, 0]
