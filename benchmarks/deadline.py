"""How promptly each engine stops at a time limit: the time from the deadline to the stop, and
its ratio to the limit.

Each engine is given work that takes seconds without a limit (grid100's packing search on tables
with a hole, the fair player's sampled searches on classic, p_random on a grid100 deal) and a
limit of ``--limit`` seconds; the script prints, per engine, the worst overshoot past the limit
over ``--rounds`` rounds. Requirement: every overshoot under ``--most`` times the limit (the
service answers within its time limit plus half a second).

    python benchmarks/deadline.py [--limit 0.05] [--rounds 5] [--most 10]
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from time import perf_counter

from common import load, verdict

from triples.engines import difficulty, fair, search
from triples.model.deal import seeded
from triples.model.variants import parse_variant
from triples.support import caches, deadline


def grid100_search() -> None:
    grid100 = parse_variant("grid100")
    for seed in range(1, 10_000):
        table = seeded(grid100, seed)
        values = [v if i % 7 else 0 for i, v in enumerate(table.values)]  # a hole: no 99
        search.analyse_values(grid100, values, [], 0)


def classic_fair() -> None:
    table = seeded(parse_variant("classic"), 4)
    for _ in range(50):
        fair.forget()
        fair.choose(table, samples=200)


def grid100_p_random() -> None:
    difficulty.p_random(seeded(parse_variant("grid100"), 1), 99)


ENGINES: dict[str, Callable[[], None]] = {
    "search (grid100 packing)": grid100_search,
    "fair player (classic)": classic_fair,
    "p_random (grid100)": grid100_p_random,
}


def overshoot(work: Callable[[], None], limit: float) -> float:
    """Seconds from the deadline to the engine's stop; inf when it did not stop."""
    start = perf_counter()
    try:
        with deadline.limited(limit):
            work()
    except deadline.TimeLimitExceeded:
        return perf_counter() - start - limit
    return float("inf")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=0.05, help="the time limit in seconds (default 0.05)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per engine, the worst kept (default 5)")
    parser.add_argument("--most", type=float, default=10.0, help="the worst overshoot allowed, in limits (default 10)")
    args = parser.parse_args()
    print(load())
    seeded(parse_variant("grid100"), 0)
    search.best_cleared(seeded(parse_variant("grid100"), 0))  # the variant's tables, outside the limit
    failures = []
    print(f"| engine | worst overshoot past a {args.limit * 1000:g} ms limit | in limits |")
    print("|---|---|---|")
    for name, work in ENGINES.items():
        worst = 0.0
        for _ in range(args.rounds):
            caches.clear()
            search.best_cleared(seeded(parse_variant("grid100"), 0))
            worst = max(worst, overshoot(work, args.limit))
        print(f"| {name} | {worst * 1000:.1f} ms | {worst / args.limit:.2f} |")
        if not worst <= args.most * args.limit:
            failures.append(f"{name}: {worst * 1000:.1f} ms past the limit, more than {args.most:g} limits")
    return verdict(failures)


if __name__ == "__main__":
    raise SystemExit(main())
