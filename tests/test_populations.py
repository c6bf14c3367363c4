"""Synthetic players: legal games to the end, the strategies they name, slips at their rate, the
player who knows the deck reaching best, and a blind player asked about a table rebuilt from
what a client sees choosing exactly as on the real one."""

from __future__ import annotations

import random

import pytest

from triples.engines import populations, search, strategies
from triples.model import rules
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variants import parse_variant


def dealt(variant: str, seed: int) -> Table:
    return seeded(parse_variant(variant), seed)


def test_the_populations() -> None:
    assert list(populations.POPULATIONS) == [
        "random",
        "high",
        "lookahead",
        "fair",
        "high-slips",
        "fair-slips",
        "mixed",
        "solve",
    ]
    assert populations.BLIND == ("random", "high", "lookahead", "fair", "high-slips", "fair-slips", "mixed")


@pytest.mark.parametrize("name", list(populations.POPULATIONS))
@pytest.mark.parametrize("variant", ["sum15", "classic"])
def test_a_player_plays_legal_moves_to_the_end(name: str, variant: str) -> None:
    table = dealt(variant, 3)
    moves = populations.play(populations.POPULATIONS[name], table, random.Random(1))
    replay = dealt(variant, 3)
    for move in moves:
        assert move in rules.legal_moves(replay)
        replay.push(move)
    assert not rules.has_legal_move(replay)
    assert table.history() == moves
    # The same chances, the same game.
    assert populations.play(populations.POPULATIONS[name], dealt(variant, 3), random.Random(1)) == moves


@pytest.mark.parametrize("name", ["high", "lookahead", "fair"])
def test_a_strategy_population_plays_its_strategy(name: str) -> None:
    table = dealt("sum15", 5)
    expected = strategies.play_out(dealt("sum15", 5), strategies.strategy_named(name))
    assert populations.play(populations.POPULATIONS[name], table, random.Random(9)) == expected


class Always(random.Random):
    """A generator whose ``random()`` is always one number: every slip, or none."""

    def __init__(self, value: float) -> None:
        super().__init__(4)
        self.value = value

    def random(self) -> float:
        return self.value

    def getrandbits(self, k: int, /) -> int:
        # Defined here so that ``choice`` keeps drawing from the bits, not from ``random()``.
        return super().getrandbits(k)


def test_slips_are_random_moves_at_their_rate() -> None:
    never = populations.play(populations.POPULATIONS["fair-slips"], dealt("sum15", 5), Always(0.5))
    assert never == strategies.play_out(dealt("sum15", 5), strategies.strategy_named("fair"))
    # Every move a slip: the random player's game with the same generator.
    always = populations.play(populations.POPULATIONS["high-slips"], dealt("sum15", 5), Always(0.0))
    assert always == populations.play(populations.POPULATIONS["random"], dealt("sum15", 5), Always(0.0))
    # fair slips a tenth of the time, high a quarter.
    assert populations.play(populations.POPULATIONS["fair-slips"], dealt("sum15", 5), Always(0.09)) == always
    assert populations.play(populations.POPULATIONS["high-slips"], dealt("sum15", 5), Always(0.24)) == always


def test_the_player_who_knows_the_deck_reaches_best() -> None:
    table = dealt("sum15", 51)
    populations.play(populations.POPULATIONS["solve"], table, random.Random(1))
    assert table.cleared == search.best_cleared(dealt("sum15", 51)) == 36


@pytest.mark.parametrize("name", ["high", "lookahead", "fair"])
def test_a_blind_player_chooses_alike_on_the_table_a_client_sees(name: str) -> None:
    variant = parse_variant("classic")
    real = dealt("classic", 7)
    dealt_cards = list(real.cards)  # the opening table, then each refill in slot order
    choose = strategies.strategy_named(name)
    moves: list[list[int]] = []
    while (move := choose(real)) is not None:
        seen = populations.seen_table(variant, dealt_cards, moves)
        assert seen.codes() == real.codes() and seen.cleared == real.cleared
        assert choose(seen) == move
        real.push(move)
        moves.append(list(move))
        dealt_cards.extend(
            real.cards[p] for p in move if real.cards[p] is not None and len(dealt_cards) < real.next_card
        )
    assert populations.seen_table(variant, dealt_cards, moves).codes() == real.codes()
