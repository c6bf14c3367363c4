"""The exact value of optimal fair play over the whole game, averaged over every deal.

    python benchmarks/fair_exact.py --variant sum15   # minutes, gigabytes
    python benchmarks/fair_exact.py --variant grid    # longer, more gigabytes

A root chance node deals the opening one card at a time from the whole deck, so every deal
is weighted by its probability, and one memo serves all openings. Each state holds both
goals at once (``fair.ExpectimaxWin``): the largest expected number of cards cleared, and
the largest probability of clearing the whole deck, each under the policy that maximises it.
States are (table counts, unseen counts) packed into one int; a state and its mirror image
under v -> 10 - v share one entry.

pairs needs no run: a card there pairs with one value only, so two legal moves are either
disjoint or interchangeable, every order of play clears the same cards, and the fair player
clears exactly what the best player does on every deal.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Sequence

from triples.engines import fair
from triples.model.variants import parse_variant

SUPPORTED = ("sum15", "grid")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", choices=SUPPORTED, default="sum15")
    args = parser.parse_args(argv)
    variant = parse_variant(args.variant)
    solver = fair.ExpectimaxWin(variant)
    print(f"{variant.name}: optimal fair play from the deal, every deal weighted by its probability", flush=True)
    start = time.perf_counter()
    value = solver.from_deal()
    seconds = time.perf_counter() - start
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    deck = variant.deck_size
    print(f"  expected cards cleared (policy maximising it): {value.real:.6f} of {deck}")
    print(f"  probability of clearing the deck (policy maximising it): {value.imag:.6f} ({100 * value.imag:.4f}%)")
    print(f"  states (memo entries, mirror images shared): {len(solver.memo):,}")
    print(f"  time {seconds:.1f} s   peak memory {peak_mib:,.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
