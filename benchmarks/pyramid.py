"""Uniscraper's best run: a naive exhaustive search against ``triples.games.uniscraper`` on the same configs.

    python benchmarks/pyramid.py                  # the issue's run
    python benchmarks/pyramid.py --deals 100 --played 100 --adversarial 20   # a short run

The naive search enumerates every run depth-first, in ascending position order, with no memo:
the first run it meets of each length is the lexicographically smallest of that length, so it
keeps the first longest. It uses the engine's own parsing and bit-mask moves
(``RunSearch.remove``, ``playable_on``), so what it pays for is the enumeration, not Python
overhead. Times are the process's CPU time (``time.process_time``), so that other work on
a shared machine does not land on either search. The naive search gives up on a config after
``--naive-limit`` CPU seconds; the time it spent counts in its total, so on a set where it
gave up the ratio is a lower bound (shown as ">=").

Sets, all from fixed seeds: the rules' examples (docs/uniscraper.md); random full deals (37 of a shuffled
52-card deck); partly played positions (a full deal with 1..30 random free cards taken away,
one at a time); and adversarial configs (see ``adversarial``): the 16 cards of 2, 3, A and K,
and of 4 and Q next to them, placed where they are free soonest; bands of neighbouring ranks
in the bottom rows; configs hill-climbed for the largest memo; and those partly played.

Requirements checked at the end (exit status 1 if one fails): full agreement where the naive
search finished; ours at least 50x faster on the adversarial set; no config above 250 ms.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

from triples.games.uniscraper import POSITIONS, RANKS, ConfigError, RunSearch, best_run, bit, parse_config

RULES_EXAMPLES = [
    "6KQJT98765432AKQJT98765432AKQJT987654",
    "KJQKA2A",
    "KAKJA.TK..JQ...Q",
    "A2A2KAK2",
    "23456789TJQKA23456789TJQKA",
    "K.",
]
# CPU time of this process: the machine is shared, and time spent waiting for a core is
# neither search's (both are single-threaded and do no I/O).
clock = time.process_time
SPEEDUP_REQUIRED = 50.0
MAX_MS_ALLOWED = 250.0
DECK = [rank for rank in RANKS for _ in range(4)]
LOW = "2A3K"  # neighbours in a ring of four on the cycle K A 2 3: every pair alternates
# Positions from the bottom row up, so that cards placed first are free soonest.
BOTTOM_UP = [p for row in range(8, 0, -1) for p in range(row * (row - 1) // 2 + 1, row * (row + 1) // 2 + 1)]


class OutOfTime(Exception):
    """The naive search passed its time limit."""


def naive_best_run(config: str, limit_s: float) -> list[int]:
    """Every run enumerated, no memo; OutOfTime after ``limit_s`` seconds."""
    search = RunSearch(parse_config(config))
    deadline = clock() + limit_s
    playable_on, rank_of_bit, remove = search.playable_on, search.rank_of_bit, search.remove
    best: list[int] = []
    path: list[int] = []
    nodes = 0

    def extend(left: int, free: int, rank: int) -> None:
        nonlocal best, nodes
        nodes += 1
        if not nodes & 0x3FF and clock() > deadline:
            raise OutOfTime
        if len(path) > len(best):  # preorder: the first run of a length is the smallest
            best = path[:]
        candidates = free & playable_on[rank]
        while candidates:
            low = candidates & -candidates
            candidates ^= low
            after, freed = remove(left, free, low)
            path.append(low.bit_length())
            extend(after, freed, rank_of_bit[low])
            path.pop()

    pyramid = search.pyramid
    extend(pyramid.present_mask(), pyramid.free_mask(), pyramid.play)
    return best


# ---------------------------------------------------------------- the configs


def config_of(play: str, cards: dict[int, str]) -> str:
    return play + "".join(cards.get(p, ".") for p in range(1, POSITIONS + 1))


def full_deal(rng: random.Random) -> str:
    deck = DECK[:]
    rng.shuffle(deck)
    return "".join(deck[: POSITIONS + 1])


def played(config: str, rng: random.Random, removals: int) -> str:
    """``config`` with ``removals`` random free cards taken away, one at a time."""
    pyramid = parse_config(config)
    left, free = pyramid.present_mask(), pyramid.free_mask()
    for _ in range(removals):
        if not free:
            break
        taken = rng.choice([p for p in range(1, POSITIONS + 1) if free & bit(p)])
        left, free = RunSearch.remove(left, free, bit(taken))
    cards = config[1:].ljust(POSITIONS, ".")
    return config_of(config[0], {p: cards[p - 1] for p in range(1, POSITIONS + 1) if left & bit(p)})


def placed(rng: random.Random, first: list[str]) -> str:
    """The ``first`` ranks (shuffled) as the play card then the lowest positions, the rest of
    the deck shuffled above them."""
    first = first[:]
    rng.shuffle(first)
    rest = DECK[:]
    for rank in first:
        rest.remove(rank)
    rng.shuffle(rest)
    order = first + rest
    return config_of(order[0], dict(zip(BOTTOM_UP, order[1 : POSITIONS + 1], strict=True)))


def banded(rng: random.Random) -> str:
    """Bands of neighbouring ranks from the bottom up: rows 8, 7 and 6 hold the four cards of
    ranks r and r+1, r-1 and r+2, r-2 and r+3 (shuffled within the band), so that every card
    freed can follow the ones freed before; the play card is from the second band."""
    r = rng.randrange(len(RANKS))
    bands = []
    for step in range(3):
        band = [RANKS[(r - step) % 13], RANKS[(r + 1 + step) % 13]] * 4
        rng.shuffle(band)
        bands.append(band)
    play = bands[1].pop()
    low = [play, *bands[0], *bands[1][:7], *bands[2][:6]]
    rest = DECK[:]
    for rank in low:
        rest.remove(rank)
    rng.shuffle(rest)
    return config_of(play, dict(zip(BOTTOM_UP, low[1:] + rest, strict=False)))


def memo_size(config: str) -> int:
    search = RunSearch(parse_config(config))
    search.best_run()
    return len(search.memo)


def hill_climbed(rng: random.Random, start: str, count: int, steps: int) -> list[str]:
    """``count`` configs from one climb towards the largest memo (the most work for our
    search): swap two cards of the deck (37 dealt, 15 aside), keep the swap unless the memo
    shrinks; a snapshot every ``steps`` swaps."""
    aside = DECK[:]
    for rank in start:  # a full config: 37 cards, no dots
        aside.remove(rank)
    deck = list(start) + aside
    size = memo_size("".join(deck[: POSITIONS + 1]))
    found = []
    for _ in range(count):
        for _ in range(steps):
            i, j = rng.randrange(len(deck)), rng.randrange(len(deck))
            deck[i], deck[j] = deck[j], deck[i]
            trial = memo_size("".join(deck[: POSITIONS + 1]))
            if trial >= size:
                size = trial
            else:
                deck[i], deck[j] = deck[j], deck[i]
        found.append("".join(deck[: POSITIONS + 1]))
    return found


def adversarial(count: int, seed: int = 9) -> list[str]:
    """Configs where many free cards follow one another: a fifth banded, a fifth with the
    cards of 2, 3, A, K, 4 and Q at the bottom, two fifths hill-climbed for the largest memo,
    and the rest partly played from those."""
    rng = random.Random(seed)
    fifth = max(1, count // 5)
    near = [rank for rank in "2A3K4Q" for _ in range(4)]
    configs = [banded(rng) for _ in range(fifth)]
    configs += [placed(rng, near) for _ in range(fifth)]
    configs += hill_climbed(rng, configs[0], 2 * fifth, 40)
    configs += [played(rng.choice(configs), rng, rng.randint(2, 12)) for _ in range(count - len(configs))]
    return configs


# ---------------------------------------------------------------- measuring


@dataclass
class Tally:
    ours_ms: list[float] = field(default_factory=list)
    naive_ms: list[float] = field(default_factory=list)
    finished: int = 0
    agreed: int = 0
    most_states: int = 0


def timed(call: Callable[[], list[int]]) -> tuple[list[int], float]:
    start = clock()
    result = call()
    return result, (clock() - start) * 1000


def measure(configs: Sequence[str], limit_s: float) -> Tally:
    tally = Tally()
    for config in configs:
        ours, ms = timed(partial(best_run, config))
        tally.ours_ms.append(ms)
        tally.most_states = max(tally.most_states, memo_size(config))
        start = clock()
        try:
            naive = naive_best_run(config, limit_s)
        except OutOfTime:
            tally.naive_ms.append((clock() - start) * 1000)
            continue
        tally.naive_ms.append((clock() - start) * 1000)
        tally.finished += 1
        tally.agreed += naive == ours
    return tally


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile: the smallest value with ``fraction`` of them at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} / {percentile(values, 0.99):.2f} / {max(values):.2f}"


def ratio(tally: Tally) -> float:
    return sum(tally.naive_ms) / sum(tally.ours_ms)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1000, help="random full deals (default 1000)")
    parser.add_argument("--played", type=int, default=1000, help="partly played positions (default 1000)")
    parser.add_argument("--adversarial", type=int, default=100, help="adversarial configs (default 100)")
    parser.add_argument("--naive-limit", type=float, default=2.0, help="seconds before the naive search gives up")
    args = parser.parse_args(argv)

    deals = [full_deal(random.Random(seed)) for seed in range(args.deals)]
    rng = random.Random(1)
    partly = [played(full_deal(rng), rng, rng.randint(1, 30)) for _ in range(args.played)]
    sets = {
        "the rules' examples": RULES_EXAMPLES,
        "random full deals": deals,
        "partly played": partly,
        "adversarial": adversarial(args.adversarial),
    }
    for configs in sets.values():
        for config in configs:
            try:
                parse_config(config)
            except ConfigError as exc:  # a defect of this benchmark's generators
                raise SystemExit(f"invalid benchmark config {config!r}: {exc}") from None

    print(f"naive: every run enumerated, no memo, gives up after {args.naive_limit:g} s per config")
    header = "| set | configs | ours total s | ours p50 / p99 / max ms | most states | naive total s "
    print(header + "| naive p50 / p99 / max ms | naive finished | agreement | naive / ours |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    tallies = {}
    for name, configs in sets.items():
        tally = measure(configs, args.naive_limit)
        tallies[name] = tally
        bound = ">= " if tally.finished < len(configs) else ""
        print(
            f"| {name} | {len(configs)} | {sum(tally.ours_ms) / 1000:.3f} | {spread(tally.ours_ms)} "
            f"| {tally.most_states} | {bound}{sum(tally.naive_ms) / 1000:.2f} | {spread(tally.naive_ms)} "
            f"| {tally.finished}/{len(configs)} | {tally.agreed}/{tally.finished} | {bound}{ratio(tally):.1f}x |"
        )
        sys.stdout.flush()

    worst = max(max(t.ours_ms) for t in tallies.values())
    failures = []
    if any(t.agreed != t.finished for t in tallies.values()):
        failures.append("the searches disagree where the naive one finished")
    if ratio(tallies["adversarial"]) < SPEEDUP_REQUIRED:
        failures.append(f"adversarial speed-up {ratio(tallies['adversarial']):.1f}x < {SPEEDUP_REQUIRED:g}x")
    if worst > MAX_MS_ALLOWED:
        failures.append(f"slowest config {worst:.1f} ms > {MAX_MS_ALLOWED:g} ms")
    print(f"slowest config, ours: {worst:.2f} ms")
    for failure in failures:
        print(f"FAIL: {failure}")
    if not failures:
        print("all requirements met")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
