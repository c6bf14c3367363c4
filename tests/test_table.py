from __future__ import annotations

import pytest

from tests.helpers import SEED1
from triples.model.cards import Card
from triples.model.shuffle import shuffled
from triples.model.table import Move, Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant

CLASSIC = parse_variant("classic")


def seed1_table() -> Table:
    return Table(CLASSIC, [Card.parse(c) for c in SEED1])


def test_deal_puts_first_slots_cards_face_up_and_the_rest_in_the_stock() -> None:
    table = seed1_table()
    assert table.codes() == SEED1[:10]
    assert [c.code for c in table.stock] == SEED1[10:]
    assert table.stock_size == 42
    assert table.values == [9, 1, 4, 9, 3, 7, 2, 2, 1, 7]
    assert (table.cleared, table.history()) == (0, [])


def test_push_refills_in_increasing_slot_order() -> None:
    table = seed1_table()
    table.push(Move([5, 0, 2]))
    assert table.codes() == ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"]
    assert table.values == [10, 1, 5, 9, 3, 8, 2, 2, 1, 7]  # the search and the rules read these
    assert (table.cleared, table.stock_size, table.history()) == (3, 39, [Move([0, 2, 5])])


def test_pop_restores_exactly() -> None:
    table = seed1_table()
    before = table.snapshot()
    table.push(Move([0, 2, 5]))
    middle = table.snapshot()
    table.push(Move([0, 3, 6]))
    assert table.pop() == Move([0, 3, 6])
    assert table.snapshot() == middle
    assert table.values == [10, 1, 5, 9, 3, 8, 2, 2, 1, 7]
    assert table.pop() == Move([0, 2, 5])
    assert table.snapshot() == before
    assert table.values == [9, 1, 4, 9, 3, 7, 2, 2, 1, 7]
    with pytest.raises(IndexError):
        table.pop()


def test_stock_running_out_leaves_slots_empty_and_undo_refills_them() -> None:
    grid = parse_variant("grid")
    table = Table(grid, shuffled(grid.cards, 5))
    table.next_card = len(table.deck) - 2  # only two stock cards left
    stock_top = [c.code for c in table.stock]
    before = table.snapshot()
    table.push(Move([1, 2, 9]))
    assert table.codes()[1] == stock_top[0]
    assert table.codes()[2] == stock_top[1]
    assert table.codes()[9] is None
    assert table.values[9] == 0
    assert table.stock_size == 0
    table.pop()
    assert table.snapshot() == before


def test_the_snapshot_is_everything_observable() -> None:
    table = seed1_table()
    table.push(Move([0, 2, 5]))
    assert table.snapshot() == (
        ("10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"),
        13,
        3,
        (Move([0, 2, 5]),),
    )


def test_slots_past_a_short_deck_are_empty_and_worth_nothing() -> None:
    # A rule set of one's own may have more slots than cards: every card is dealt at once.
    few = Variant(name="few", slots=8, per_move=2, target=4, deck="numeric", top_rank=3, suits=2)
    table = Table(few, few.cards)
    assert table.codes() == ["1S", "2S", "3S", "1H", "2H", "3H", None, None]
    assert table.values == [1, 2, 3, 1, 2, 3, 0, 0]
    table.push(Move([0, 2]))
    assert table.values == [0, 2, 0, 1, 2, 3, 0, 0]
    table.pop()
    assert table.values == [1, 2, 3, 1, 2, 3, 0, 0]


def test_deck_of_wrong_size_is_refused() -> None:
    with pytest.raises(ValueError, match="a classic deck has 52 cards, not 3"):
        Table(CLASSIC, [Card.parse(c) for c in SEED1[:3]])


def test_grid100_deals_every_card() -> None:
    grid100 = parse_variant("grid100")
    table = Table(grid100, shuffled(grid100.cards, 7))
    assert table.stock_size == 0
    assert None not in table.cards


@pytest.mark.parametrize(("text", "slots"), [("0-2-5", (0, 2, 5)), ("5-0-2", (0, 2, 5)), ("3-1", (1, 3))], ids=str)
def test_move_text_both_ways(text: str, slots: tuple[int, ...]) -> None:
    move = Move.parse(text)
    assert move == slots
    assert str(move) == "-".join(map(str, slots))
    assert Move.parse(str(move)) == move
    assert repr(move) == f"Move({list(slots)})"


def test_moves_are_sorted_and_hashable() -> None:
    assert Move([9, 1, 4]) == (1, 4, 9)
    assert {Move([1, 4, 9]), Move([9, 4, 1])} == {Move([1, 4, 9])}
