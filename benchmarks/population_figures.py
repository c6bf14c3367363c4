"""The figures of ``benchmarks/players.py --populations`` (``players_populations.py``): the
audit's verdicts tallied per population and variant, the fitted maps checked against a known
truth, and the error of deals' learned shares seeded by the engines' estimate or from a flat
start."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from statistics import NormalDist
from typing import Any

from triples.engines import calibration, populations
from triples.store import open_store

SIGHTED = "sighted"
NAMES = (*populations.BLIND, SIGHTED)
FALSE_POSITIVE_GOAL = 0.01


@dataclass
class Tally:
    games: int = 0
    suspect: int = 0
    short_games: int = 0  # on deals where the fair player falls short of best
    short_suspect: int = 0

    def add(self, suspect: bool, short: bool) -> None:
        self.games += 1
        self.suspect += suspect
        self.short_games += short
        self.short_suspect += suspect and short


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def audit_report(tallies: dict[tuple[str, str], Tally], variants: list[str]) -> tuple[list[str], list[str]]:
    lines = [
        "audit of the games played (suspect: the share of games called suspect; fair short: the deals where the fair"
        " player falls short of best)",
        f"{'population':<11} {'variant':<8} {'games':>6} {'suspect':>8} {'fair short':>10} {'suspect':>8}",
    ]
    failed = []
    for name in NAMES:
        for variant in variants:
            t = tallies.get((name, variant), Tally())
            lines.append(
                f"{name:<11} {variant:<8} {t.games:>6} {share(t.suspect, t.games):>8} {t.short_games:>10} "
                f"{share(t.short_suspect, t.short_games):>8}"
            )
    blind = [t for (name, _), t in tallies.items() if name != SIGHTED]
    games, suspect = sum(t.games for t in blind), sum(t.suspect for t in blind)
    worst = max((t.suspect / t.games for t in blind if t.games), default=0.0)
    lines.append(
        f"blind populations: {games} games, {suspect} suspect ({share(suspect, games)}); worst population and "
        f"variant {100 * worst:.1f}%, goal <= {100 * FALSE_POSITIVE_GOAL:.0f}%"
    )
    if worst > FALSE_POSITIVE_GOAL:
        failed.append(f"a blind population called suspect in {100 * worst:.1f}% of its games")
    sighted = Tally()
    for (name, _), t in tallies.items():
        if name == SIGHTED:
            sighted.games, sighted.suspect = sighted.games + t.games, sighted.suspect + t.suspect
            sighted.short_games, sighted.short_suspect = (
                sighted.short_games + t.short_games,
                sighted.short_suspect + t.short_suspect,
            )
    lines.append(
        f"sighted: detection {share(sighted.suspect, sighted.games)} of {sighted.games} games, "
        f"{share(sighted.short_suspect, sighted.short_games)} of the {sighted.short_games} on deals where the fair "
        "player falls short of best"
        " (printed, not required at this size)"
    )
    return lines, failed


def within(value: float, centre: float, error: float, z: float = calibration.Z95) -> bool:
    return centre - z * error <= value <= centre + z * error


def fit_lines(fits: list[dict[str, Any]], who: str, check: bool) -> tuple[list[str], list[str]]:
    """A line per fitted map, with its 95% intervals; with ``check`` (a population whose true map
    is intercept 0, slope 1), whether they hold 0 and 1, and a last line that checks every
    coefficient at once: 2 a variant at 95% each would miss by chance one run in four or so, so
    the requirement takes intervals wide enough for all of them together (Bonferroni)."""
    lines, failed = [], []
    fitted = [fit for fit in fits if fit["intercept"] is not None]
    family_z = NormalDist().inv_cdf(1 - 0.05 / (2 * 2 * max(1, len(fitted))))
    for fit in fits:
        if fit["intercept"] is None:
            lines.append(f"{who}, {fit['variant']}: no fit (too few attempts, or too alike)")
            failed += [f"the random players' map, {fit['variant']}: no fit"] if check else []
            continue
        a, b, ea, eb = fit["intercept"], fit["slope"], fit["intercept_error"], fit["slope_error"]
        text = (
            f"{who}, {fit['variant']}: {fit['deals']} deals, {fit['attempts']} attempts: intercept {a:.3f} +- {ea:.3f} "
            f"(95% {a - calibration.Z95 * ea:.3f} to {a + calibration.Z95 * ea:.3f}), slope {b:.3f} +- {eb:.3f} "
            f"(95% {b - calibration.Z95 * eb:.3f} to {b + calibration.Z95 * eb:.3f})"
        )
        if check:
            text += f": 0 and 1 within: {'yes' if within(0.0, a, ea) and within(1.0, b, eb) else 'no'}"
            if not (within(0.0, a, ea, family_z) and within(1.0, b, eb, family_z)):
                failed.append(f"the random players' map, {fit['variant']}: misses 0 or 1")
        lines.append(text)
    if check and fitted:
        lines.append(
            f"{who}, its {2 * len(fitted)} coefficients at once (intervals of +- {family_z:.2f} errors, 95% for all "
            f"together): 0 and 1 within: {'no' if any('misses' in fail for fail in failed) else 'yes'}"
        )
    return lines, failed


def rating_errors(store: Path, variant: str) -> tuple[int, float, float, float, float] | None:
    """Each deal's share learned from the first half of its attempts (at least one), seeded by
    the map fitted on the first halves and from a flat start: the number of deals, and the mean
    absolute error of both against the share of the other half, then against the true chance
    (``p_random``: these are random players); None without a fit."""
    with open_store(str(store)) as opened:
        deals: list[calibration.DealAttempts] = []
        for secret in opened.secret_calendar(variant).values():
            finished = sorted(opened.finished_attempts(secret.deal), key=lambda f: f.attempt.finished or 0)
            cleared = tuple(f.attempt.cleared for f in finished)
            deals.append(
                calibration.DealAttempts(
                    secret.date, variant, secret.band, secret.best, secret.fair, secret.p_random, cleared
                )
            )
    deals = [d for d in deals if d.attempts >= 2 and d.p_random is not None]
    halves = [replace(d, cleared=d.cleared[: d.attempts // 2]) for d in deals]
    fit = calibration.fit_map(halves)
    if fit is None:
        return None
    flat = calibration.flat_start(halves)
    errors = [0.0, 0.0, 0.0, 0.0]
    for deal, half in zip(deals, halves, strict=True):
        rest = deal.cleared[half.attempts :]
        held_out = sum(c >= deal.best for c in rest) / len(rest)
        outcomes = [c >= deal.best for c in half.cleared]
        seeded = calibration.sigmoid(calibration.learned(*(calibration.seeded_start(half, fit) or flat), outcomes))
        unseeded = calibration.sigmoid(calibration.learned(*flat, outcomes))
        true = deal.p_random or 0.0
        for i, error in enumerate((seeded - held_out, unseeded - held_out, seeded - true, unseeded - true)):
            errors[i] += abs(error) / len(deals)
    return len(deals), errors[0], errors[1], errors[2], errors[3]
