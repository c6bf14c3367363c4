"""Per-operation cost of `new`, `moves` and `play` on classic and on a full grid100 table.

`new` with a seed is timed with the original deal's LCG shuffle (docs/game.md) beside the
project's earlier SplitMix64 shuffle (kept here only as the baseline), in the same run.

Prints microseconds per operation through the interpreter (Session.apply) and through the
engine directly, beside a baseline measured in the same run: the full slot-combination scan
that value-space enumeration replaces (C(100, 3) = 161,700 triples on grid100).

    python benchmarks/ops.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from itertools import combinations

from triples.interpreter.session import Session
from triples.model import deal as deal_module
from triples.model import rules
from triples.model.table import Move, Table


def per_call_us(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(3):  # best of three rounds: the machine is shared and noisy
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def scan_moves(table: Table) -> list[Move]:
    """The baseline: every slot combination, summed one by one."""
    values, k, target = table.values, table.variant.per_move, table.variant.target
    occupied = [s for s, v in enumerate(values) if v]
    return [Move(c) for c in combinations(occupied, k) if sum(values[s] for s in c) == target]


def bench(variant: str, seed: int, repeat: int) -> None:
    session = Session()
    session.apply(["new", "g", seed, variant])
    table = session.table("g")
    move = rules.legal_moves(table)[0]
    assert scan_moves(table) == rules.legal_moves(table)
    scan_repeat = max(1, repeat // 200) if variant == "grid100" else repeat

    def play_undo() -> None:
        session.apply(["play", "g", list(move)])
        session.apply(["undo", "g"])

    def push_pop() -> None:
        table.push(move)
        table.pop()

    rows = [
        ("moves via run", per_call_us(lambda: session.apply(["moves", "g"]), repeat)),
        ("legal_moves direct", per_call_us(lambda: rules.legal_moves(table), repeat)),
        ("baseline full scan", per_call_us(lambda: scan_moves(table), scan_repeat)),
        ("status via run", per_call_us(lambda: session.apply(["status", "g"]), repeat)),
        ("play+undo via run", per_call_us(play_undo, repeat)),
        ("check+push+pop direct", per_call_us(lambda: (rules.check_move(table, list(move)), push_pop()), repeat)),
    ]
    n_moves = len(rules.legal_moves(table))
    print(f"\n{variant} seed {seed}: {sum(1 for v in table.values if v)} cards on the table, {n_moves} legal moves")
    print(f"  {'operation':24} {'us/op':>10}")
    for name, us in rows:
        print(f"  {name:24} {us:10.1f}")
    print(f"  value-space moves vs full scan: {rows[2][1] / rows[1][1]:.1f}x faster")


_MASK64 = (1 << 64) - 1


def splitmix64_shuffled(items: list[object], seed: int) -> list[object]:
    """The shuffle `new` used before the original deal was known: SplitMix64 with a rejection bound."""
    deck = list(items)
    state = seed & _MASK64

    def draw() -> int:
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = ((state ^ (state >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = (1 << 64) - ((1 << 64) % n)
        while (x := draw()) >= limit:
            pass
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def new_deals(variant: str) -> Callable[[], object]:
    """A call that deals the next seed of ``variant`` through the interpreter."""
    session, seeds = Session(), iter(range(10**9))
    return lambda: session.apply(["new", "g", next(seeds), variant])


def bench_new(repeat: int) -> None:
    print("\nnew with a seed, via run (us/op)")
    print(f"  {'variant':10} {'LCG original':>13} {'SplitMix64 before':>18} {'ratio':>7}")
    for variant in ("classic", "grid100"):
        new = new_deals(variant)
        ours = per_call_us(new, repeat)
        original = deal_module.shuffled
        deal_module.shuffled = splitmix64_shuffled  # type: ignore[assignment]
        try:
            before = per_call_us(new, repeat)
        finally:
            deal_module.shuffled = original
        print(f"  {variant:10} {ours:13.1f} {before:18.1f} {ours / before:6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=2000, help="calls per timing round (default 2000)")
    args = parser.parse_args()
    bench_new(args.repeat)
    bench("classic", 1, args.repeat)
    bench("grid100", 7, max(1, args.repeat // 10))


if __name__ == "__main__":
    main()
