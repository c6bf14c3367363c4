"""Autoplay strategies on every variant: how much each clears and how long a game takes.

For every variant and strategy over seeds 1..N (default 1,000): mean, min, max and the
distribution of ``cleared``, and the mean time of one ``play_out`` (the deal is not timed),
as wall-clock and CPU milliseconds (the CPU figure is less disturbed by a busy machine). On
grid100 the games are also shown in turns (cleared / 3) beside the figures of
the card-game-grid problem's own published figures. Baselines measured in the same run give ratios:

- lookahead's general counting (per candidate, every value combination's binomial product:
  the reference's own histogram re-count) against the k = 3 inclusion-exclusion it uses;
- high and first against a slot-space scan (every slot combination, sorted by the rule).

    python benchmarks/strategies.py [--seeds N] [--baseline-seeds M] [--variants a,b]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from triples.engines import strategies
from triples.model.shuffle import shuffled
from triples.model.table import Move, Table
from triples.model.variants import VARIANTS, parse_variant

STRATEGY_NAMES = ["high", "first", "lookahead"]
# the card-game-grid problem's published figures, 1,000 seeded 10x10 games (its own shuffle, not ours)
REFERENCE_GRID100 = {
    "first": ("31.27", "28", "33", "31x374, 32x429, 30x162", "<1"),
    "lookahead": ("33.00", "33", "33", "33x1000", "~26"),
}
BUDGET_MS = {("grid100", "lookahead"): 26.0, ("classic", "high"): 2.0, ("classic", "first"): 2.0}


@dataclass
class Run:
    cleared: list[int]
    wall_ms: float  # mean per game
    cpu_ms: float
    games: list[list[Move]]


def play(variant: str, seeds: range, choose: strategies.Strategy, keep_games: bool = False) -> Run:
    v = parse_variant(variant)
    decks = [shuffled(v.cards, seed) for seed in seeds]
    cleared: list[int] = []
    games: list[list[Move]] = []
    wall = cpu = 0.0
    for deck in decks:
        table = Table(v, deck)
        w0, c0 = time.perf_counter(), time.process_time()
        moves = strategies.play_out(table, choose)
        wall += time.perf_counter() - w0
        cpu += time.process_time() - c0
        cleared.append(table.cleared)
        if keep_games:
            games.append(moves)
    n = len(decks)
    return Run(cleared, wall / n * 1e3, cpu / n * 1e3, games)


def distribution(values: list[int], scale: int = 1, most: int | None = None) -> str:
    """``value x games``, most frequent first (the reference's style)."""
    ranked = Counter(values).most_common()
    shown = ranked if most is None else ranked[:most]
    text = ", ".join(f"{format_scaled(v, scale)}x{n}" for v, n in shown)
    if len(ranked) > len(shown):
        text += f", ... ({len(ranked) - len(shown)} more)"
    return text


def format_scaled(value: int, scale: int) -> str:
    return str(value // scale) if value % scale == 0 else f"{value / scale:.2f}"


def mean(values: list[int], scale: int = 1) -> float:
    return sum(values) / len(values) / scale


def scan_choice(rule: str) -> strategies.Strategy:
    """The slot-space baseline for high and first: every slot combination, sorted by the rule."""

    def choose(table: Table) -> Move | None:
        values, k, target = table.values, table.variant.per_move, table.variant.target
        occupied = [s for s, v in enumerate(values) if v]
        moves = [c for c in combinations(occupied, k) if sum(values[s] for s in c) == target]
        if not moves:
            return None
        if rule == "first":
            return Move(min(moves))
        return Move(min(moves, key=lambda m: (sorted([-values[s] for s in m]), m)))

    return choose


def general_lookahead(table: Table) -> Move | None:
    return strategies.lookahead_move(table, fast=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=1000, help="games per variant and strategy (seeds 1..N)")
    parser.add_argument(
        "--baseline-seeds", type=int, default=100, help="games for each baseline (seeds 1..M, default 100)"
    )
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated variant names")
    args = parser.parse_args()
    variants = [name.strip() for name in args.variants.split(",") if name.strip()]
    seeds = range(1, args.seeds + 1)
    baseline_seeds = range(1, min(args.baseline_seeds, args.seeds) + 1)

    runs: dict[tuple[str, str], Run] = {}
    for variant in variants:
        for name in STRATEGY_NAMES:
            runs[variant, name] = play(variant, seeds, strategies.strategy_named(name))

    print(f"Autoplay over seeds 1..{args.seeds}: cards cleared per game; ms = mean play_out time per game\n")
    print("| variant | strategy | mean | min | max | most frequent (cleared x games) | ms wall | ms cpu |")
    print("|---|---|---|---|---|---|---|---|")
    for (variant, name), run in runs.items():
        c = run.cleared
        print(
            f"| {variant} | {name} | {mean(c):.2f} | {min(c)} | {max(c)} | {distribution(c, most=4)} "
            f"| {run.wall_ms:.2f} | {run.cpu_ms:.2f} |"
        )

    print("\nFull distributions (cleared x games):")
    for (variant, name), run in runs.items():
        print(f"  {variant:8} {name:9} {distribution(run.cleared)}")

    if "grid100" in variants:
        print(f"\ngrid100 in turns (cleared / 3; at most 33), ours over seeds 1..{args.seeds} beside the reference's")
        print(
            "| strategy | turns | min | max | distribution | ms wall | ref turns | ref min | ref max "
            "| ref distribution | ref ms |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for name in STRATEGY_NAMES:
            run = runs["grid100", name]
            ref = REFERENCE_GRID100.get(name, ("-", "-", "-", "-", "-"))
            c = run.cleared
            print(
                f"| {name} | {mean(c, 3):.2f} | {min(c) // 3} | {max(c) // 3} | {distribution(c, 3, most=4)} "
                f"| {run.wall_ms:.2f} | {' | '.join(ref)} |"
            )

    print(f"\nBaselines, same run, seeds 1..{len(baseline_seeds)} (same moves checked):")
    baselines: list[tuple[str, str, str, strategies.Strategy]] = [
        (v, "lookahead", "general count", general_lookahead) for v in variants if parse_variant(v).per_move == 3
    ]
    if "classic" in variants:
        baselines += [("classic", name, "slot scan", scan_choice(name)) for name in ("high", "first")]
    for variant, name, label, choose in baselines:
        slow = play(variant, baseline_seeds, choose, keep_games=True)
        fast = play(variant, baseline_seeds, strategies.strategy_named(name), keep_games=True)
        assert slow.games == fast.games, f"{variant} {name}: baseline plays different moves"
        print(
            f"  {variant:8} {name:9} {fast.wall_ms:8.3f} ms/game; {label:13} {slow.wall_ms:8.3f} ms/game; "
            f"baseline / ours = {slow.wall_ms / fast.wall_ms:.1f}"
        )

    print("\nBudgets (issue 3), mean wall ms per game over the main run:")
    for (variant, name), budget in BUDGET_MS.items():
        if (variant, name) in runs:
            run = runs[variant, name]
            verdict = "within" if run.wall_ms <= budget else "OVER"
            print(f"  {variant} {name}: {run.wall_ms:.2f} ms (cpu {run.cpu_ms:.2f}) vs {budget:g} ms: {verdict}")


if __name__ == "__main__":
    main()
