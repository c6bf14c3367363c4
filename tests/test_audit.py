"""The audit: exact answers on known games, through ``run`` as a user sends them.

A best line on a deal where the fair player falls short is suspect; a ``high`` game is blind;
a game's undone moves never count; the fair player's own game matches the engine everywhere and
shows no sight; the interpreter's errors for the operation. The audit's draws are seeded by the
positions, so every number here is the same on every run."""

from __future__ import annotations

import math
from typing import Any

import pytest

from triples import run
from triples.engines import audit, fair, luck, search, strategies
from triples.model import rules
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variants import parse_variant


def best_line(variant: str, seed: int) -> list[list[int]]:
    return [list(move) for move in search.solve(seeded(parse_variant(variant), seed))[1]]


def played(variant: str, seed: int, moves: list[list[int]], *tail: list[Any]) -> list[Any]:
    return run([["new", "g", seed, variant], *[["play", "g", move] for move in moves], *tail])


def test_the_errors_of_the_operation() -> None:
    assert run([["audit", "g"]]) == ["error: unknown game"]
    assert run([["audit"]]) == ['error: usage: ["audit", id]']
    assert run([["new", "g", 1], ["audit", "g", 2]])[1] == 'error: usage: ["audit", id]'
    assert run([["new", "g", 1], ["audit", True]])[1] == 'error: usage: ["audit", id]'
    assert run([["new", "g", 1], ["audit", "h"]])[1] == "error: unknown game"


def test_a_best_line_where_the_fair_player_falls_short_is_suspect() -> None:
    # sum15 seed 51: the fair player clears 30, the best line 36.
    assert fair.play_fair(seeded(parse_variant("sum15"), 51)) == 30
    line = best_line("sum15", 51)
    outputs = played("sum15", 51, line, ["audit", "g"])
    assert outputs[-1] == SEED51_BEST_LINE


def test_a_high_game_is_blind() -> None:
    outputs = run([["new", "g", 51, "sum15"], ["autoplay", "g", "high"], ["audit", "g"]])
    # high's game takes one move the fair player would not have, and it was the right one on
    # this stock, but the game lost six cards to the stock later: no sign of sight.
    assert outputs[-1] == {"moves": 10, "sighted": 1, "p": 1.0, "verdict": "blind", "engine_match": 2 / 3}


def test_where_a_blind_rule_reaches_the_best_nothing_is_suspect() -> None:
    # quads seed 8: high's game clears the deal's best, 40, and one of its moves beat the fair
    # player's on this stock; but high and the fair player both clear 40 here (the easy band),
    # so sight gains nothing.
    quads = parse_variant("quads")
    table = seeded(quads, 8)
    strategies.play_out(table, strategies.strategy_named("high"))
    found = audit.audit_table(table)
    assert found.rating is not None
    assert (found.kept_best, found.rating.band, found.cleared, found.sighted) == (True, "easy", 40, 1)
    assert found.as_json() == {"moves": 10, "sighted": 1, "p": 1.0, "verdict": "blind", "engine_match": 1 / 6}
    # Told the deal's rating, the audit draws nothing: its deviation keeps no pool.
    told = audit.audit_line(quads, seeded(quads, 8).deck, table.history(), rating=audit.DealRating("easy", 0.07))
    assert told.as_json() == found.as_json() and all(d.orders == 0 and d.luck == () for d in told.decisions)


def test_where_random_players_often_reach_the_best_nothing_is_suspect() -> None:
    # quads seed 624 is of the hard band (high clears 8, the fair player 24, the best line 40),
    # but a uniformly random player reaches 40 in about half its games: more than quads allows.
    quads = parse_variant("quads")
    line = best_line("quads", 624)
    found = audit.audit_line(quads, seeded(quads, 624).deck, line)
    assert found.rating is not None and found.rating.band == "hard"
    assert found.rating.p_random == pytest.approx(0.5209962368785898)
    assert audit.random_reaches(quads) == 0.25 and not found.rating.judged(quads)
    assert played("quads", 624, line, ["audit", "g"])[-1] == {
        "moves": 10,
        "sighted": 1,
        "p": 1.0,
        "verdict": "blind",
        "engine_match": 1 / 6,
    }


def test_undone_moves_do_not_count() -> None:
    line = best_line("sum15", 51)
    clean = played("sum15", 51, line, ["audit", "g"])[-1]
    # The same game with, at its third turn, another move played and taken back, and the whole
    # rest of a high game played and taken back.
    at_third = seeded(parse_variant("sum15"), 51)
    for move in line[:2]:
        at_third.push(move)  # type: ignore[arg-type]
    other = next(list(m) for m in rules.legal_moves(at_third) if list(m) != line[2])
    rest = len(strategies.play_out(at_third, strategies.strategy_named("high")))
    detour = [["new", "g", 51, "sum15"]]
    for turn, move in enumerate(line):
        if turn == 2:
            detour += [["play", "g", other], ["undo", "g"], ["autoplay", "g", "high"], *[["undo", "g"]] * rest]
        detour.append(["play", "g", move])
    outputs = run([*detour, ["audit", "g"]])
    assert outputs[-1] == clean
    # Moves undone at the end are no longer the game's.
    shorter = run([*detour, ["undo", "g"], ["undo", "g"], ["audit", "g"]])[-1]
    assert shorter["moves"] == len(line) - 2
    assert shorter == played("sum15", 51, line[:-2], ["audit", "g"])[-1]


def test_the_fair_player_matches_the_engine_and_shows_no_sight() -> None:
    outputs = run([["new", "g", 7, "sum15"], ["autoplay", "g", "fair"], ["audit", "g"]])
    assert outputs[-1] == {"moves": 12, "sighted": 0, "p": 1.0, "verdict": "blind", "engine_match": 1.0}


def test_a_game_with_no_choice_that_matters() -> None:
    # pairs: a card pairs with one value only, every choice is worth the same.
    outputs = run([["new", "g", 2, "pairs"], ["autoplay", "g"], ["audit", "g"]])
    assert outputs[-1] == {"moves": 26, "sighted": 0, "p": 1.0, "verdict": "blind", "engine_match": None}
    # Nothing played yet.
    assert run([["new", "g", 2], ["audit", "g"]])[-1] == {
        "moves": 0,
        "sighted": 0,
        "p": 1.0,
        "verdict": "blind",
        "engine_match": None,
    }


def test_an_audit_changes_nothing() -> None:
    line = best_line("sum15", 51)
    ops = [["new", "g", 51, "sum15"], *[["play", "g", move] for move in line[:5]]]
    before = run([*ops, ["table", "g"], ["history", "g"], ["status", "g"]])[-3:]
    after = run([*ops, ["audit", "g"], ["table", "g"], ["history", "g"], ["status", "g"]])[-3:]
    assert after == before


def test_the_decisions_of_a_best_line() -> None:
    table = seeded(parse_variant("sum15"), 51)
    for move in search.solve(Table(table.variant, table.deck))[1]:
        table.push(move)
    found = audit.audit_table(table)
    assert found.kept_best and found.threshold == audit.THRESHOLDS["sum15"]
    assert found.rating == audit.DealRating("hard", pytest.approx(0.011046792937776183))
    deviations = [(d.turn, d.played, d.fair, d.margin) for d in found.decisions if not d.matched]
    assert deviations == SEED51_DEVIATIONS
    # The later sightings are of the stock the first one already showed: they add little.
    first, *later = [d for d in found.decisions if d.sighted]
    assert first.surprise > 3 and all(d.surprise < first.surprise / 2 for d in later)


def test_a_deviation_that_was_not_sighted_counts_the_luck_it_could_have_had() -> None:
    # quads seed 624: the fair player clears 24, the best line 40. The line leaves the fair
    # player's choice five times: at turn 1 it clears 16 cards more on this stock (2 orders of
    # the unseen cards in 401 do as well), at the other four no more; but at turns 3 and 4 a
    # blind player could have been lucky too, so the game's p is more than 2/401. (Random
    # players reach the best of this deal too often for it to be judged: the audit is told a
    # rating under which it is, and to draw until p is surely under 0.02 or over 0.08.)
    quads = parse_variant("quads")
    line = best_line("quads", 624)
    assert fair.play_fair(seeded(quads, 624)) == 24
    judged = audit.DealRating("hard", 0.1)
    found = audit.audit_line(quads, seeded(quads, 624).deck, line, (0.02, 0.08), judged)
    assert found.as_json() == {
        "moves": 10,
        "sighted": 1,
        "p": 0.013513035559167719,
        "verdict": "suspect",
        "engine_match": 1 / 6,
    }
    deviations = [d for d in found.decisions if not d.matched]
    assert [(d.turn, d.margin, d.orders) for d in deviations] == [
        (1, 16, 400),
        (3, 0, 200),
        (4, 0, 200),
        (7, 0, 200),
        (8, 0, 200),
    ]
    sighted = deviations[0]
    assert sighted.surprise == math.log(401 / 2)
    # Per positive margin, largest first, how many of the pool's orders (the actual one among
    # them: 401 for the sighted deviation, 201 for the others) had it.
    assert [[round(share * (d.orders + 1)) for _, share in d.luck] for d in deviations] == [
        [1, 1, 1, 3, 2],
        [2, 2, 2, 3, 14],
        [1, 3],
        [],
        [],
    ]
    assert found.p == luck.blind_chance([d.luck for d in deviations], sighted.surprise)
    assert luck.blind_chance([sighted.luck], sighted.surprise) == pytest.approx(2 / 401)


def test_a_record_that_is_not_a_game_of_the_deal() -> None:
    sum15 = parse_variant("sum15")
    with pytest.raises(audit.BadLine, match=r"^move 2 \(\[0, 1, 2\]\): cards sum to \d+, need 15$"):
        audit.audit_line(sum15, seeded(sum15, 51).deck, [[0, 4, 5], [0, 1, 2]])


def test_the_thresholds() -> None:
    named = {name: parse_variant(name) for name in ("classic", "sum15", "quads", "pairs")}
    assert {name: audit.threshold(v) for name, v in named.items()} == {**audit.THRESHOLDS, "pairs": audit.SUSPECT_BELOW}
    assert {name: audit.random_reaches(v) for name, v in named.items()} == {
        **audit.RANDOM_REACHES,
        "pairs": audit.RANDOM_REACHES_BELOW,
    }
    own = parse_variant({"base": "sum15", "slots": 8})
    assert audit.threshold(own) == audit.SUSPECT_BELOW
    assert audit.random_reaches(own) == audit.RANDOM_REACHES_BELOW


@pytest.mark.parametrize(
    ("band", "p_random", "judged"),
    [
        ("hard", 0.2, True),
        ("hard", 0.25, False),
        ("hard", None, True),
        ("medium", 0.01, False),
        ("easy", 0.01, False),
    ],
    ids=["hard-rarely-reached", "hard-often-reached", "hard-unknown", "medium", "easy"],
)
def test_which_deals_are_judged(band: str, p_random: float | None, judged: bool) -> None:
    assert audit.DealRating(band, p_random).judged(parse_variant("quads")) is judged


# Three moves where the best line leaves the fair player's choice, each clearing 6 cards more
# on this stock; the first is what a blind player would have been lucky to find in about one
# order of the unseen cards in 50, and the two after it add little: given the first, the same
# stock makes them likely.
SEED51_BEST_LINE = {"moves": 12, "sighted": 3, "p": 1 / 102, "verdict": "suspect", "engine_match": 2 / 3}
SEED51_DEVIATIONS = [(1, (1, 5, 9), (3, 4, 8), 6), (2, (3, 6, 6), (3, 4, 8), 6), (3, (2, 4, 9), (1, 5, 9), 6)]


def test_a_row_of_a_days_audit() -> None:
    rules = parse_variant("sum15")
    found = audit.audit_line(rules, seeded(rules, 51).deck, best_line("sum15", 51))
    assert found.row("Ada") == {"name": "Ada", "cleared": 36, **SEED51_BEST_LINE}
