"""The summary of a run: running totals, win rates with Wilson intervals, the histogram of best."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from statistics import NormalDist

from triples.config import Variant
from triples.rate.rows import Row

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

    def add(self, row: Row) -> None:
        self.deals += 1
        self.autoplay_total += row.autoplay
        self.best_total += row.best
        self.best_wins += row.won
        self.strategy_wins += row.autoplay == self.variant.deck_size
        self.best_counts[row.best] += 1
        if row.version:
            self.versions[row.version] += 1

    @property
    def mean_autoplay(self) -> float:
        return self.autoplay_total / self.deals

    @property
    def mean_best(self) -> float:
        return self.best_total / self.deals

    @property
    def mean_gap(self) -> float:
        return (self.best_total - self.autoplay_total) / self.deals

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
            f"win rate best: {rate_with_interval(self.best_wins, self.deals)}",
            f"win rate {self.strategy}: {rate_with_interval(self.strategy_wins, self.deals)}",
            "best histogram:",
            *self.histogram_lines(),
        ]
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
