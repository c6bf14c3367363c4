from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import SEED1, slot_moves
from triples.model import rules
from triples.model.cards import Card
from triples.model.shuffle import shuffled
from triples.model.table import Move, Table
from triples.model.variants import VARIANTS, parse_variant
from triples.support import deadline


def seed1_table() -> Table:
    return Table(parse_variant("classic"), [Card.parse(c) for c in SEED1])


def dealt(variant: str, seed: int) -> Table:
    v = parse_variant(variant)
    return Table(v, shuffled(v.cards, seed))


def with_empty_slot() -> Table:
    """SEED1 with the stock drained, then [0, 2, 5] played: slots 0, 2 and 5 are empty."""
    table = seed1_table()
    table.next_card = len(table.deck)
    table.push(Move([0, 2, 5]))
    return table


# SEED1 values: 9 1 4 9 3 7 2 2 1 7
@pytest.mark.parametrize(
    ("positions", "message"),
    [
        pytest.param("0,2,5", "pick exactly 3 cards", id="not-a-list"),
        pytest.param({"0": 1}, "pick exactly 3 cards", id="dict"),
        # Three items, each naming a slot of the legal move [0, 2, 5], but in no order a move has.
        pytest.param("025", "pick exactly 3 cards", id="text-of-three"),
        pytest.param(b"\x00\x02\x05", "pick exactly 3 cards", id="bytes-of-three"),
        pytest.param({0: 1, 2: 1, 5: 1}, "pick exactly 3 cards", id="mapping-of-three"),
        pytest.param({0, 2, 5}, "pick exactly 3 cards", id="set-of-three"),
        pytest.param([0, 2], "pick exactly 3 cards", id="too-few"),
        pytest.param([0, 2, 5, 6], "pick exactly 3 cards", id="too-many"),
        pytest.param([0, "2", 5], "positions must be integers", id="string-item"),
        pytest.param([0, 2.0, 5], "positions must be integers", id="float-item"),
        pytest.param([0, True, 5], "positions must be integers", id="bool-item"),
        pytest.param([0, None, 99], "positions must be integers", id="integers-before-range"),
        pytest.param([-1, 0, 1], "position out of range", id="negative"),
        pytest.param([0, 1, 10], "position out of range", id="at-slots"),
        pytest.param([0, 0, 10], "position out of range", id="range-before-distinct"),
        pytest.param([0, 1, 2**70], "position out of range", id="huge"),
        pytest.param([0, 0, 6], "positions must be distinct", id="repeated"),
        pytest.param([0, 1, 2], "cards sum to 14, need 20", id="sum"),
    ],
)
def test_errors_in_spec_order(positions: object, message: str) -> None:
    table = seed1_table()
    before = table.snapshot()
    with pytest.raises(rules.IllegalMove) as caught:
        rules.check_move(table, positions)
    assert str(caught.value) == message
    assert table.snapshot() == before


@pytest.mark.parametrize(
    ("positions", "message"),
    [
        pytest.param([0, 0, 2], "positions must be distinct", id="distinct-before-empty"),
        pytest.param([0, 1, 3], "empty slot", id="empty"),
        pytest.param([1, 3, 5], "empty slot", id="empty-before-sum"),
    ],
)
def test_empty_slot_order(positions: list[int], message: str) -> None:
    with pytest.raises(rules.IllegalMove, match=f"^{message}$"):
        rules.check_move(with_empty_slot(), positions)


@pytest.mark.parametrize(
    ("variant", "seed", "short", "bad_sum", "message"),
    [
        pytest.param("pairs", 2, [0], [0, 1], "cards sum to 8, need 14", id="pairs"),
        pytest.param("quads", 3, [0, 1, 2], [0, 1, 2, 3], "cards sum to 9, need 30", id="quads"),
        pytest.param("sum15", 1, [0, 1], [0, 1, 2], "cards sum to 17, need 15", id="sum15"),
        pytest.param("grid100", 7, [0, 1], [0, 1, 2], "cards sum to 32, need 39", id="grid100"),
    ],
)
def test_messages_use_the_variant_numbers(
    variant: str, seed: int, short: list[int], bad_sum: list[int], message: str
) -> None:
    table = dealt(variant, seed)
    k = table.variant.per_move
    with pytest.raises(rules.IllegalMove, match=f"^pick exactly {k} cards$"):
        rules.check_move(table, short)
    with pytest.raises(rules.IllegalMove, match=f"^{message}$"):
        rules.check_move(table, bad_sum)
    with pytest.raises(rules.IllegalMove, match=r"^position out of range$"):
        rules.check_move(table, [*bad_sum[:-1], table.variant.slots])


def test_legal_move_comes_back_sorted() -> None:
    assert rules.check_move(seed1_table(), [5, 0, 2]) == Move([0, 2, 5])


def brute_force_moves(table: Table) -> list[Move]:
    return [Move(c) for c in slot_moves(table.values, table.variant.per_move, table.variant.target)]


def test_seed1_moves_by_hand() -> None:
    # values 9 1 4 9 3 7 2 2 1 7: 9+4+7 twice, 9+9+2 twice, 4+9+7 twice
    assert [list(m) for m in rules.legal_moves(seed1_table())] == [
        [0, 2, 5],
        [0, 2, 9],
        [0, 3, 6],
        [0, 3, 7],
        [2, 3, 5],
        [2, 3, 9],
    ]


def test_pairs_spec_example() -> None:
    deck = ["6C", "2D", "10H", "AC", "QH", "2S", "JD", "QC", "6S"]
    pairs = parse_variant("pairs")
    rest = [c for c in pairs.cards if c.code not in deck]
    table = Table(pairs, [*(Card.parse(c) for c in deck), *rest])
    assert [list(m) for m in rules.legal_moves(table)] == [[1, 4], [1, 7], [4, 5], [5, 7]]


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_legal_moves_equal_brute_force_through_whole_games(variant: str) -> None:
    seeds = range(2) if variant == "grid100" else range(40)
    for seed in seeds:
        table = dealt(variant, seed)
        while True:
            moves = rules.legal_moves(table)
            assert moves == brute_force_moves(table), (variant, seed, table.codes())
            assert rules.has_legal_move(table) == bool(moves)
            if not moves:
                break
            table.push(moves[len(moves) // 2])


@pytest.mark.parametrize(
    ("counts", "k", "target", "combos"),
    [
        pytest.param([0, 1, 1, 1], 2, 4, [(1, 3)], id="no-repeat-without-two"),
        pytest.param([0, 0, 2, 0], 2, 4, [(2, 2)], id="repeat-needs-two"),
        pytest.param([0, 0, 1, 0], 2, 4, [], id="single-cannot-pair"),
        pytest.param([0, 3, 0, 0], 3, 3, [(1, 1, 1)], id="triple"),
        pytest.param([0, 1, 2, 1, 1], 3, 7, [(1, 2, 4), (2, 2, 3)], id="lexicographic"),
        pytest.param([0, 4, 4], 2, 9, [], id="target-above-reach"),
        pytest.param([0, 1, 1, 1, 1, 1], 4, 14, [(2, 3, 4, 5)], id="four"),
        # Index 0 counts empty slots (a table's raw counts): they supply no card.
        pytest.param([5, 1, 1, 1], 2, 3, [(1, 2)], id="empty-slots-supply-nothing"),
        pytest.param([4, 1, 1, 1], 3, 4, [], id="empty-slots-supply-nothing-to-three"),
    ],
)
def test_value_combos(counts: list[int], k: int, target: int, combos: list[tuple[int, ...]]) -> None:
    assert rules.value_combos(counts, k, target) == combos


def test_histogram_ignores_empty_slots() -> None:
    assert rules.histogram([3, 0, 3, 1, 0], 4) == [0, 1, 0, 2, 0]


def test_first_slots_takes_the_lowest_slots_of_each_value() -> None:
    groups = rules.slots_by_value([7, 2, 9, 9, 2, 9, 0])
    assert groups == {7: [0], 2: [1, 4], 9: [2, 3, 5]}
    assert rules.first_slots((2, 9, 9), groups) == Move([1, 2, 3])
    assert sorted(rules.expand((2, 9, 9), groups)) == [
        (1, 2, 3),
        (1, 2, 5),
        (1, 3, 5),
        (2, 3, 4),
        (2, 4, 5),
        (3, 4, 5),
    ]


@given(
    counts=st.lists(st.integers(0, 4), min_size=1, max_size=26).map(lambda c: [0, *c]),
    k=st.sampled_from([2, 3]),
    target=st.integers(1, 80),
)
def test_fast_value_combos_equal_the_general_recursion(counts: list[int], k: int, target: int) -> None:
    assert rules.value_combos(counts, k, target) == rules._value_combos_any(counts, k, target)


@pytest.mark.parametrize(
    ("combo", "uses"),
    [
        ((3, 3, 9), ((3, 2), (9, 1))),
        ((9, 2, 9), ((2, 1), (9, 2))),
        ((5, 5, 5), ((5, 3),)),
        ((1, 13), ((1, 1), (13, 1))),
    ],
    ids=str,
)
def test_multiplicities(combo: tuple[int, ...], uses: tuple[tuple[int, int], ...]) -> None:
    assert rules.multiplicities(combo) == uses


def test_a_tuple_of_positions_is_a_move_as_the_list_is() -> None:
    table = seed1_table()
    assert rules.check_move(table, (5, 0, 2)) == rules.check_move(table, [5, 0, 2]) == Move([0, 2, 5])
    with pytest.raises(rules.IllegalMove, match=r"^positions must be distinct$"):
        rules.check_move(table, (0, 0, 6))


# ---------------------------------------------------------------- what the rules cost to enumerate


@given(
    counts=st.lists(st.integers(0, 3), min_size=1, max_size=16).map(lambda c: [0, *c]),
    k=st.sampled_from([2, 3, 4, 5]),
    target=st.integers(1, 60),
    limit=st.integers(0, 30),
)
def test_a_limit_on_the_combinations_refuses_exactly_past_it(
    counts: list[int], k: int, target: int, limit: int
) -> None:
    every = rules.value_combos(counts, k, target)
    if len(every) > limit:
        with pytest.raises(rules.TooManyCombinations, match=f"more than {limit:,} value combinations"):
            rules.value_combos(counts, k, target, limit)
    else:
        assert rules.value_combos(counts, k, target, limit) == every


@pytest.mark.parametrize(
    ("spec", "seed"),
    [("classic", 1), ("quads", 2), ({"base": "quads", "per_move": 5, "target": 30}, 3), ("grid100", 4)],
    ids=["classic", "quads", "five-a-move", "grid100"],
)
def test_moves_are_counted_without_building_them(spec: object, seed: int) -> None:
    table = dealt_spec(spec, seed)
    moves = rules.legal_moves(table)
    counts = rules.histogram(table.values, table.variant.max_value)
    combos = rules.value_combos(counts, table.variant.per_move, table.variant.target)
    assert rules.moves_of(combos, counts) == len(moves) > 0
    assert moves == sorted(moves)  # grid100: more than are sorted at once
    assert rules.legal_moves(table, limit=len(moves)) == moves
    with pytest.raises(rules.TooManyMoves, match=f"^{len(moves):,} legal moves: more than the {len(moves) - 1:,} "):
        rules.legal_moves(table, limit=len(moves) - 1)
    assert rules.has_legal_move(table)


def dealt_spec(spec: object, seed: int) -> Table:
    variant = parse_variant(spec)
    return Table(variant, shuffled(variant.cards, seed))


def test_a_table_with_no_move_of_many_cards_has_none() -> None:
    table = dealt_spec({"base": "quads", "per_move": 5, "target": 30}, 3)
    while (moves := rules.legal_moves(table)) and len(table.history()) < 100:
        table.push(moves[0])
    assert not rules.has_legal_move(table)
    assert rules.legal_moves(table) == []


def test_what_is_quick_follows_the_rules_and_the_table() -> None:
    classic, grid100 = dealt("classic", 1), dealt("grid100", 1)
    five = dealt_spec({"base": "grid100", "per_move": 5, "target": 65}, 1)
    assert [rules.enumeration_steps(t) for t in (classic, grid100, five)] == [36, 625, 20475 * 26]
    assert [rules.listing_is_quick(t) for t in (classic, grid100, five)] == [True, False, False]
    assert [rules.status_is_quick(t) for t in (classic, grid100, five)] == [True, True, False]


COMBINATIONS_REFUSED = (
    "these rules have more than {:,} value combinations a move can take: too many for the engines "
    "(fewer cards a move, a smaller target or fewer ranks bring them down)"
)


@pytest.mark.parametrize(
    ("counts", "k", "target", "combos"),
    [
        pytest.param([0, 1, 1, 1, 1], 2, 5, [(1, 4), (2, 3)], id="two"),
        pytest.param([0, 1, 1, 1, 1, 1], 3, 9, [(1, 3, 5), (2, 3, 4)], id="three"),
        pytest.param([0, 1, 1, 1, 1, 1, 1], 4, 14, [(1, 2, 5, 6), (1, 3, 4, 6), (2, 3, 4, 5)], id="four"),
    ],
)
def test_a_limit_of_exactly_the_combinations_takes_them_and_one_less_refuses(
    counts: list[int], k: int, target: int, combos: list[tuple[int, ...]]
) -> None:
    assert rules.value_combos(counts, k, target, len(combos)) == combos
    for limit in (len(combos) - 1, 0):
        with pytest.raises(rules.TooManyCombinations) as caught:
            rules.value_combos(counts, k, target, limit)
        assert str(caught.value) == COMBINATIONS_REFUSED.format(limit)
        assert caught.value.limit == limit
    with pytest.raises(rules.TooManyCombinations) as caught:
        rules.value_combos([0, *[1] * 40], 4, 80, 1234)
    assert str(caught.value).startswith("these rules have more than 1,234 value combinations a move can take: ")
    assert caught.value.limit == 1234


def test_an_answer_lists_at_most_100_000_moves() -> None:
    # Five cards a move on a hundred slots: the moves are counted (from their value
    # combinations), never built, and the refusal carries the count and the limit.
    table = dealt_spec({"base": "grid100", "per_move": 5, "target": 65}, 1)
    with pytest.raises(rules.TooManyMoves) as caught:
        rules.legal_move_lists(table, limit=rules.MAX_MOVES)
    assert str(caught.value) == "1,842,552 legal moves: more than the 100,000 one answer may list"
    assert (caught.value.count, caught.value.limit) == (1_842_552, 100_000)


def clock_looks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Each look at the clock (``deadline.check``) appends to the list returned."""
    looks: list[int] = []
    monkeypatch.setattr(deadline, "check", lambda: looks.append(1))
    return looks


def test_the_general_enumeration_looks_at_the_clock_once_per_4096_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = clock_looks(monkeypatch)
    counts, k, target = [0, *[2] * 25], 6, 76
    assert len(rules.value_combos(counts, k, target)) == 10_931
    assert len(looks) == 3  # 15,493 steps: at the 4,096th, 8,192nd and 12,288th
    for mask, expected in ((0, 15_493), (1, 7_746)):  # every step; every second step, from the second
        looks.clear()
        monkeypatch.setattr(rules, "_CHECK_EVERY", mask)
        rules.value_combos(counts, k, target)
        assert len(looks) == expected
    # Pairs and triples (the engines' hot paths) have direct loops, which never look (the
    # general recursion would take 5,100 steps here).
    looks.clear()
    assert len(rules.value_combos([0, *[1] * 200], 3, 300)) == 4_950
    assert looks == []


def test_counting_moves_looks_at_the_clock_once_per_1024_combinations(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = clock_looks(monkeypatch)
    assert rules.moves_of([(1, 2, 3)] * 2049, [0, 1, 1, 1]) == 2049
    assert len(looks) == 3  # at the first, the 1,025th and the 2,049th
    looks.clear()
    assert rules.moves_of([(1, 2, 3)], [0, 1, 1, 1]) == 1
    assert len(looks) == 1


def test_whether_a_move_is_left_stops_at_the_first_combination(monkeypatch: pytest.MonkeyPatch) -> None:
    # With the clock looked at on every step, the looks count the steps taken.
    looks = clock_looks(monkeypatch)
    monkeypatch.setattr(rules, "_CHECK_EVERY", 0)
    quads = dealt("quads", 1)
    counts = rules.histogram(quads.values, quads.variant.max_value)
    assert rules.value_combos(counts, 4, 30) == [(2, 9, 9, 10), (4, 7, 9, 10), (5, 7, 9, 9)]
    assert len(looks) == 20  # every combination
    looks.clear()
    assert rules.has_legal_move(quads)
    assert len(looks) == 7  # only as far as the first
    looks.clear()
    assert rules.has_legal_move(seed1_table())  # triples: the direct loop, no steps to count
    assert looks == []


def factory_ordered(spec: object) -> Table:
    variant = parse_variant(spec)
    return Table(variant, variant.cards)


def test_the_quick_limits_fall_between_the_tables_either_side() -> None:
    # 23 cards on the table may make C(23, 3) = 1,771 triples, 24 may make 2,024 (no table's
    # bound is 2,000); 13 ranks of 43, four a move, take C(15, 3) x 44 = 20,020 steps, of 42,
    # C(15, 3) x 43 = 19,565 (no table's bound is 20,000).
    small, large = factory_ordered({"base": "grid100", "slots": 23}), factory_ordered({"base": "grid100", "slots": 24})
    assert [rules.enumeration_steps(t) for t in (small, large)] == [23**2, 24**2]
    assert [rules.listing_is_quick(t) for t in (small, large)] == [True, False]
    fours = {"base": "grid100", "per_move": 4, "slots": 13}
    below, above = factory_ordered({**fours, "top_rank": 42}), factory_ordered({**fours, "top_rank": 43})
    assert [rules.enumeration_steps(t) for t in (below, above)] == [19_565, 20_020]
    assert [rules.status_is_quick(t) for t in (below, above)] == [True, False]
    assert [rules.enumeration_steps(dealt("quads", s)) for s in (1, 2)] == [1_320, 616]  # C(p + 2, 3) x 11


def test_the_quick_limits_take_a_table_exactly_at_them(monkeypatch: pytest.MonkeyPatch) -> None:
    table = factory_ordered({"base": "grid100", "slots": 23})
    monkeypatch.setattr(rules, "QUICK_MOVES", 1_771)
    monkeypatch.setattr(rules, "QUICK_STEPS", 23**2)
    assert rules.listing_is_quick(table) and rules.status_is_quick(table)
    monkeypatch.setattr(rules, "QUICK_MOVES", 1_770)
    assert not rules.listing_is_quick(table)
    monkeypatch.setattr(rules, "QUICK_MOVES", 1_771)
    monkeypatch.setattr(rules, "QUICK_STEPS", 23**2 - 1)
    assert not rules.listing_is_quick(table)
    assert not rules.status_is_quick(table)
