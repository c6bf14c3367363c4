"""The audit and calibration on synthetic players, played in process (no HTTP).

    nice python benchmarks/audit.py                        # 1000 games per population and variant
    nice python benchmarks/audit.py --games 100 --variant sum15 --jobs 2
    nice python benchmarks/audit.py --plots                # also draws docs/audit-*.png
    nice python benchmarks/audit.py --deals 0 --random-reaches 1   # every hard deal judged

Part 1, the audit. Per variant, on seeds from --first (400001: the thresholds were chosen on
other seeds, ``triples.engines.audit`` says which): each blind population of
``triples.engines.populations`` plays --games games, each audited. Printed: the share called
suspect (the false-positive rate), and the share had each other threshold been the one (with
the variant's cap on a random player's chance, or --random-reaches for every variant); the
same on the deals where the fair player falls short of best; the engine_match distribution;
the audit's cost per game in ms, and in fair-player games (the fair player's own games on the
same seeds, timed in a process of their own); the share of games with no sighted move (no move
that beat the fair player's on the actual stock: for the best lines, games the audit has no
evidence in). Then the player who knows the deck plays solve's line on --games deals where the
fair player falls short of best (the next such seeds): the share called suspect (the detection
rate).

Part 2, calibration. Per variant, --deals deals (seeds from --first) rated as the calendar
rates them; each stochastic population makes --attempts attempts at each. Printed per
population: the fitted map (random players' own is intercept 0, slope 1: p_random is their
chance), the band rows beside the engines' predictions, and how far a deal's rating after k
attempts lies from the share of its held-out attempts, started from the fitted map (the fit of
the other half of the deals) and from one value for every deal.

Requirements checked at the end (exit status 1 if one fails): no blind population suspect in
over 1% of its games on any variant; the best lines suspect in at least half their games on
every variant; an audit costs at most 5 fair-player games on average for every population.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from common import ROOT, load, verdict

from triples.engines import audit, calibration, difficulty, fair, populations, search
from triples.engines.calibration import DealAttempts
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variants import parse_variant

VARIANTS = ("classic", "sum15", "quads")
CANDIDATES = (0.005, 0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3)  # thresholds the rates are also shown at
FALSE_POSITIVES_ALLOWED = 0.01
DETECTION_REQUIRED = 0.5
FAIR_GAMES_ALLOWED = 5.0
STOCHASTIC = ("random", "high-slips", "fair-slips", "mixed")
HELD = (1, 3, 10)  # attempts a rating has learned from, against the held-out share


@dataclass(frozen=True)
class Game:
    seed: int
    p: float  # precise enough for every candidate threshold
    suspect: bool
    engine_match: float | None
    ms: float  # the audit as the interpreter runs it
    sighted: int


def deal_facts(variant: str, first: int, games: int) -> tuple[list[int], float, dict[int, bool]]:
    """Seeds from ``first`` until ``games`` of them have the fair player fall short of best
    (and at least ``games`` seeds): those seeds, the fair player's ms per game over the first
    ``games`` seeds, and per seed whether fair falls short."""
    rules = parse_variant(variant)
    short: list[int] = []
    hard: dict[int, bool] = {}
    spent = 0.0
    seed = first
    while len(short) < games or seed < first + games:
        table = seeded(rules, seed)
        start = time.perf_counter()
        cleared = fair.play_fair(table)
        if seed < first + games:
            spent += time.perf_counter() - start
        hard[seed] = cleared < search.best_cleared(seeded(rules, seed))
        if hard[seed] and len(short) < games:
            short.append(seed)
        seed += 1
    return short, 1000 * spent / games, hard


def played(variant: str, population: str, seeds: Sequence[int]) -> Iterator[tuple[int, Table]]:
    """The population's game on each of ``seeds``, played to its end (one generator per
    population and variant, so that a run is the same whatever else runs)."""
    rules = parse_variant(variant)
    player = populations.POPULATIONS[population]
    rng = random.Random(f"{variant} {population}")
    for seed in seeds:
        table = seeded(rules, seed)
        populations.play(player, table, rng)
        yield seed, table


def audited(variant: str, population: str, seeds: Sequence[int], precise: tuple[float, float]) -> list[Game]:
    """The population's games on ``seeds``, each audited (its p precise between the bounds)."""
    out = []
    for seed, table in played(variant, population, seeds):
        start = time.perf_counter()
        found = audit.audit_table(table)
        ms = 1000 * (time.perf_counter() - start)
        # Drawn again, untimed, precisely enough for the other thresholds (p = 1: nothing to draw).
        p = found.p if found.p == 1.0 else audit.audit_table(table, precise).p
        out.append(Game(seed, p, found.verdict == "suspect", found.engine_match, ms, found.sighted))
    return out


def set_random_reaches(cap: float | None) -> None:
    """Every variant's cap on a random player's chance (``audit.RANDOM_REACHES``) set to ``cap``;
    nothing changed for None. Run in each worker process as it starts."""
    if cap is not None:
        audit.RANDOM_REACHES.update(dict.fromkeys(VARIANTS, cap))


def share(games: Sequence[Game], below: float | None = None) -> float:
    if not games:
        return 0.0
    return sum((g.p < below) if below is not None else g.suspect for g in games) / len(games)


def quartiles(values: Sequence[float]) -> str:
    if len(values) < 2:
        return "-"
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return f"mean {statistics.fmean(values):.2f}, quartiles {q1:.2f} / {q2:.2f} / {q3:.2f}"


def part_audit(args: argparse.Namespace, pool: ProcessPoolExecutor) -> tuple[list[str], dict[str, dict[str, float]]]:
    failures: list[str] = []
    rates: dict[str, dict[str, float]] = {}
    facts = {v: pool.submit(deal_facts, v, args.first, args.games) for v in args.variant}
    precise = (min(CANDIDATES), max(CANDIDATES))
    blind = [p for p in populations.BLIND if p in args.population]
    jobs = {
        (v, p): pool.submit(audited, v, p, range(args.first, args.first + args.games), precise)
        for v in args.variant
        for p in blind
    }
    for variant in args.variant:
        short, fair_ms, hard = facts[variant].result()
        cheat = pool.submit(audited, variant, "solve", short, precise)
        below = audit.threshold(parse_variant(variant))
        cap = audit.random_reaches(parse_variant(variant))
        print(
            f"\n{variant}: threshold p < {below}, judged where p_random < {cap}; fair player {fair_ms:.1f} ms per "
            f"game (seeds {args.first}-"
            f"{args.first + args.games - 1}, {sum(hard[s] for s in range(args.first, args.first + args.games))} "
            f"where it falls short of best)"
        )
        print(
            "  population     suspect  on short deals   at "
            + " ".join(f"{c:>6}" for c in CANDIDATES)
            + "   audit ms  fair games  unsighted   engine_match"
        )
        rates[variant] = {}
        for population in [*blind, "solve"]:
            games = cheat.result() if population == "solve" else jobs[variant, population].result()
            on_short = [g for g in games if hard.get(g.seed)]
            ms = statistics.fmean(g.ms for g in games)
            matches = [g.engine_match for g in games if g.engine_match is not None]
            rates[variant][population] = share(games)
            print(
                f"  {population:<12} {100 * share(games):7.2f}%  {100 * share(on_short):6.2f}% of {len(on_short):<5}"
                + " ".join(f"{100 * share(games, c):5.1f}%" for c in CANDIDATES)
                + f"  {ms:8.1f}  {ms / fair_ms:9.2f}  {100 * sum(not g.sighted for g in games) / len(games):8.1f}%"
                + f"   {quartiles(matches)}"
            )
            if population != "solve" and share(games) > FALSE_POSITIVES_ALLOWED:
                failures.append(f"{variant} {population}: suspect in {100 * share(games):.2f}% of blind games")
            if population == "solve" and share(games) < DETECTION_REQUIRED:
                failures.append(f"{variant}: best lines suspect in {100 * share(games):.1f}%, need 50%")
            if ms > FAIR_GAMES_ALLOWED * fair_ms:
                failures.append(f"{variant} {population}: an audit costs {ms / fair_ms:.1f} fair-player games")
    return failures, rates


def attempts_at(variant: str, population: str, first: int, deals: int, attempts: int) -> list[DealAttempts]:
    """``attempts`` games of the population at each deal, with the deal rated as a calendar does."""
    rules = parse_variant(variant)
    player = populations.POPULATIONS[population]
    rng = random.Random(f"calibration {variant} {population}")
    out = []
    for seed in range(first, first + deals):
        rated = difficulty.assess(seeded(rules, seed))
        cleared = []
        for _ in range(attempts):
            table = seeded(rules, seed)
            populations.play(player, table, rng)
            cleared.append(table.cleared)
        out.append(
            DealAttempts(f"seed {seed}", variant, rated.band, rated.best, rated.fair, rated.p_random, tuple(cleared))
        )
    return out


def held_out_errors(deals: Sequence[DealAttempts]) -> dict[int, tuple[float, float]]:
    """Per k of ``HELD``: the mean distance between a deal's learned share after its first k
    attempts and the share of its other attempts, started from the fitted map (fitted on the
    other half of the deals) and from a flat start."""
    halves = [list(deals[0::2]), list(deals[1::2])]
    out = {}
    for k in HELD:
        seeded_errors: list[float] = []
        flat_errors: list[float] = []
        for i, half in enumerate(halves):
            fit = calibration.fit_map(halves[1 - i])
            flat = calibration.flat_start(halves[1 - i])
            for d in half:
                if d.attempts <= k or d.p_random is None:
                    continue
                learned_from = DealAttempts(d.date, d.variant, d.band, d.best, d.fair, d.p_random, d.cleared[:k])
                rest = d.cleared[k:]
                truth = sum(c >= d.best for c in rest) / len(rest)
                start = calibration.seeded_start(d, fit) or flat
                for errors, begin in ((seeded_errors, start), (flat_errors, flat)):
                    rating = calibration.rating(learned_from, begin)
                    errors.append(
                        abs(
                            calibration.sigmoid(-(rating - calibration.RATING_CENTRE) / calibration.RATING_SCALE)
                            - truth
                        )
                    )
        if seeded_errors:
            out[k] = (statistics.fmean(seeded_errors), statistics.fmean(flat_errors))
    return out


def part_calibration(args: argparse.Namespace, pool: ProcessPoolExecutor) -> dict[str, list[dict[str, Any]]]:
    print(f"\ncalibration: {args.deals} deals per variant from seed {args.first}, {args.attempts} attempts each")
    stochastic = [p for p in STOCHASTIC if p in args.population]
    jobs = {
        (v, p): pool.submit(attempts_at, v, p, args.first, args.deals, args.attempts)
        for v in args.variant
        for p in stochastic
    }
    diagrams: dict[str, list[dict[str, Any]]] = {}
    for (variant, population), job in jobs.items():
        deals = job.result()
        fit = calibration.fit_map(deals)
        if fit is None:
            print(f"  {variant} {population}: no map can be fitted")
            continue
        (ea, eb) = fit.errors
        print(
            f"  {variant} {population}: intercept {fit.intercept:+.3f} ± {1.96 * ea:.3f}, slope {fit.slope:.3f} ± "
            f"{1.96 * eb:.3f}, spread {fit.spread:.2f}; cut points "
            + ", ".join(f"{band} p_random >= {cut:.3f}" for band, cut in fit.cuts.items())
        )
        for row in calibration.band_rows(deals, fit, difficulty.BANDS):
            print(
                f"      {row['band']:<6} {row['deals']:4} deals  reached best {100 * (row['share'] or 0):5.1f}% "
                f"[{100 * row['low']:5.1f}, {100 * row['high']:5.1f}]  p_random {100 * (row['p_random'] or 0):5.1f}%"
                f"  fair reaches {100 * (row['fair_reaches'] or 0):5.1f}%  map {100 * (row['predicted'] or 0):5.1f}%"
            )
        errors = held_out_errors(deals)
        print(
            "      rating vs held-out share, mean distance (seeded / flat): "
            + (", ".join(f"after {k}: {s:.3f} / {f:.3f}" for k, (s, f) in errors.items()) or "no attempts held out")
        )
        if variant == args.variant[0]:
            diagrams[population] = calibration.reliability(deals, fit)
    return diagrams


def draw_detection(path: Path, rates: dict[str, dict[str, float]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = list(rates)
    blind = [p for p in populations.BLIND if all(p in rates[v] for v in variants)]
    figure, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2), dpi=110, gridspec_kw={"width_ratios": [3, 1]})
    width = 0.8 / len(variants)
    for i, variant in enumerate(variants):
        xs = [j + i * width for j in range(len(blind))]
        left.bar(xs, [100 * rates[variant][p] for p in blind], width, label=variant, color=f"C{i}")
        right.bar([i], [100 * rates[variant].get("solve", 0.0)], 0.6, color=f"C{i}")
    left.axhline(100 * FALSE_POSITIVES_ALLOWED, color="#c62828", linestyle="--", linewidth=1, label="1% allowed")
    left.set_xticks([j + width * (len(variants) - 1) / 2 for j in range(len(blind))], blind, rotation=20)
    left.set_ylabel("games called suspect (%)")
    left.set_title("blind players (false positives)")
    left.legend(fontsize="small")
    right.axhline(100 * DETECTION_REQUIRED, color="#2e7d32", linestyle="--", linewidth=1)
    right.set_xticks(range(len(variants)), variants)
    right.set_ylim(0, 100)
    right.set_title("best lines where\nfair falls short")
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games per population and variant (default 1000)")
    parser.add_argument("--first", type=int, default=400_001, help="first seed (default 400001)")
    parser.add_argument("--variant", action="append", choices=VARIANTS, help="only this variant (repeatable)")
    parser.add_argument("--population", action="append", choices=list(populations.POPULATIONS), help="only these")
    parser.add_argument("--deals", type=int, default=100, help="calibration deals per variant (default 100)")
    parser.add_argument("--attempts", type=int, default=30, help="attempts per deal and population (default 30)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--random-reaches",
        type=float,
        metavar="CAP",
        help="judge the hard deals where a random player reaches the best less often than CAP, on "
        "every variant, instead of each variant's own cap (to see what another cap would do)",
    )
    parser.add_argument(
        "--plots", action="store_true", help="draw docs/audit-detection.png, docs/audit-reliability.png"
    )
    args = parser.parse_args(argv)
    args.variant = args.variant or list(VARIANTS)
    args.population = args.population or list(populations.POPULATIONS)
    print(f"audit and calibration, {args.games} games per population and variant; before: {load()}", flush=True)
    started = time.perf_counter()
    if args.random_reaches is not None:
        set_random_reaches(args.random_reaches)
    with ProcessPoolExecutor(
        max_workers=args.jobs, initializer=set_random_reaches, initargs=(args.random_reaches,)
    ) as pool:
        failures, rates = part_audit(args, pool)
        diagrams = part_calibration(args, pool) if args.deals and args.attempts else {}
    if args.plots:
        draw_detection(ROOT / "docs" / "audit-detection.png", rates)
        from triples.engines import reliability

        reliability.draw(
            str(ROOT / "docs" / "audit-reliability.png"),
            diagrams,
            f"{args.variant[0]}: {args.deals} deals, {args.attempts} attempts each",
        )
    print(f"\n{time.perf_counter() - started:.0f} s; after: {load()}")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
