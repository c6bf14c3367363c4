"""The summary of a run: running totals, win rates with Wilson intervals, the histogram of best.

With the opt-in columns it also keeps the fair player's totals and, per difficulty band, the
count of deals and the sum and a histogram of ``p_random``: enough for the summary lines and the
plot (triples.doors.rating.plots) without keeping anything per row.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from statistics import NormalDist

from triples.doors.rating.rows import BAND, FAIR, P_RANDOM, Row
from triples.engines.difficulty import BANDS
from triples.model.variant import Variant

Z95 = NormalDist().inv_cdf(0.975)


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a binomial proportion (95% with the default z)."""
    if trials <= 0 or not 0 <= successes <= trials:
        raise ValueError(f"need 0 <= successes <= trials and trials > 0, got {successes}/{trials}")
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials)) / (1 + z2n)
    # At 0 or all successes the bound is exact in theory; keep rounding from moving it.
    low = 0.0 if successes == 0 else centre - half
    high = 1.0 if successes == trials else centre + half
    return low, high


def percent(fraction: float) -> str:
    value = 100.0 * fraction
    if 0 < value < 0.1:  # the upper bound of a rare event over many deals needs its digits
        return f"{value:.2g}%"
    return f"{value:.2f}%"


def rate_with_interval(successes: int, trials: int) -> str:
    low, high = wilson_interval(successes, trials)
    return f"{percent(successes / trials)} ({successes}/{trials}), 95% CI [{percent(low)}, {percent(high)}]"


HISTOGRAM_WIDTH = 40
P_RANDOM_BINS = 20  # of width 0.05 over [0, 1]; 1.0 goes in the last


def p_random_bin(chance: float) -> int:
    return min(P_RANDOM_BINS - 1, max(0, math.floor(chance * P_RANDOM_BINS)))


@dataclass
class Summary:
    """Running totals over rows; nothing per row is kept, so a range of any length fits."""

    variant: Variant
    strategy: str
    deals: int = 0
    autoplay_total: int = 0
    best_total: int = 0
    best_wins: int = 0
    strategy_wins: int = 0
    best_counts: Counter[int] = field(default_factory=Counter)
    versions: Counter[str] = field(default_factory=Counter)  # of triples that rated the rows, where known
    autoplay_counts: Counter[int] = field(default_factory=Counter)
    fair_deals: int = 0  # rows with a fair column
    fair_total: int = 0
    fair_wins: int = 0
    fair_counts: Counter[int] = field(default_factory=Counter)
    band_deals: int = 0  # rows with a band column
    band_counts: Counter[str] = field(default_factory=Counter)  # by band (BANDS)
    p_random_totals: dict[str, float] = field(default_factory=lambda: dict.fromkeys(BANDS, 0.0))
    p_random_counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(BANDS, 0))
    p_random_unknown: int = 0  # deals whose p_random was past the state limit
    p_random_bins: dict[str, list[int]] = field(default_factory=lambda: {b: [0] * P_RANDOM_BINS for b in BANDS})

    def add(self, row: Row) -> None:
        self.deals += 1
        self.autoplay_total += row.autoplay
        self.best_total += row.best
        self.best_wins += row.won
        self.strategy_wins += row.autoplay == self.variant.deck_size
        self.best_counts[row.best] += 1
        self.autoplay_counts[row.autoplay] += 1
        if row.version:
            self.versions[row.version] += 1
        fair = row.extra.get(FAIR)
        if isinstance(fair, int):
            self.fair_deals += 1
            self.fair_total += fair
            self.fair_wins += fair == self.variant.deck_size
            self.fair_counts[fair] += 1
        band, chance = row.extra.get(BAND), row.extra.get(P_RANDOM)
        if isinstance(band, str) and band in BANDS:
            self.band_deals += 1
            self.band_counts[band] += 1
            if isinstance(chance, float):
                self.p_random_counts[band] += 1
                self.p_random_totals[band] += chance
                self.p_random_bins[band][p_random_bin(chance)] += 1
            else:  # past the state limit: the chance is unknown, the band is not
                self.p_random_unknown += 1

    @property
    def mean_autoplay(self) -> float:
        return self.autoplay_total / self.deals

    @property
    def mean_best(self) -> float:
        return self.best_total / self.deals

    @property
    def mean_gap(self) -> float:
        return (self.best_total - self.autoplay_total) / self.deals

    @property
    def mean_fair(self) -> float:
        return self.fair_total / self.fair_deals

    def mean_p_random(self, band: str) -> float | None:
        """The mean p_random of the band's deals; None when it has none with a known chance."""
        count = self.p_random_counts[band]
        return self.p_random_totals[band] / count if count else None

    def band_lines(self) -> list[str]:
        lines = []
        for band in BANDS:
            mean = self.mean_p_random(band)
            chance = "-" if mean is None else f"{mean:.4f}"
            share = rate_with_interval(self.band_counts[band], self.band_deals)
            lines.append(f"band {band}: {share}; mean p_random {chance}")
        if self.p_random_unknown:
            deals = "deal" if self.p_random_unknown == 1 else "deals"
            lines.append(f"p_random unknown (past the state limit) on {self.p_random_unknown} {deals}")
        return lines

    def histogram_lines(self) -> list[str]:
        """One line per possible best from the lowest seen to the highest (cleared counts go in
        steps of a move's size), with a bar scaled to the most common value."""
        if not self.best_counts:
            return []
        low, high = min(self.best_counts), max(self.best_counts)
        values = sorted({*range(low, high + 1, self.variant.per_move), *self.best_counts})
        top = max(self.best_counts.values())
        width = len(str(high))
        lines = []
        for value in values:
            count = self.best_counts[value]
            bar = "#" * (math.ceil(HISTOGRAM_WIDTH * count / top) if count else 0)
            lines.append(f"  {value:>{width}} {bar:<{HISTOGRAM_WIDTH}} {count}")
        return lines

    def lines(self) -> list[str]:
        out = [f"deals: {self.deals}"]
        if not self.deals:
            return out
        out += [
            f"mean autoplay: {self.mean_autoplay:.3f}",
            f"mean best: {self.mean_best:.3f}",
            f"mean gap: {self.mean_gap:.3f}",
        ]
        if self.fair_deals:
            out.append(f"mean fair: {self.mean_fair:.3f}")
        out += [
            f"win rate best: {rate_with_interval(self.best_wins, self.deals)}",
            f"win rate {self.strategy}: {rate_with_interval(self.strategy_wins, self.deals)}",
        ]
        if self.fair_deals:
            out.append(f"win rate fair: {rate_with_interval(self.fair_wins, self.fair_deals)}")
        if self.band_deals:
            out += self.band_lines()
        out += ["best histogram:", *self.histogram_lines()]
        if len(self.versions) > 1:  # a cluster whose workers run different releases
            counts = ", ".join(f"{v} ({n} {'deal' if n == 1 else 'deals'})" for v, n in self.versions.most_common())
            out.append(f"mixed versions of triples: {counts}")
        return out


def speed_line(new_deals: int, seconds: float, where: str) -> str:
    """``where`` says what did the work, e.g. ``jobs 2``."""
    if not new_deals:
        return "deals per second: - (no new deals)"
    rate = new_deals / seconds if seconds > 0 else float("inf")
    return f"deals per second: {rate:.1f} ({new_deals} new deals in {seconds:.2f} s, {where})"
