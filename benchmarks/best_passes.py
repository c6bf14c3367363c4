"""The exact search alone, timed over many deals: the least of several passes of
``search.analyse`` over seeds 1..N per variant (timings).

    python benchmarks/best_passes.py                          # pairs classic quads sum15
    python benchmarks/best_passes.py --variant grid --passes 3
    PYTHONPATH=/path/to/older/checkout python benchmarks/best_passes.py   # an older package

It imports whichever ``triples`` comes first on the path, so the same script times an older
checkout (one from before ``triples.model.deal`` existed deals the same way through the table) and
this one back to back: the way to compare two versions of the search on the same deals.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from triples.engines import search
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant


def dealer() -> Callable[[Variant, int], Table]:
    try:
        from triples.model.deal import seeded
    except ImportError:  # a package from before dealing had a module of its own
        from triples.model.shuffle import shuffled

        def seeded(variant: Variant, seed: int) -> Table:
            return Table(variant, shuffled(variant.cards, seed))

    return seeded


def least_pass(name: str, seeds: int, passes: int) -> float:
    """Seconds of the fastest pass of ``analyse`` over the deals of seeds 1..seeds."""
    variant = parse_variant(name)
    seeded = dealer()
    tables = [seeded(variant, seed) for seed in range(1, seeds + 1)]
    search.analyse(tables[0])  # the per-variant tables, built once as any long-lived caller would
    least = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        for table in tables:
            search.analyse(table)
        least = min(least, time.perf_counter() - start)
    return least


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", action="append", help="only this variant (repeatable)")
    parser.add_argument("--seeds", type=int, default=1000, help="seeds 1..N (default 1000)")
    parser.add_argument("--passes", type=int, default=5, help="passes per variant; the least is printed (default 5)")
    args = parser.parse_args(argv)
    names = args.variant or ["pairs", "classic", "quads", "sum15"]
    print(f"triples from {search.__file__.rsplit('/triples/', 1)[0]}")
    for name in names:
        ms = 1000 * least_pass(name, args.seeds, args.passes)
        print(f"  {name:8} seeds 1..{args.seeds}: {ms:7.1f} ms (least of {args.passes} passes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
