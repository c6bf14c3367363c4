"""Shared test data (the worked examples' explicit decks) and the tests' brute-force moves."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations


def slot_moves(values: Sequence[int], k: int, target: int) -> Iterator[tuple[int, ...]]:
    """Every ``k`` occupied slots (a value of 0 is an empty slot) whose values sum to ``target``,
    each in increasing slot order, in lexicographic order: every ``k - 1`` of them completed by
    each later slot holding what is missing. The brute force the tests check the engines
    against; it knows nothing of value combinations."""
    occupied = [s for s, v in enumerate(values) if v]
    held = [values[s] for s in occupied]
    holding: dict[int, list[int]] = {}
    for s in occupied:
        holding.setdefault(values[s], []).append(s)
    for head, picked in zip(combinations(occupied, k - 1), combinations(held, k - 1), strict=True):
        last = head[-1] if head else -1
        for s in holding.get(target - sum(picked), ()):
            if s > last:
                yield (*head, s)


SEED1 = [
    "9D",
    "AH",
    "4H",
    "9H",
    "3C",
    "7H",
    "2S",
    "2D",
    "AC",
    "7C",
    "10S",
    "5H",
    "8H",
    "10C",
    "QH",
    "QS",
    "5S",
    "4C",
    "JC",
    "10D",
    "JD",
    "8C",
    "9S",
    "KH",
    "JH",
    "AD",
    "2H",
    "5D",
    "6D",
    "7D",
    "9C",
    "JS",
    "3H",
    "2C",
    "KD",
    "8D",
    "6C",
    "6S",
    "8S",
    "QC",
    "3S",
    "4S",
    "6H",
    "QD",
    "4D",
    "5C",
    "3D",
    "7S",
    "KC",
    "KS",
    "10H",
    "AS",
]
SEED1_TABLE = ["9D", "AH", "4H", "9H", "3C", "7H", "2S", "2D", "AC", "7C"]

# The task's worked examples, seed for seed (operations, outputs).
SPEC_SECTION_7: dict[str, tuple[list[object], list[object]]] = {
    "play-seed-1": (
        [["new", "g", 1], ["play", "g", [5, 0, 2]], ["table", "g"], ["status", "g"], ["history", "g"]],
        [
            SEED1_TABLE,
            "ok",
            ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
            {"cleared": 3, "stock": 39, "over": False},
            [[0, 2, 5]],
        ],
    ),
    "errors-and-moves-seed-1": (
        [["new", "g", 1], ["play", "g", [0, 0, 6]], ["play", "g", [-1, 0, 1]], ["moves", "g"]],
        [
            SEED1_TABLE,
            "error: positions must be distinct",
            "error: position out of range",
            [[0, 2, 5], [0, 2, 9], [0, 3, 6], [0, 3, 7], [2, 3, 5], [2, 3, 9]],
        ],
    ),
    "autoplay-seed-1": (
        [["new", "g", 1], ["autoplay", "g"], ["status", "g"]],
        [
            SEED1_TABLE,
            {"moves": [[0, 3, 6], [0, 6, 7], [0, 4, 5], [0, 3, 5]], "cleared": 12},
            {"cleared": 12, "stock": 30, "over": True},
        ],
    ),
    "best-seed-1": (
        [["new", "g", 1], ["autoplay", "g"], ["new", "g", 1], ["best", "g"]],
        [SEED1_TABLE, {"moves": [[0, 3, 6], [0, 6, 7], [0, 4, 5], [0, 3, 5]], "cleared": 12}, SEED1_TABLE, 48],
    ),
    "pairs-seed-2": (
        [["new", "p", 2, "pairs"], ["moves", "p"]],
        [["6C", "2D", "10H", "AC", "QH", "2S", "JD", "QC", "6S"], [[1, 4], [1, 7], [4, 5], [5, 7]]],
    ),
}

# Uniscraper's examples (config, best run), with test ids.
SPEC_SECTION_9: list[tuple[str, list[int]]] = [
    ("6KQJT98765432AKQJT98765432AKQJT987654", [35, 34, 33, 32, 31, 30, 29]),
    ("KJQKA2A", [4, 5, 6, 3, 2, 1]),
    ("KAKJA.TK..JQ...Q", [15, 10, 6, 3, 11, 7, 4, 2, 1]),
    ("A2A2KAK2", [7, 5, 4, 2, 6]),
    ("23456789TJQKA23456789TJQKA", list(range(25, 0, -1))),
    ("K.", []),
]
SPEC_SECTION_9_IDS = ["full-deal", "tie", "partly-played", "short", "chain-25", "nothing"]
