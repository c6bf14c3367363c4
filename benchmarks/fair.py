"""The fair player beside ``high``, ``lookahead`` and best play, on the same seeds.

    python benchmarks/fair.py                  # seeds 1..500 per variant (grid100: 1..20)
    python benchmarks/fair.py --seeds 100 --variant sum15

Per variant: mean cards cleared and deals won (every card cleared) by ``fair``, ``high``,
``lookahead`` and ``best`` (the exact search, which sees the stock); the fair player's cost
in ms per move and per game, split into its exact part (expectimax, or the deterministic
search once nothing is hidden) and its sampling part; then the sampling's effect: the same
seeds played with N = 10, 30 and 100 sampled orders. The fair player keeps its choices and
exact memo between games, as any long-lived caller (``triples rate``) does; each variant and
each N starts cold (``triples.support.caches.clear``).

Requirements checked at the end (exit status 1 if one fails): on sum15, ``fair`` wins more
deals than ``high`` and closes most (over half) of the gap between ``high`` and ``best``, and
a game at the default N averages under a second.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from common import verdict

from triples.engines import fair, search, strategies
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variants import parse_variant
from triples.support import caches

VARIANTS = ("classic", "pairs", "quads", "sum15", "grid", "grid100")
SEEDS = 500
GRID100_SEEDS = 20
SAMPLE_SIZES = (10, 30, 100)
GAME_SECONDS_REQUIRED = 1.0


@dataclass
class Timing:
    """The fair player's decisions, timed and split by the part that made them."""

    exact_ms: list[float] = field(default_factory=list)
    sampled_ms: list[float] = field(default_factory=list)
    games: int = 0

    def per_move(self, ms: list[float]) -> str:
        return f"{sum(ms) / len(ms):8.3f}" if ms else "       -"

    def per_game(self, ms: list[float]) -> float:
        return sum(ms) / self.games if self.games else 0.0


def deal(name: str, seed: int) -> Table:
    variant = parse_variant(name)
    return seeded(variant, seed)


def play_fair_timed(table: Table, samples: int, timing: Timing) -> int:
    while True:
        start = time.perf_counter()
        choice = fair.choose(table, samples=samples)
        ms = (time.perf_counter() - start) * 1000
        if choice.combo is None:
            break
        (timing.exact_ms if choice.exact else timing.sampled_ms).append(ms)
        table.push(fair.rules.first_slots(choice.combo, fair.rules.slots_by_value(table.values)))
    timing.games += 1
    return table.cleared


def summary(label: str, cleared: list[int], deck: int) -> str:
    wins, games = sum(c == deck for c in cleared), len(cleared)
    mean = sum(cleared) / games
    return f"  {label:<16} mean cleared {mean:6.2f}   won {wins:4d}/{games} ({100 * wins / games:5.1f}%)"


def measure(name: str, seeds: int) -> list[str]:
    failures: list[str] = []
    deck = parse_variant(name).deck_size
    seed_range = range(1, seeds + 1)
    print(f"{name}: seeds 1..{seeds}", flush=True)
    results: dict[str, list[int]] = {}
    for label in ("high", "lookahead"):
        choose = strategies.strategy_named(label)
        results[label] = []
        for seed in seed_range:
            table = deal(name, seed)
            strategies.play_out(table, choose)
            results[label].append(table.cleared)
    results["best"] = [search.best_cleared(deal(name, seed)) for seed in seed_range]
    by_samples: dict[int, tuple[list[int], Timing, float]] = {}
    sizes = SAMPLE_SIZES if name != "grid100" else (fair.DEFAULT_SAMPLES,)  # grid100 hides nothing
    for samples in sizes:
        caches.clear()
        timing = Timing()
        start = time.perf_counter()
        cleared = [play_fair_timed(deal(name, seed), samples, timing) for seed in seed_range]
        by_samples[samples] = (cleared, timing, time.perf_counter() - start)
    cleared, timing, seconds = by_samples[fair.DEFAULT_SAMPLES]
    print(summary(f"fair (N={fair.DEFAULT_SAMPLES})", cleared, deck))
    for label in ("high", "lookahead", "best"):
        print(summary(label, results[label], deck))
    game_ms = 1000 * seconds / seeds
    print(
        f"  fair cost: {game_ms:.1f} ms per game;"
        f" exact part {len(timing.exact_ms)} moves, {timing.per_move(timing.exact_ms).strip()} ms per move,"
        f" {timing.per_game(timing.exact_ms):.1f} ms per game;"
        f" sampling part {len(timing.sampled_ms)} moves, {timing.per_move(timing.sampled_ms).strip()} ms per move,"
        f" {timing.per_game(timing.sampled_ms):.1f} ms per game"
    )
    for samples in sizes:
        if samples != fair.DEFAULT_SAMPLES or len(sizes) > 1:
            cleared_n, _, seconds_n = by_samples[samples]
            print(summary(f"fair N={samples}", cleared_n, deck) + f"   {1000 * seconds_n / seeds:7.1f} ms per game")
    if name == "sum15":
        wins = {label: sum(c == deck for c in results[label]) for label in ("high", "best")}
        fair_wins = sum(c == deck for c in cleared)
        if fair_wins <= wins["high"] or fair_wins - wins["high"] <= (wins["best"] - wins["high"]) / 2:
            failures.append(f"sum15: fair wins {fair_wins}, high {wins['high']}, best {wins['best']}")
        if game_ms > 1000 * GAME_SECONDS_REQUIRED:
            failures.append(f"sum15: {game_ms:.0f} ms per game, need under {1000 * GAME_SECONDS_REQUIRED:.0f}")
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=SEEDS, help="seeds per variant (grid100: at most 20)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only this variant (repeatable)")
    args = parser.parse_args(argv)
    failures: list[str] = []
    for name in VARIANTS:
        if args.variant and name not in args.variant:
            continue
        failures += measure(name, min(args.seeds, GRID100_SEEDS) if name == "grid100" else args.seeds)
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
