"""The original problems' interfaces (``triples.compat``) on seeded decks.

- sum-fifteen: over sum15 seeds 1..N (default 10,000), each deck given as plain values, how
  many deals each strategy wins (the measurement behind ``can_win_greedy``'s choice of
  strategy) and how many ``can_win_optimal`` proves winnable; time per call of both methods
  beside the engine called directly on the seed's table (the interface's own cost as a ratio).
- card-game-grid: ``Solver.play_game`` and ``play_game_optimized`` over seeds 1..M (default
  1,000) of the 3x4 and the 10x10 game, in turns, beside the card-game-grid problem's published
  10x10 figures (its own shuffle).

    python benchmarks/compat.py [--seeds N] [--grid-seeds M]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable

from triples.compat import GREEDY_STRATEGY, CardGame, Solver, SumFifteenSolver
from triples.engines import search, strategies
from triples.interpreter.session import deal
from triples.model.variants import parse_variant

STRATEGY_NAMES = ["high", "first", "lookahead"]
REFERENCE_10X10 = {"play_game": "31.27 (28-33), 31x374, 32x429, 30x162", "play_game_optimized": "33.00, 33x1000"}


def timed(calls: Callable[[], object]) -> float:
    start = time.perf_counter()
    calls()
    return time.perf_counter() - start


def sum_fifteen(seeds: range) -> None:
    variant = parse_variant("sum15")
    decks = [list(deal(variant, seed).deck_values) for seed in seeds]
    print(f"sum15, seeds {seeds.start}..{seeds.stop - 1}, decks given as values")
    print("| player | deals won | win rate | mean cleared |")
    print("|---|---:|---:|---:|")
    for name in STRATEGY_NAMES:
        choose = strategies.strategy_named(name)
        cleared = []
        for seed in seeds:
            table = deal(variant, seed)
            strategies.play_out(table, choose)
            cleared.append(table.cleared)
        wins = sum(c == variant.deck_size for c in cleared)
        print(f"| {name} | {wins:,} | {wins / len(seeds):.2%} | {sum(cleared) / len(seeds):.2f} |")
    solver = SumFifteenSolver()
    optimal: list[bool] = []
    greedy: list[bool] = []
    engine: list[int] = []
    optimal_s = timed(lambda: optimal.extend(solver.can_win_optimal(deck) for deck in decks))
    greedy_s = timed(lambda: greedy.extend(solver.can_win_greedy(deck) for deck in decks))
    engine_s = timed(lambda: engine.extend(search.best_cleared(deal(variant, seed)) for seed in seeds))
    assert optimal == [best == variant.deck_size for best in engine]
    assert not any(g and not o for g, o in zip(greedy, optimal, strict=True))
    n = len(seeds)
    print(f"| can_win_optimal (exact) | {sum(optimal):,} | {sum(optimal) / n:.2%} | - |")
    print(f"| can_win_greedy ({GREEDY_STRATEGY}) | {sum(greedy):,} | {sum(greedy) / n:.2%} | - |")
    print(
        f"can_win_optimal {optimal_s / n * 1e3:.3f} ms a deck, the engine on the seed's table"
        f" {engine_s / n * 1e3:.3f} ms ({optimal_s / engine_s:.2f}x); can_win_greedy {greedy_s / n * 1e3:.3f} ms"
    )


def grid(seeds: range) -> None:
    print(f"\ncard-game-grid, seeds {seeds.start}..{seeds.stop - 1}, turns per game")
    print("| grid | method | mean | min | max | distribution | ms per game | reference (10x10) |")
    print("|---|---|---:|---:|---:|---|---:|---|")
    for rows, cols in [(3, 4), (10, 10)]:
        for method in ["play_game", "play_game_optimized"]:
            games = [CardGame(seed, grid_rows=rows, grid_cols=cols) for seed in seeds]
            turns: list[int] = []
            elapsed = timed(lambda: turns.extend(getattr(Solver(g), method)() for g in games))  # noqa: B023
            spread = ", ".join(f"{t}x{c}" for t, c in Counter(turns).most_common(4))
            reference = REFERENCE_10X10[method] if rows == 10 else "-"
            print(
                f"| {rows}x{cols} | {method} | {sum(turns) / len(turns):.2f} | {min(turns)} | {max(turns)} |"
                f" {spread} | {elapsed / len(turns) * 1e3:.2f} | {reference} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=10_000, help="sum15 seeds 1..N")
    parser.add_argument("--grid-seeds", type=int, default=1_000, help="grid seeds 1..M")
    args = parser.parse_args()
    sum_fifteen(range(1, args.seeds + 1))
    grid(range(1, args.grid_seeds + 1))


if __name__ == "__main__":
    main()
