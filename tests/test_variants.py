"""Variant objects: canonical names, strict refusals that keep the game, decks with fewer suits,
the deal of a deck no bigger than the table, and ``--variant`` as a name, JSON or a file."""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.reference import lcg_shuffle
from triples.api import run
from triples.doors import cli
from triples.doors.kit.variant_option import variant_of_option, variant_option
from triples.interpreter.session import Session
from triples.model.variants import VARIANTS, BadVariant, UnknownVariant, canonical_name, fields_of, parse_variant

STANDARD_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
TWO_SUITS = [rank + suit for suit in "SH" for rank in STANDARD_RANKS]
ONE_NUMERIC_SUIT = [f"{rank}S" for rank in range(1, 10)]

# Written out once from lcg_shuffle and kept as literals: the engine's deal must give exactly these.
TWO_SUIT_DECKS = {
    0: [
        "6H",
        "4S",
        "5H",
        "9H",
        "10S",
        "3H",
        "QS",
        "4H",
        "5S",
        "2S",
        "9S",
        "JH",
        "10H",
        "6S",
        "8S",
        "7H",
        "2H",
        "AH",
        "KS",
        "QH",
        "JS",
        "3S",
        "KH",
        "8H",
        "7S",
        "AS",
    ],
    7: [
        "9S",
        "AH",
        "3H",
        "5S",
        "8H",
        "7S",
        "AS",
        "JH",
        "QS",
        "6S",
        "7H",
        "6H",
        "JS",
        "QH",
        "2S",
        "10S",
        "3S",
        "KH",
        "4S",
        "5H",
        "2H",
        "9H",
        "8S",
        "KS",
        "4H",
        "10H",
    ],
}
ONE_SUIT_DECKS = {
    0: ["7S", "2S", "4S", "3S", "8S", "6S", "5S", "1S", "9S"],
    7: ["2S", "5S", "9S", "6S", "4S", "1S", "8S", "3S", "7S"],
}


def test_the_hand_deal_reproduces_the_four_suit_deal_of_seed_0() -> None:
    four_suits = [rank + suit for suit in "SHDC" for rank in STANDARD_RANKS]
    assert lcg_shuffle(four_suits, 0)[:13] == [
        "9H",
        "9D",
        "10H",
        "KH",
        "JS",
        "10C",
        "7H",
        "6C",
        "KC",
        "10D",
        "QD",
        "AS",
        "5H",
    ]
    assert [lcg_shuffle(TWO_SUITS, seed) for seed in (0, 7)] == [TWO_SUIT_DECKS[0], TWO_SUIT_DECKS[7]]
    assert [lcg_shuffle(ONE_NUMERIC_SUIT, seed) for seed in (0, 7)] == [ONE_SUIT_DECKS[0], ONE_SUIT_DECKS[7]]


@pytest.mark.parametrize("seed", [0, 7])
def test_a_two_suit_deck_deals_its_26_cards_in_factory_order_shuffled(seed: int) -> None:
    session = Session()
    table = session.apply(["new", "g", seed, {"suits": 2}])
    assert table == TWO_SUIT_DECKS[seed][:10]
    assert [card.code for card in session.games["g"].stock] == TWO_SUIT_DECKS[seed][10:]
    assert session.apply(["status", "g"])["stock"] == 16
    assert [card.code for card in parse_variant({"suits": 2}).cards] == TWO_SUITS


@pytest.mark.parametrize("seed", [0, 7])
def test_a_one_suit_deck_smaller_than_the_table_is_dealt_whole_and_leaves_slots_empty(seed: int) -> None:
    session = Session()
    table = session.apply(["new", "g", seed, {"base": "grid", "suits": 1}])
    assert table == [*ONE_SUIT_DECKS[seed], None, None, None]
    assert session.apply(["status", "g"])["stock"] == 0


def test_a_deck_exactly_the_size_of_the_table_is_dealt_whole() -> None:
    assert run([["new", "g", 7, {"base": "sum15", "suits": 1}], ["status", "g"]]) == [
        ONE_SUIT_DECKS[7],
        {"cleared": 0, "stock": 0, "over": False},
    ]


NAMES = [
    ({"base": "classic", "target": 21, "slots": 11}, "classic(slots=11,target=21)"),
    ({"target": 21, "slots": 11}, "classic(slots=11,target=21)"),
    ("classic(target=21,slots=11)", "classic(slots=11,target=21)"),
    ("classic( slots = 11 , target = 21 )", "classic(slots=11,target=21)"),
    ({}, "classic"),
    ({"base": "sum15"}, "sum15"),
    ({"base": "pairs", "slots": 9, "court": [11, 12, 13], "suits": 4}, "pairs"),
    ("grid(slots=12)", "grid"),
    ("quads()", "quads"),
    ({"court": [11, 12, 13]}, "classic(court=11/12/13)"),
    ("classic(court=11/12/13)", "classic(court=11/12/13)"),
    ({"base": "sum15", "deck": "standard"}, "sum15(deck=standard,court=10/10/10)"),
    ({"deck": "numeric"}, "classic(deck=numeric,top_rank=9)"),
    ({"deck": "numeric", "suits": 2, "top_rank": 13}, "classic(deck=numeric,top_rank=13,suits=2)"),
    ({"base": "grid100", "target": 26, "per_move": 2}, "grid100(per_move=2,target=26)"),
    ({"base": "pairs", "deck": "numeric", "top_rank": 50, "slots": 100}, "pairs(slots=100,deck=numeric,top_rank=50)"),
    ({"per_move": 6, "target": 999, "suits": 1}, "classic(per_move=6,target=999,suits=1)"),
]


@pytest.mark.parametrize(("spec", "name"), NAMES, ids=[name for _, name in NAMES])
def test_canonical_names(spec: object, name: str) -> None:
    assert canonical_name(spec) == name
    variant = parse_variant(spec)
    # The name stands for the same rules and the same object, wherever it is read back.
    assert parse_variant(name) is variant
    assert parse_variant(name) is variant


@pytest.mark.parametrize(("spec", "name"), NAMES, ids=[name for _, name in NAMES])
def test_the_object_form_of_a_variant_gives_it_back(spec: object, name: str) -> None:
    variant = parse_variant(spec)
    given = fields_of(variant)
    assert orjson.loads(orjson.dumps(given)) == given  # JSON values, court as a list
    assert parse_variant(given) is variant
    assert set(given) == {"base"} or variant.name != given["base"]


def test_an_object_that_changes_nothing_is_the_registered_variant_itself() -> None:
    for name, registered in VARIANTS.items():
        assert parse_variant({"base": name}) is registered
        assert parse_variant({"base": name, "slots": registered.slots, "target": registered.target}) is registered


def test_custom_rules_take_effect() -> None:
    variant = parse_variant({"base": "sum15", "deck": "standard", "court": [11, 12, 13], "suits": 3, "per_move": 2})
    assert (variant.slots, variant.per_move, variant.target, variant.deck_size, variant.max_value) == (9, 2, 15, 39, 13)
    assert variant.value(variant.by_code["QD"]) == 12
    assert variant.card("AC") is None
    numeric = parse_variant({"deck": "numeric", "top_rank": 20, "suits": 3})
    assert (numeric.slots, numeric.per_move, numeric.target, numeric.deck_size, numeric.max_value) == (
        10,
        3,
        20,
        60,
        20,
    )
    assert parse_variant({"base": "grid100", "deck": "standard"}).court == (10, 10, 10)
    assert parse_variant({"base": "classic", "deck": "numeric"}).top_rank == 9


def operations(name: str, spec: object, seed: int) -> list[Any]:
    """Every operation on a seeded game, under the variant given as ``spec``."""
    k = VARIANTS[name].per_move
    return [
        ["new", "g", seed, spec],
        ["moves", "g"],
        ["play", "g", list(range(k))],
        ["play", "g", [0] * k],
        ["play", "g", [0]],
        ["status", "g"],
        ["autoplay", "g", "high"],
        ["table", "g"],
        ["history", "g"],
        ["undo", "g"],
        ["undo", "g"],
        ["autoplay", "g", "fair"],
        ["undo", "g"],
        ["best", "g"],
        ["solve", "g"],
        ["new", "h", ["ZZ"], spec],
        ["new", "h", [1, 2], spec],
    ]


@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.parametrize("seed", [1, 20])
def test_base_object_is_the_named_variant_output_for_output(name: str, seed: int) -> None:
    named = run(operations(name, name, seed))
    assert run(operations(name, {"base": name}, seed)) == named
    assert run(operations(name, {"base": name, "slots": VARIANTS[name].slots}, seed)) == named
    assert named[-2] == f"error: unknown card 'ZZ' for variant '{name}'"


BASE_REFUSAL = (
    "bad variant: base must be the name of a registered variant (classic, pairs, quads, sum15, grid, grid100)"
)
REFUSALS = [
    # types: booleans and floats are not integers
    ({"slots": "10"}, "bad variant: slots must be an integer from 1 to 100"),
    ({"slots": True}, "bad variant: slots must be an integer from 1 to 100"),
    ({"slots": 10.0}, "bad variant: slots must be an integer from 1 to 100"),
    ({"per_move": None}, "bad variant: per_move must be an integer from 2 to 6"),
    ({"target": 20.5}, "bad variant: target must be an integer from 1 to 999"),
    ({"suits": False}, "bad variant: suits must be an integer from 1 to 4"),
    ({"base": "sum15", "top_rank": "9"}, "bad variant: top_rank must be an integer from 1 to 50"),
    ({"court": [10, 10, True]}, "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    ({"court": "11/12/13"}, "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    ({"court": [10, 10]}, "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    ({"deck": "tarot"}, 'bad variant: deck must be "standard" or "numeric"'),
    ({"deck": None}, 'bad variant: deck must be "standard" or "numeric"'),
    # bounds
    ({"slots": 0}, "bad variant: slots must be an integer from 1 to 100"),
    ({"slots": 101}, "bad variant: slots must be an integer from 1 to 100"),
    ({"per_move": 1}, "bad variant: per_move must be an integer from 2 to 6"),
    ({"per_move": 7}, "bad variant: per_move must be an integer from 2 to 6"),
    ({"target": 0}, "bad variant: target must be an integer from 1 to 999"),
    ({"target": 1000}, "bad variant: target must be an integer from 1 to 999"),
    ({"suits": 0}, "bad variant: suits must be an integer from 1 to 4"),
    ({"suits": 5}, "bad variant: suits must be an integer from 1 to 4"),
    ({"base": "grid", "top_rank": 51}, "bad variant: top_rank must be an integer from 1 to 50"),
    ({"base": "grid", "top_rank": 0}, "bad variant: top_rank must be an integer from 1 to 50"),
    ({"court": [0, 10, 10]}, "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    ({"court": [10, 10, 51]}, "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    # unknown fields
    ({"slot": 11}, "bad variant: unknown field 'slot'"),
    ({"base": "classic", "Slots": 11}, "bad variant: unknown field 'Slots'"),
    ({"name": "mine"}, "bad variant: unknown field 'name'"),
    # fields of the other deck kind
    ({"base": "sum15", "court": [10, 10, 10]}, "bad variant: court is only for a standard deck"),
    ({"deck": "numeric", "court": [10, 10, 10]}, "bad variant: court is only for a standard deck"),
    ({"top_rank": 9}, "bad variant: top_rank is only for a numeric deck"),
    ({"base": "grid", "deck": "standard", "top_rank": 9}, "bad variant: top_rank is only for a numeric deck"),
    # k above slots
    ({"slots": 2}, "bad variant: per_move (3) must be at most slots (2)"),
    ({"base": "quads", "slots": 3}, "bad variant: per_move (4) must be at most slots (3)"),
    ({"per_move": 6, "slots": 5}, "bad variant: per_move (6) must be at most slots (5)"),
    # the base
    ({"base": "nope"}, "unknown variant 'nope'"),
    ({"base": "Classic", "target": 21}, "unknown variant 'Classic'"),
    ({"base": "classic(target=21)"}, "unknown variant 'classic(target=21)'"),
    (
        {"base": 3},
        BASE_REFUSAL,
    ),
    (
        {"base": None},
        BASE_REFUSAL,
    ),
    # names
    ("classic(slots=0)", "bad variant: slots must be an integer from 1 to 100"),
    ("classic(slots=1.5)", "bad variant: slots must be an integer from 1 to 100"),
    ("classic(slot=11)", "bad variant: unknown field 'slot'"),
    ("classic(slots=11,slots=12)", "bad variant: field 'slots' is given twice"),
    ("classic(base=sum15)", "bad variant: field 'base' is given twice"),
    ("classic(slots)", "bad variant: expected field=value in classic(slots), not 'slots'"),
    ("classic(court=1/2)", "bad variant: court must be three integers from 1 to 50 (the values of J, Q, K)"),
    ("poker(slots=11)", "unknown variant 'poker(slots=11)'"),
    ("classic(slots=11", "unknown variant 'classic(slots=11'"),
    ("classic", None),  # not a refusal: the control case
]


@pytest.mark.parametrize(("spec", "message"), REFUSALS, ids=[str(spec) for spec, _ in REFUSALS])
def test_every_refusal_is_one_line_and_keeps_the_game_that_was_there(spec: object, message: str | None) -> None:
    session = Session()
    assert session.apply(["new", "g", 2, "pairs"]) == ["6C", "2D", "10H", "AC", "QH", "2S", "JD", "QC", "6S"]
    assert session.apply(["play", "g", [1, 4]]) == "ok"
    snapshot = session.games["g"].snapshot()
    output = session.apply(["new", "g", 5, spec])
    if message is None:
        assert isinstance(output, list)
        return
    assert output == f"error: {message}"
    assert "\n" not in output
    assert session.games["g"].snapshot() == snapshot
    assert session.apply(["new", "other", 5, spec]) == output
    assert session.apply(["table", "other"]) == "error: unknown game"
    with pytest.raises(UnknownVariant if message.startswith("unknown") else BadVariant):
        parse_variant(spec)


@pytest.mark.parametrize("spec", [5, True, None, [], ["classic"]])
def test_a_variant_that_is_neither_a_name_nor_an_object_is_a_usage_error(spec: object) -> None:
    assert run([["new", "g", 1, spec]]) == ['error: usage: ["new", id, seed_or_deck, variant?]']


def test_errors_and_outputs_name_a_custom_variant_canonically() -> None:
    spec = {"base": "sum15", "top_rank": 5, "suits": 2, "target": 9}
    out = run(
        [
            ["new", "g", ["1S"], spec],
            ["new", "g", [9], spec],
            ["new", "g", [5, 5, 5], spec],
            ["new", "g", [5, 5, 1, 1, 2, 2, 3, 3, 4, 4], spec],
            ["play", "g", [0, 1]],
            ["play", "g", [0, 2, 3]],
            ["play", "g", [5, 0, 4]],
            ["table", "g"],
            ["history", "g"],
        ]
    )
    assert out == [
        "error: deck is missing 9 card(s): 2S 3S 4S 5S 1H",
        "error: unknown value 9 for variant 'sum15(target=9,top_rank=5,suits=2)'",
        "error: value 5 appears more than 2 times",
        ["5S", "5H", "1S", "1H", "2S", "2H", "3S", "3H", "4S"],
        "error: pick exactly 3 cards",
        "error: cards sum to 7, need 9",
        "ok",
        ["4H", "5H", "1S", "1H", None, None, "3S", "3H", "4S"],
        [[0, 4, 5]],
    ]


def test_a_rule_set_where_no_move_is_ever_legal_is_over_at_once() -> None:
    spec = {"target": 999}
    out = run(
        [["new", "g", 1, spec], ["status", "g"], ["moves", "g"], ["autoplay", "g"], ["best", "g"], ["solve", "g"]]
    )
    assert out[1:] == [
        {"cleared": 0, "stock": 42, "over": True},
        [],
        {"moves": [], "cleared": 0},
        0,
        {"best": 0, "moves": []},
    ]


# ---- --variant on the command line


def test_the_option_takes_a_name_inline_json_or_a_file(tmp_path: Path) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text('{"base": "classic", "target": 21, "slots": 11}\n')
    named = tmp_path / "named.json"
    named.write_text('"sum15"')
    wanted = parse_variant({"target": 21, "slots": 11})
    assert variant_of_option('{"target": 21, "slots": 11}') is wanted
    assert variant_of_option(f"@{rules}") is wanted
    assert variant_of_option("classic(slots=11,target=21)") is wanted
    assert variant_of_option(f"@{named}") is VARIANTS["sum15"]
    assert variant_of_option("pairs") is VARIANTS["pairs"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("poker", "unknown variant 'poker'"),
        ('{"slot": 3}', "bad variant: unknown field 'slot'"),
        (
            "{slots: 3}",
            "inline variant rules are not JSON (unexpected character, expected a string key: line 1 column 2 (char 1))",
        ),
        ("@missing.json", "variant file missing.json: No such file or directory"),
        (
            "@bad.json",
            "variant file bad.json is not JSON (unexpected content after document: line 1 column 9 (char 8))",
        ),
        ("@list.json", "bad variant: a variant is a name or an object of fields"),
    ],
)
def test_the_option_refuses_in_one_line(
    text: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.json").write_text('"sum15" x')
    Path("list.json").write_text('["sum15"]')
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{re.escape(message)}$"):
        variant_option(text)
    assert cli.main(["rate", "--variant", text, "--seeds", "1-2"]) == 2
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")


def test_rate_names_a_custom_variant_canonically(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rate", "--variant", '{"target": 21, "slots": 11}', "--seeds", "1-2", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "\nvariant: classic(slots=11,target=21)\n" in out


def test_rule_sets_of_ones_own_are_kept_within_their_bytes() -> None:
    import gc
    import tracemalloc

    from triples import run
    from triples.model import variants
    from triples.support import caches

    def distinct(first: int, count: int) -> None:
        for n in range(first, first + count):
            spec = {"base": "classic", "target": 10 + n % 900, "per_move": 3 + n // 900}  # all of one size
            assert run([["new", "g", n, spec], ["status", "g"]])[1]["cleared"] == 0

    caches.set_budget(16 * 1024 * 1024)  # a sixteenth of it, 1 MiB, for the rule sets
    try:
        distinct(0, 200)
        tracemalloc.start()
        distinct(200, 200)
        gc.collect()  # a recursion of nested functions is a cycle, freed by the collector
        before = tracemalloc.take_snapshot()
        distinct(400, 400)
        gc.collect()
        after = tracemalloc.take_snapshot()
        # Only what triples' own code allocated: threads the suite leaves running (a Dask
        # cluster's client, a server's loop) allocate too, and are no part of this.
        package = tracemalloc.Filter(True, str(Path(variants.__file__).resolve().parent.parent) + "/*")
        grown = sum(
            stat.size_diff
            for stat in after.filter_traces([package]).compare_to(before.filter_traces([package]), "filename")
        )
        kept, held = variants.built_bytes()
        assert held <= variants.built_budget() == 1024 * 1024 and 40 < kept < 200
    finally:
        tracemalloc.stop()
        caches.set_budget(caches.DEFAULT_BUDGET)
    assert grown < 20_000  # flat: 400 more rule sets, each some 13 KB when kept
    # A rule set dropped from the registry is made again, equal to the first.
    again = parse_variant({"base": "classic", "target": 10})
    assert again.name == "classic(target=10)" and again == parse_variant(again.name)
