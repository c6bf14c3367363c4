"""What a game holds as evidence of sight, on the deals where the fair player falls short of best.

    nice python benchmarks/audit_evidence.py --jobs 2               # 100 such deals per variant
    nice python benchmarks/audit_evidence.py --games 20 --variant quads

On the first --games deals from --first (200001, the audit's held-out seeds) where the fair
player falls short of best: the deals where best lines are played, and where blind players'
false alarms concentrate. Two measures of what any statistic of one game can see there
(``benchmarks/audit.py`` measures the audit's own statistic):

1. **Blind games that are the best line.** The share of those deals where a deterministic blind
   player's game (``high``, ``lookahead``, ``fair``) is ``solve``'s best line itself, value for
   value, and where it reaches best at all. On the first, no statistic of the game can tell the
   blind player from the one who saw the deck.
2. **Keeping the best at every decision.** At each decision of a game that kept the deal's best
   (cards unseen, two value combinations or more), ``q`` is the share of orders of the unseen
   cards on which the move played keeps that order's best: what it clears plus the best after
   it equals the best from the position. The orders are drawn from the position's own
   generator and held to the game's earlier decisions having kept the best on the same stock
   (the cards dealt between the two positions being the ones dealt), so that the product of
   the ``q`` over a game is, for a blind player whose move cannot depend on the order, a valid
   p-value (Ville's inequality). Printed per population: the games that kept the best, the
   product's quartiles over them, and the share of all games whose product falls below 0.05 and
   0.01, beside the share the audit calls suspect. Column "held to best": the same with the
   orders also held to the deal's best from the first decision (the actual stock's), so that
   they are as hard as the actual one.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from audit import played
from common import load

from triples.engines import audit, fair, populations, search
from triples.model import rules
from triples.model.deal import seeded
from triples.model.derived import Combo
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant

VARIANTS = ("classic", "sum15", "quads")
DETERMINISTIC = ("high", "lookahead", "fair")
POPULATIONS = ("solve", "high", "lookahead", "random", "mixed")
ORDERS = 100  # orders kept per decision
MOST_TRIED = 400  # orders drawn per decision at most
SALT = 0x6EE9  # mixed into the position's seed: never the fair player's orders, nor the audit's


@dataclass(frozen=True)
class Position:
    """A decision of a game: the cards on the table, where the stock began, what was seen and played."""

    values: tuple[int, ...]  # on the table, empty slots left out
    cleared: int
    next_card: int
    counts: tuple[int, ...]
    unseen: tuple[int, ...]
    played: Combo


def positions(table: Table) -> tuple[list[Position], bool]:
    """The decisions of the game played on ``table``, replayed from its deal, and whether it kept the best."""
    variant = table.variant
    replay = Table(variant, table.deck)
    best = search.best_cleared(replay)
    found = []
    for slots in table.history():
        move = rules.check_move(replay, list(slots))
        counts, unseen = fair.seen_counts(replay)
        if variant.per_move != 2 and any(unseen) and len(fair.playable(variant, counts)) >= 2:
            found.append(
                Position(
                    tuple(v for v in replay.values if v),
                    replay.cleared,
                    replay.next_card,
                    tuple(counts),
                    tuple(unseen),
                    tuple(sorted(replay.values[p] for p in move)),
                )
            )
        replay.push(move)
    return found, table.cleared == best


def keep_product(variant: Variant, deck: Sequence[int], found: Sequence[Position], held_to_best: bool) -> float:
    """The product over the decisions of ``q``, each counted with the actual order as one more
    order that kept the best (so never 0)."""
    if not found:
        return 1.0
    k = variant.per_move
    first = found[0]
    goal = search.FixedDeck(variant, list(deck[first.next_card :])).best_gain(list(first.values), 0)
    product = 1.0
    for i, here in enumerate(found):
        between = list(deck[first.next_card : here.next_card])
        rng = random.Random(fair.position_seed(variant, here.counts, here.unseen, here.cleared) ^ SALT)
        pool = [v for v in range(1, len(here.unseen)) for _ in range(here.unseen[v])]
        left = list(here.values)
        for v in here.played:
            left.remove(v)
        kept = hits = tried = 0
        while kept < ORDERS and tried < MOST_TRIED:
            order = list(pool)
            rng.shuffle(order)
            tried += 1
            deck_here = search.FixedDeck(variant, order)
            done = here.cleared - first.cleared
            if held_to_best:
                # The order's best from here must be what the actual stock left: the deal's best.
                reach = goal - done
                if not deck_here.reaches(list(here.values), 0, reach) or deck_here.reaches(
                    list(here.values), 0, reach + 1
                ):
                    continue
            else:
                reach = deck_here.best_gain(list(here.values), 0)
            # Every earlier decision kept this stock's best: the best from the first decision
            # is no more than what was cleared since plus the best from here.
            if i and search.FixedDeck(variant, [*between, *order]).reaches(list(first.values), 0, done + reach + 1):
                continue
            kept += 1
            after = [*left, *order[:k]]
            if k + deck_here.upper_bound(after, k) >= reach and deck_here.reaches(after, k, reach - k):
                hits += 1
        product *= (hits + 1) / (kept + 1)
    return product


@dataclass(frozen=True)
class Game:
    kept_best: bool
    suspect: bool
    product: float
    held: float
    ms: float  # both products


def games_of(variant: str, population: str, seeds: Sequence[int]) -> list[Game]:
    rules_ = parse_variant(variant)
    out = []
    for _, table in played(variant, population, seeds):
        found, kept_best = positions(table)
        suspect = audit.audit_table(table).verdict == "suspect"
        start = time.perf_counter()
        deck = table.deck_values
        product = keep_product(rules_, deck, found, False) if kept_best else 1.0
        held = keep_product(rules_, deck, found, True) if kept_best else 1.0
        out.append(Game(kept_best, suspect, product, held, 1000 * (time.perf_counter() - start)))
    return out


def combos_of(table: Table, moves: Sequence[Sequence[int]]) -> list[Combo]:
    out = []
    for move in moves:
        out.append(tuple(sorted(table.values[p] for p in move)))
        table.push(rules.check_move(table, list(move)))
    return out


def short_deals(variant: str, first: int, games: int) -> tuple[list[int], dict[str, tuple[int, int]]]:
    """The first ``games`` seeds from ``first`` where the fair player falls short of best, and
    per deterministic blind player: on how many its game is the best line, and reaches best."""
    rules_ = parse_variant(variant)
    seeds: list[int] = []
    same = dict.fromkeys(DETERMINISTIC, 0)
    reach = dict.fromkeys(DETERMINISTIC, 0)
    seed = first
    while len(seeds) < games:
        best = search.best_cleared(seeded(rules_, seed))
        if fair.play_fair(seeded(rules_, seed)) < best:
            seeds.append(seed)
            line = combos_of(seeded(rules_, seed), search.solve(seeded(rules_, seed))[1])
            for name in DETERMINISTIC:
                table = seeded(rules_, seed)
                moves = populations.play(populations.POPULATIONS[name], table, random.Random(0))
                reach[name] += table.cleared == best
                same[name] += combos_of(seeded(rules_, seed), moves) == line
        seed += 1
    return seeds, {name: (same[name], reach[name]) for name in DETERMINISTIC}


def quartiles(values: Sequence[float]) -> str:
    if len(values) < 2:
        return "-"
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return f"{q1:.2f} / {q2:.2f} / {q3:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100, help="deals per variant (default 100)")
    parser.add_argument("--first", type=int, default=200_001, help="first seed (default 200001)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only this variant (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    args = parser.parse_args(argv)
    variants = args.variant or list(VARIANTS)
    print(f"evidence of sight on {args.games} deals per variant where the fair player falls short; {load()}")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        deals = {v: pool.submit(short_deals, v, args.first, args.games) for v in variants}
        jobs = {(v, p): pool.submit(games_of, v, p, deals[v].result()[0]) for v in variants for p in POPULATIONS}
        for variant in variants:
            seeds, blind_lines = deals[variant].result()
            print(f"\n{variant}: {args.games} deals, seeds {seeds[0]}-{seeds[-1]}")
            print(
                "  blind game is the best line (reaches best): "
                + ", ".join(f"{name} {same} ({reach})" for name, (same, reach) in blind_lines.items())
            )
            print(
                "  population    kept best  suspect  product quartiles   < 0.05   < 0.01"
                "   held to best: quartiles   < 0.05   < 0.01   ms per kept game"
            )
            for population in POPULATIONS:
                games = jobs[variant, population].result()
                kept = [g for g in games if g.kept_best]
                n = len(games)
                print(
                    f"  {population:<12} {len(kept):9}  {100 * sum(g.suspect for g in games) / n:6.1f}%"
                    f"  {quartiles([g.product for g in kept]):>18}"
                    f"  {100 * sum(g.product < 0.05 for g in games) / n:6.1f}%"
                    f"  {100 * sum(g.product < 0.01 for g in games) / n:6.1f}%"
                    f"   {quartiles([g.held for g in kept]):>22}"
                    f"  {100 * sum(g.held < 0.05 for g in games) / n:6.1f}%"
                    f"  {100 * sum(g.held < 0.01 for g in games) / n:6.1f}%"
                    f"   {statistics.fmean(g.ms for g in kept) if kept else 0:10.0f}"
                )
    print(f"\n{time.perf_counter() - started:.0f} s; after: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
