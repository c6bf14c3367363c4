"""Uniscraper (triples.games.uniscraper, docs/uniscraper.md): the geometry, configs, the exact best run and
its tie rule, the ``bestrun`` operation and the ``triples bestrun`` command.

The engine is checked against the naive reading of the rules in tests/reference.py (every run
enumerated) on small pyramids, and on large ones against a memoised search over the same
naive rules that keeps whole runs, not lengths."""

from __future__ import annotations

import random
from functools import cache

import pytest

from tests.helpers import SPEC_SECTION_9, SPEC_SECTION_9_IDS
from tests.reference import (
    PYRAMID_RANKS,
    all_runs,
    brute_bestrun,
    naive_pyramid,
    next_to,
    pyramid_free,
)
from tests.test_cli import triples as triples_cli
from triples import run
from triples.doors import cli
from triples.games.uniscraper import (
    ConfigError,
    RunSearch,
    best_run,
    bit,
    column_of,
    covered_by,
    covers,
    parse_config,
    row_of,
)

# ---------------------------------------------------------------- the rules' examples

SPEC_EXAMPLES = SPEC_SECTION_9


@pytest.mark.parametrize(("config", "expected"), SPEC_EXAMPLES, ids=SPEC_SECTION_9_IDS)
def test_spec_examples(config: str, expected: list[int]) -> None:
    assert best_run(config) == expected
    assert run([["bestrun", config]]) == [expected]


# ---------------------------------------------------------------- the tie rule


def is_run(config: str, positions: list[int]) -> bool:
    return positions in all_runs(config)


# (config, best run, another run as long that is lexicographically larger)
TIES = [
    # the rules' own example: two runs of 6 that differ at the first card
    ("KJQKA2A", [4, 5, 6, 3, 2, 1], [6, 5, 4, 3, 2, 1]),
    # the same first card, then the A at 2 or the 3 at 3: both end the run
    ("3AA32", [4, 2], [4, 3]),
    # positions compare as numbers: 7 before 10, though "10" < "7" as text
    ("2AA32AA3223", [7, 8, 10, 9, 5, 4, 2], [10, 8, 7, 9, 5, 4, 2]),
]


@pytest.mark.parametrize(("config", "best", "other"), TIES, ids=["first-card", "second-card", "numeric-order"])
def test_among_the_longest_runs_the_smallest_list_wins(config: str, best: list[int], other: list[int]) -> None:
    assert is_run(config, other) and len(other) == len(best) and best < other
    assert best_run(config) == best
    assert max(len(r) for r in all_runs(config)) == len(best)


def test_length_beats_a_smaller_first_position() -> None:
    # From the A, the K at 3 is the smallest playable card, but ends the run at once; the K
    # at 4 frees the A at 2, and the K at 3 follows.
    config = "AKAKK"
    assert is_run(config, [3]) and not any(r[:1] == [3] and len(r) > 1 for r in all_runs(config))
    assert best_run(config) == [4, 2, 3]


def test_no_playable_card_is_the_empty_run() -> None:
    assert best_run("2") == []
    assert best_run("29") == []  # the 9 is free but not next to the 2
    assert best_run("2A") == [1]
    assert best_run("23") == [1]
    assert best_run("AK") == [1]  # the cycle wraps: A and K are neighbours, and A and 2


# ---------------------------------------------------------------- the pyramid


@pytest.mark.parametrize(
    ("position", "row", "column", "below", "above"),
    [
        (1, 1, 0, (2, 3), ()),
        (2, 2, 0, (4, 5), (1,)),
        (3, 2, 1, (5, 6), (1,)),
        (5, 3, 1, (8, 9), (2, 3)),
        (10, 4, 3, (14, 15), (6,)),
        (28, 7, 6, (35, 36), (21,)),
        (29, 8, 0, (), (22,)),
        (33, 8, 4, (), (25, 26)),
        (36, 8, 7, (), (28,)),
    ],
    ids=["1", "2", "3", "5", "10", "28", "29", "33", "36"],
)
def test_geometry(position: int, row: int, column: int, below: tuple[int, ...], above: tuple[int, ...]) -> None:
    assert (row_of(position), column_of(position)) == (row, column)
    assert covered_by(position) == below
    assert covers(position) == above


def test_covering_is_one_relation_seen_from_both_ends() -> None:
    pairs = {(p, q) for p in range(1, 37) for q in covered_by(p)}
    assert pairs == {(q, p) for p in range(1, 37) for q in covers(p)}
    assert len(pairs) == 2 * 28  # rows 1..7 hold 28 positions, each covered by two


def test_removing_free_cards_reaches_every_down_closed_shape_and_only_those() -> None:
    """The bound the search rests on: from the full pyramid, 4,862 shapes (Catalan C(9))."""
    full = (1 << 36) - 1
    seen = {full: sum(bit(p) for p in range(29, 37))}
    stack = list(seen.items())
    while stack:
        left, free = stack.pop()
        assert free == sum(bit(p) for p in pyramid_free({q: "2" for q in range(1, 37) if left & bit(q)}))
        candidates = free
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            after, freed = RunSearch.remove(left, free, low)
            if after not in seen:
                seen[after] = freed
                stack.append((after, freed))
    assert len(seen) == 4862


# ---------------------------------------------------------------- validation


INVALID = [
    ("", "length 0, must be 1 to 37 characters"),
    ("K" + "." * 37, "length 38, must be 1 to 37 characters"),
    ("X" * 40, "length 40, must be 1 to 37 characters"),
    ("KJQX", "character 'X' at index 3 is not one of 23456789TJQKA."),
    ("k", "character 'k' at index 0 is not one of 23456789TJQKA."),
    ("K10", "character '1' at index 1 is not one of 23456789TJQKA."),
    ("K\n", "character U+000A at index 1 is not one of 23456789TJQKA."),
    ("K\ud800", "character U+D800 at index 1 is not one of 23456789TJQKA."),
    (".X", "character 'X' at index 1 is not one of 23456789TJQKA."),
    (".", "the play card is a dot"),
    (".KK", "the play card is a dot"),
    ("KKKKK", "rank K appears 5 times, at most 4"),
    ("AAAAA22222", "rank 2 appears 5 times, at most 4"),
    ("K.2", "position 2 holds a card over empty position 1"),
    ("K22..2", "position 5 holds a card over empty position 3"),
    ("K22...2", "position 6 holds a card over empty position 3"),
    ("K...2", "position 4 holds a card over empty position 2"),
    ("K" + ("23456789TJQKA" * 3)[:27] + "." * 8 + "3", "position 36 holds a card over empty position 28"),
    ("K.KKKK", "rank K appears 5 times, at most 4"),  # the count is checked before the covering
]


@pytest.mark.parametrize(
    ("config", "reason"), INVALID, ids=[reason.split(" ")[0] + str(i) for i, (_, reason) in enumerate(INVALID)]
)
def test_an_invalid_config_names_its_problem(config: str, reason: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(config)
    assert str(caught.value) == f"bad config: {reason}"
    assert run([["bestrun", config]]) == [f"error: bad config: {reason}"]


@pytest.mark.parametrize(
    "config",
    ["K", "K" + "." * 36, "KKKK", "KKKAAAA", "K222", "K22.2", "2" + "3456789TJQKA" * 3],
    ids=["play-only", "37-chars", "four-kings", "four-aces", "row-3-left", "row-3-gap-under", "full"],
)
def test_valid_configs_parse(config: str) -> None:
    pyramid = parse_config(config)
    assert naive_pyramid(config) is not None
    cards = config[1:].ljust(36, ".")
    assert [None if r is None else PYRAMID_RANKS[r] for r in pyramid.cards] == [None if c == "." else c for c in cards]


@pytest.mark.parametrize(
    "operation",
    [["bestrun"], ["bestrun", 5], ["bestrun", None], ["bestrun", ["K"]], ["bestrun", "K", "K"], ["bestrun", True]],
    ids=["no-config", "int", "null", "list", "two-args", "bool"],
)
def test_a_config_that_is_not_one_string_is_a_usage_error(operation: list[object]) -> None:
    assert run([operation]) == ['error: usage: ["bestrun", config]']


def test_bestrun_needs_no_game_and_changes_none() -> None:
    ops = [["new", "g", 1], ["bestrun", "KJQKA2A"], ["status", "g"], ["bestrun", "K."]]
    assert run(ops) == [run([ops[0]])[0], [4, 5, 6, 3, 2, 1], {"cleared": 0, "stock": 42, "over": False}, []]


# ---------------------------------------------------------------- against brute force


def random_small_config(rng: random.Random) -> str:
    """Up to 6 rows, mostly of few ranks (long runs, many ties), a few free cards taken away."""
    size = rng.choice([1, 3, 6, 10, 15, 15, 21])
    ranks = rng.choice(["2A3K", "2A3K", "KA", "A23", "9TJQK", PYRAMID_RANKS])
    pool = [rank for rank in ranks for _ in range(4)]
    rng.shuffle(pool)
    cards = pool[: size + 1]
    held = dict(enumerate(cards[1:], start=1))
    for _ in range(rng.randint(0, 4)):
        free = pyramid_free(held)
        if free:
            del held[rng.choice(free)]
    return cards[0] + "".join(held.get(p, ".") for p in range(1, size + 1))


SMALL_CONFIGS = [random_small_config(random.Random(seed)) for seed in range(300)]


def test_small_random_positions_agree_with_brute_force() -> None:
    disagree = [(c, best_run(c), brute_bestrun(c)) for c in SMALL_CONFIGS if best_run(c) != brute_bestrun(c)]
    assert disagree == []
    assert sum(len(brute_bestrun(c)) >= 5 for c in SMALL_CONFIGS) >= 40  # the set has long runs


def memoised_bestrun(config: str) -> list[int]:
    """The best run on Uniscraper's rules read naively, memoised on (cards held, play card) and
    keeping whole runs: exact on any pyramid, independent of the engine's bit masks."""
    parsed = naive_pyramid(config)
    assert parsed is not None

    @cache
    def best(held: frozenset[tuple[int, str]], play: str) -> tuple[int, ...]:
        cards = dict(held)
        runs = [()] + [
            (p, *best(held - {(p, cards[p])}, cards[p])) for p in pyramid_free(cards) if next_to(cards[p], play)
        ]
        return min(runs, key=lambda r: (-len(r), r))

    return list(best(frozenset(parsed[1].items()), parsed[0]))


HILL_CLIMBED = "Q5654543344T23A39JK222TTTQAAAKJJQJKQK"  # searched for the most states; a run of all 36
# The 16 cards of 2, 3, A and K: the play card and rows 7 and 8, under rows of 4..Q.
LOW_BOTTOM = "2" + ("456789TJQ" * 3)[:21] + "A3K2" * 3 + "A3K"


def test_a_best_runs_tail_is_the_best_run_of_the_position_it_leaves() -> None:
    whole = best_run(HILL_CLIMBED)
    assert len(whole) == 36
    left = list(HILL_CLIMBED)
    for position in whole[:12]:
        left[position] = "."
    left[0] = HILL_CLIMBED[whole[11]]
    assert best_run("".join(left)) == whole[12:]


@pytest.mark.parametrize("config", [HILL_CLIMBED, LOW_BOTTOM], ids=["hill-climbed", "low-ranks-at-the-bottom"])
def test_large_positions_agree_with_a_memoised_naive_search(config: str) -> None:
    assert best_run(config) == memoised_bestrun(config)


# ---------------------------------------------------------------- the command line


def test_command_answers_each_config_on_its_own_line() -> None:
    assert triples_cli("bestrun", "KJQKA2A", "K.", "23456789TJQKA23456789TJQKA") == (
        0,
        b"[4,5,6,3,2,1]\n[]\n[" + ",".join(map(str, range(25, 0, -1))).encode() + b"]\n",
        "",
    )


def test_command_reports_a_bad_config_and_answers_the_others() -> None:
    assert triples_cli("bestrun", "KJQKA2A", "KX", "", "K.") == (
        2,
        b"[4,5,6,3,2,1]\n[]\n",
        "triples bestrun: error: \"KX\": bad config: character 'X' at index 1 is not one of 23456789TJQKA.\n"
        'triples bestrun: error: "": bad config: length 0, must be 1 to 37 characters\n',
    )


def test_command_needs_a_config() -> None:
    # A usage error is one line; the usage itself is for --help.
    assert triples_cli("bestrun") == (2, b"", "triples bestrun: error: the following arguments are required: CONFIG\n")


def test_command_help_shows_an_example_that_is_true() -> None:
    result = triples_cli("bestrun", "--help")
    assert (result.status, result.stderr) == (0, "")
    text = result.stdout.decode()
    epilog = cli.COMMANDS["bestrun"].example
    assert text.splitlines()[0] == "usage: triples bestrun [-h] CONFIG [CONFIG ...]"
    assert text.endswith("\n\n" + epilog + "\n")
    lines = epilog.splitlines()
    assert lines[1] == "  triples bestrun KJQKA2A 'K.'"
    assert triples_cli("bestrun", "KJQKA2A", "K.").stdout.decode().splitlines() == [s.strip() for s in lines[2:]]
