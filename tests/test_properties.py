"""Property-based tests over run() and the session: the documented promises, checked on streams of
operations that mix valid and invalid ones, against the naive model in tests/reference.py."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.reference import (
    ADOPT,
    GAME_IDS,
    QUARTETS,
    READ_OPERATIONS,
    REFERENCE_STRATEGIES,
    SEARCHED,
    SMALL_VARIANT_NAMES,
    VARIANT_NAMES,
    ReferenceGame,
    ReferenceSession,
    brute_best,
    card_value,
    json_values,
    matches,
    new_operations,
    operations,
    quartets_output_fits,
    strategy_names,
)
from triples import run
from triples.engines.strategies import STRATEGIES
from triples.interpreter.session import OPERATIONS, Session
from triples.model import rules
from triples.model.table import Table
from triples.model.variants import VARIANTS

seeds = st.integers(min_value=0, max_value=2**64 - 1) | st.integers()  # any integer is a seed


def examples(fraction: float) -> settings:
    """A share of the active profile's example count, so ``long`` scales every test."""
    return settings(max_examples=max(1, int(settings().max_examples * fraction)))


def observe(session: Session) -> list[tuple[str, Any, bytes, Any]]:
    """Everything a caller can see of every game: table, status, history and the stock."""
    seen = []
    for game_id, table in session.games.items():
        outputs = [session.apply([name, game_id]) for name in ("table", "status", "history")]
        stock = [c.code for c in table.stock]
        seen.append((type(game_id).__name__, game_id, orjson.dumps([*outputs, stock]), table.snapshot()))
    return seen


def assert_cards_conserved(table: Table) -> None:
    """Table cards + stock + cleared = the deck, and every card is in exactly one place."""
    on_table = [c for c in table.cards if c is not None]
    stock = list(table.stock)
    assert len(on_table) + len(stock) + table.cleared == table.variant.deck_size
    where = Counter(on_table + stock)
    assert max(where.values(), default=1) == 1, "a card is in two places"
    assert set(where) <= set(table.variant.cards)
    assert table.values == [0 if c is None else table.variant.value(c) for c in table.cards]


def assert_well_formed(output: object) -> None:
    orjson.dumps(output)  # raises on anything that is not JSON
    if isinstance(output, str):
        assert output == "ok" or output.startswith("error: "), output
        assert not output.startswith("error: internal error"), output


@given(st.lists(operations(), max_size=30))
def test_run_answers_each_operation_once_with_json_and_never_raises(ops: list[Any]) -> None:
    outputs = run(ops)
    assert len(outputs) == len(ops)
    for output in outputs:
        assert_well_formed(output)
    assert run(ops) == outputs  # a fresh session each call: nothing leaks between runs


@given(json_values.filter(lambda value: not isinstance(value, list)))
def test_run_of_a_non_list_is_one_error(value: object) -> None:
    assert run(value) == ["error: operations must be a list"]


def draw_step(data: st.DataObject, session: Session) -> Any:
    """An operation for this session: often a legal move of a live game, often anything."""
    ids = list(session.games)
    kind = data.draw(
        st.sampled_from(["legal", "legal", "legal", "legal", "undo", "undo", "read", "any", "any", "auto", "search"])
    )
    if not ids or kind == "any":
        return data.draw(operations() | new_operations(st.sampled_from(GAME_IDS)))
    game_id = data.draw(st.sampled_from(ids))
    if kind == "undo":
        return ["undo", game_id]
    if kind == "auto":
        named = st.lists(st.sampled_from(sorted(STRATEGIES)), max_size=1)
        return ["autoplay", game_id, *data.draw(named | named | named | st.lists(strategy_names, max_size=1))]
    if kind == "search":
        return [data.draw(st.sampled_from(["best", "solve"])), game_id]
    if kind == "read":
        return [data.draw(st.sampled_from(READ_OPERATIONS)), game_id]
    moves = rules.legal_moves(session.games[game_id])
    if not moves:
        return ["moves", game_id]
    move = data.draw(st.sampled_from(moves))
    return ["play", game_id, data.draw(st.permutations(list(move)))]


@given(st.data())
def test_session_agrees_with_the_reference_model(data: st.DataObject) -> None:
    """Each output is the documented one; a rejected or read-only operation changes nothing; every
    game's table, stock, status and history match a naive replay; cards are conserved."""
    session, model = Session(), ReferenceSession()
    for _ in range(data.draw(st.integers(min_value=1, max_value=30))):
        op = draw_step(data, session)
        before = observe(session)
        expected = model.expect(op)
        output = session.apply(op)
        assert_well_formed(output)
        if expected is ADOPT:
            game = model.games[op[1]]
            check_autoplay_output(game, output)
            model.adopt(op[1], output["moves"])
        elif expected is SEARCHED:
            check_search_output(model.games[op[1]], op[0], output)
        elif expected is QUARTETS:
            assert quartets_output_fits(op[1], output), (op, output)
        else:
            assert matches(output, expected), (op, output, expected)
        changes = (
            output == "ok"
            or (isinstance(op, list) and op[:1] == ["new"] and isinstance(output, list))
            or (isinstance(output, dict) and bool(output.get("moves")) and op[0] == "autoplay")
        )
        if not changes:
            assert observe(session) == before, op
        assert set(session.games) == set(model.games)
        assert [type(k) for k in session.games] == [type(k) for k in model.games]
        for game_id, game in model.games.items():
            table = session.games[game_id]
            position = game.position()
            assert table.codes() == position.table
            assert [c.code for c in table.stock] == position.stock
            assert session.apply(["status", game_id]) == game.status()
            assert session.apply(["history", game_id]) == game.moves
            assert_cards_conserved(table)
            cleared = set(table.variant.cards) - set(table.cards) - set(table.stock)
            assert sorted(c.code for c in cleared) == sorted(position.cleared)


def check_autoplay_output(game: ReferenceGame, output: Any) -> None:
    """An autoplay answer from a strategy the model has no copy of: legal moves to the end."""
    assert isinstance(output, dict) and sorted(output) == ["cleared", "moves"], output
    copy = ReferenceGame(game.variant, game.deck, list(game.moves))
    for move in output["moves"]:
        assert move == sorted(move) and copy.play_output(move) == "ok", (move, output)
        copy.moves.append(move)
    assert copy.over() and output["cleared"] == len(copy.position().cleared)


def check_search_output(game: ReferenceGame, name: str, output: Any) -> None:
    """best: an int, the brute-force optimum where that is cheap; solve: a line reaching it."""
    position = game.position()
    if name == "solve":
        assert isinstance(output, dict) and sorted(output) == ["best", "moves"], output
        best = output["best"]
        line = ReferenceGame(game.variant, game.deck, list(game.moves))
        for move in output["moves"]:
            assert move == sorted(move) and line.play_output(move) == "ok", (move, output)
            line.moves.append(move)
        assert len(line.position().cleared) == best and line.over()
    else:
        best = output
    assert type(best) is int and len(position.cleared) <= best <= game.variant.deck_size
    if game.variant.slots <= 12:
        values = [0 if c is None else card_value(game.variant, c) for c in position.table]
        deck_values = [card_value(game.variant, c) for c in game.deck]
        next_card = len(game.deck) - len(position.stock)
        assert best == len(position.cleared) + brute_best(game.variant, deck_values, values, next_card)


@examples(0.5)
@given(st.sampled_from(VARIANT_NAMES), seeds, st.data())
def test_undo_restores_each_prior_state_back_to_the_deal(variant: str, seed: int, data: st.DataObject) -> None:
    session = Session()
    dealt = session.apply(["new", "g", seed, variant])
    deal_state = observe(session)
    states = []
    for _ in range(data.draw(st.integers(min_value=0, max_value=12))):
        moves = session.apply(["moves", "g"])
        if not moves:
            break
        states.append(observe(session))
        move = data.draw(st.sampled_from(moves))
        assert session.apply(["play", "g", move]) == "ok"
        if data.draw(st.booleans()):  # undo straight away, then replay the same move
            after = observe(session)
            assert session.apply(["undo", "g"]) == "ok"
            assert observe(session) == states[-1]
            assert session.apply(["play", "g", move]) == "ok"
            assert observe(session) == after
    for state in reversed(states):
        assert session.apply(["undo", "g"]) == "ok"
        assert observe(session) == state
    assert session.apply(["undo", "g"]) == "error: nothing to undo"
    assert observe(session) == deal_state
    assert session.apply(["table", "g"]) == dealt
    assert session.apply(["history", "g"]) == []


def walk(session: Session, data: st.DataObject, steps: int) -> None:
    """Play up to ``steps`` legal moves of game "g", chosen by hypothesis."""
    for _ in range(steps):
        moves = session.apply(["moves", "g"])
        if not moves:
            return
        assert session.apply(["play", "g", data.draw(st.sampled_from(moves))]) == "ok"


@examples(0.5)
@given(st.sampled_from(SMALL_VARIANT_NAMES), seeds, st.integers(min_value=0, max_value=10), st.data())
def test_moves_is_exactly_the_set_of_positions_play_accepts(
    variant: str, seed: int, steps: int, data: st.DataObject
) -> None:
    session = Session()
    session.apply(["new", "g", seed, variant])
    walk(session, data, steps)
    table = session.games["g"]
    listed = session.apply(["moves", "g"])
    before = observe(session)
    shuffler = data.draw(st.randoms(use_true_random=False))
    accepted = []
    for combo in combinations(range(table.variant.slots), table.variant.per_move):
        positions = list(combo)
        shuffler.shuffle(positions)  # play takes the slots in any order
        output = session.apply(["play", "g", positions])
        if output == "ok":
            accepted.append(list(combo))
            assert session.apply(["undo", "g"]) == "ok"
        else:
            assert output.startswith("error: ")
        assert observe(session) == before
    assert listed == accepted
    assert session.apply(["status", "g"])["over"] == (not accepted)


@examples(0.5)
@given(st.sampled_from(VARIANT_NAMES), seeds, st.data())
def test_cards_are_conserved_through_plays_rejections_and_undos(variant: str, seed: int, data: st.DataObject) -> None:
    session = Session()
    session.apply(["new", "g", seed, variant])
    table = session.games["g"]
    assert_cards_conserved(table)
    for _ in range(data.draw(st.integers(min_value=1, max_value=25))):
        moves = rules.legal_moves(table)
        choice = data.draw(st.sampled_from(["legal", "legal", "undo", "illegal"]))
        if choice == "legal" and moves:
            op: list[Any] = ["play", "g", list(data.draw(st.sampled_from(moves)))]
        elif choice == "undo":
            op = ["undo", "g"]
        else:
            op = ["play", "g", data.draw(st.lists(st.integers(-1, table.variant.slots), max_size=5))]
        cleared = table.cleared
        output = session.apply(op)
        assert_cards_conserved(table)
        if output != "ok":
            assert table.cleared == cleared
        else:
            assert table.cleared == cleared + (len(op[2]) if op[0] == "play" else -table.variant.per_move)


def copy_of(session: Session, game_id: Any = "g") -> Session:
    """A fresh session holding the same game: its deck dealt anew and its history replayed."""
    table = session.games[game_id]
    copy = Session()
    copy.apply(["new", "g", [c.code for c in table.deck], table.variant.name])
    for move in table.history():
        assert copy.apply(["play", "g", list(move)]) == "ok"
    assert observe(copy)[0][2:] == observe(session)[0][2:]
    return copy


@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@examples(0.25)
@given(variant=st.sampled_from(VARIANT_NAMES), seed=seeds, steps=st.integers(0, 6), data=st.data())
def test_autoplay_plays_legal_moves_to_the_end(
    strategy: str, variant: str, seed: int, steps: int, data: st.DataObject
) -> None:
    session = Session()
    session.apply(["new", "g", seed, variant])
    walk(session, data, steps)
    start, history = observe(session), session.apply(["history", "g"])
    replay = copy_of(session)
    output = session.apply(["autoplay", "g", strategy])
    assert sorted(output) == ["cleared", "moves"]
    for move in output["moves"]:
        assert move == sorted(move)
        assert replay.apply(["play", "g", move]) == "ok"
    assert observe(replay)[0][2:] == observe(session)[0][2:]
    assert session.apply(["history", "g"]) == history + output["moves"]
    assert session.apply(["status", "g"]) == {
        "cleared": output["cleared"],
        "stock": session.games["g"].stock_size,
        "over": True,
    }
    assert session.apply(["autoplay", "g", strategy]) == {"moves": [], "cleared": output["cleared"]}
    choose = REFERENCE_STRATEGIES.get(strategy)
    if choose is not None and variant != "grid100":
        model = ReferenceGame(VARIANTS[variant], [c.code for c in session.games["g"].deck], list(history))
        assert model.autoplay(choose) == output["moves"]
    for _ in output["moves"]:
        assert session.apply(["undo", "g"]) == "ok"
    assert observe(session) == start


def autoplay_totals(session: Session) -> dict[str, int]:
    return {name: copy_of(session).apply(["autoplay", "g", name])["cleared"] for name in sorted(STRATEGIES)}


@examples(0.5)
@given(variant=st.sampled_from(SMALL_VARIANT_NAMES), seed=seeds, steps=st.integers(0, 8), data=st.data())
def test_best_is_the_optimum_and_solve_reaches_it(variant: str, seed: int, steps: int, data: st.DataObject) -> None:
    session = Session()
    session.apply(["new", "g", seed, variant])
    walk(session, data, steps)
    table = session.games["g"]
    start = observe(session)
    best = session.apply(["best", "g"])
    assert observe(session) == start
    solved = session.apply(["solve", "g"])
    assert observe(session) == start
    assert best == solved["best"]
    optimum = brute_best(table.variant, list(table.deck_values), list(table.values), table.next_card)
    assert best == table.cleared + optimum
    assert all(best >= total for total in autoplay_totals(session).values())
    line = copy_of(session)
    for move in solved["moves"]:
        assert move == sorted(move)
        assert line.apply(["play", "g", move]) == "ok"
    assert line.apply(["status", "g"])["cleared"] == best
    assert line.apply(["status", "g"])["over"] is True


@examples(0.1)
@given(seed=seeds, steps=st.integers(0, 8), data=st.data())
def test_grid100_best_beats_every_strategy_and_solve_reaches_it(seed: int, steps: int, data: st.DataObject) -> None:
    session = Session()
    session.apply(["new", "g", seed, "grid100"])
    walk(session, data, steps)
    start = observe(session)
    best = session.apply(["best", "g"])
    solved = session.apply(["solve", "g"])
    assert observe(session) == start
    assert solved["best"] == best
    assert all(best >= total for total in autoplay_totals(session).values())
    line = copy_of(session)
    for move in solved["moves"]:
        assert line.apply(["play", "g", move]) == "ok"
    assert line.apply(["status", "g"]) == {"cleared": best, "stock": 0, "over": True}


@examples(0.5)
@given(st.lists(operations(), max_size=20), st.data())
def test_best_and_solve_change_nothing_in_a_stream(ops: list[Any], data: st.DataObject) -> None:
    """Inserting best and solve anywhere leaves every other output as it was."""
    searched: list[Any] = []
    original_at = []
    for op in ops:
        original_at.append(len(searched))
        searched.append(op)
        if data.draw(st.booleans()):
            searched.append([data.draw(st.sampled_from(["best", "solve"])), data.draw(st.sampled_from(GAME_IDS))])
    outputs = run(searched)
    assert [outputs[i] for i in original_at] == run(ops)


@contextmanager
def broken_handler(name: str, error: type[BaseException]) -> Iterator[None]:
    """Operation ``name`` with a defect: its handler raises ``error``."""

    def handler(session: Session, args: object) -> None:
        raise error("defect")

    with OPERATIONS.replaced(dataclasses.replace(OPERATIONS[name], handler=handler)):
        yield


SAMPLE_OPERATIONS = {
    "new": ["new", "h", 2],
    "play": ["play", "g", [0, 1, 2]],
    "autoplay": ["autoplay", "g"],
    "bestrun": ["bestrun", "KJQKA2A"],
    "quartets": ["quartets", ["1 A 2 3C no"]],
    "variants": ["variants"],
    **{
        name: [name, "g"]
        for name in [
            "table",
            "status",
            "history",
            "moves",
            "undo",
            "forget",
            "best",
            "solve",
            "fair_move",
            "rating",
            "explain",
            "audit",
        ]
    },
}
DEFECTS = [
    RuntimeError,
    KeyError,
    IndexError,
    ValueError,
    ZeroDivisionError,
    AssertionError,
    RecursionError,
    MemoryError,
]


def test_every_operation_has_a_sample() -> None:
    assert sorted(SAMPLE_OPERATIONS) == sorted(OPERATIONS)


@examples(0.5)
@given(st.sampled_from(sorted(SAMPLE_OPERATIONS)), st.sampled_from(DEFECTS))
def test_a_defect_in_a_handler_is_an_error_string_and_the_session_goes_on(name: str, error: type[Exception]) -> None:
    session = Session()
    session.apply(["new", "g", 1])
    with broken_handler(name, error):
        assert session.apply(SAMPLE_OPERATIONS[name]) == f"error: internal error ({error.__name__})"
    assert session.apply(["status", "g"]) == {"cleared": 0, "stock": 42, "over": False}
