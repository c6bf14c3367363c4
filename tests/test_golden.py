"""The golden playthroughs of fixtures/golden/ replay exactly: cold and warm, in shuffled orders.

Each deal's line pins ``solve``'s exact line, the best, the search's starting bound and the
states it expanded, and every strategy's moves. Replaying all rule sets' deals interleaved in a
shuffled order, first with every cache empty and then again warm in another order, shows that
no answer depends on what ran before it.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from tests.golden import FAIR_DEALS, GOLDEN, RULE_SETS, dumps, playthrough
from triples.support import caches

Case = tuple[str, Any, dict[str, Any]]  # (file stem, variant, the pinned line)


def pinned() -> list[Case]:
    cases: list[Case] = []
    for stem, spec, deals in RULE_SETS:
        head, *lines = (orjson.loads(line) for line in (GOLDEN / f"{stem}.jsonl").read_bytes().splitlines())
        assert head["variant"] == spec and head["deals"] == deals == len(lines), stem
        cases += [(stem, spec, line) for line in lines]
    return cases


def mismatches(cases: list[Case], enough: int = 10) -> list[str]:
    """The first ``enough`` deals that do not replay as pinned (stopping there: a change that
    breaks many deals is told as fast as one that breaks a few, which mutation runs need)."""
    found: list[str] = []
    for stem, spec, expected in cases:
        got = playthrough(spec, expected["seed"], with_fair=expected["seed"] <= FAIR_DEALS)
        if dumps(got) != dumps(expected):
            differing = sorted(key for key in expected if dumps(expected[key]) != dumps(got.get(key)))
            found.append(f"{stem} seed {expected['seed']}: {differing}")
            if len(found) == enough:
                break
    return found


def test_every_rule_set_has_its_file_and_no_file_is_stray() -> None:
    assert sorted(path.stem for path in GOLDEN.glob("*.jsonl")) == sorted(stem for stem, _, _ in RULE_SETS)


def test_golden_playthroughs_replay_cold_then_warm_in_shuffled_orders() -> None:
    cases = pinned()
    assert len(cases) == sum(deals for _, _, deals in RULE_SETS)
    order = random.Random(20261204)
    cold = cases[:]
    order.shuffle(cold)
    caches.clear()
    assert mismatches(cold) == []
    warm = cases[:]
    order.shuffle(warm)
    assert warm != cold
    assert mismatches(warm) == []


@pytest.mark.parametrize("stem", ["classic", "grid100", "sum15-one-suit-12-slots"])
def test_a_pinned_line_plays_to_its_best_through_the_interpreter(stem: str) -> None:
    from triples import run

    spec = next(spec for name, spec, _ in RULE_SETS if name == stem)
    for _, _, line in [case for case in pinned() if case[0] == stem][:20]:
        moves = line["solve"]["moves"]
        outputs = run([["new", "g", line["seed"], spec], *(["play", "g", move] for move in moves), ["status", "g"]])
        assert outputs[1:-1] == ["ok"] * len(moves)
        assert outputs[-1] == {"cleared": line["best"], "stock": outputs[-1]["stock"], "over": True}


def test_the_golden_files_are_one_sorted_object_per_line_in_seed_order() -> None:
    # The header and layout: one sorted-key JSON object per line, the deals in seed order.
    for stem, _, deals in RULE_SETS:
        lines = (GOLDEN / f"{stem}.jsonl").read_bytes().splitlines()
        assert [orjson.loads(line)["seed"] for line in lines[1:]] == list(range(1, deals + 1))
        assert all(dumps(orjson.loads(line)) == line for line in lines), stem
