"""Does difficulty match real play? Calibration of the engines' estimates against finished attempts.

Pure functions over ``DealAttempts``: one record per published deal, with what the engines
said of it (``best``, ``fair``, ``p_random``, the band) and the cards each finished attempt
cleared, in the order the attempts finished. A deal is **reached** by an attempt that clears
its ``best``.

- ``deal_rows``: per deal, the attempts, how many reached best, the share with its 95%
  interval (Wilson), the mean cleared, the engines' estimates, what the fitted map predicts,
  and the deal's ``rating``.
- ``band_rows``: per band, the share of attempts reaching best with a 95% interval (deals as
  clusters: attempts of one deal are not independent) beside the engines' predictions: the
  mean ``p_random``, the share of deals ``fair`` reaches best on, and the fitted map's mean.
- ``fit_map``: a logistic map from the engines' estimate to the share of people reaching best,
  ``share = 1 / (1 + exp(-(intercept + slope * logit(p_random))))``, fitted by maximum
  likelihood over every attempt; a random player's own map is intercept 0, slope 1.
- ``cut_points``: the ``p_random`` at which the fitted share crosses the shares design asks
  for (``DEFAULT_SHARES``): the band cut points that would give them.
- ``ratings``: each deal's rating, learned attempt by attempt (a Gaussian on the logit of its
  share, updated as puzzle sites update theirs), starting from the fitted map's prediction
  for its ``p_random`` rather than one value for every deal. With few attempts the start is
  most of what a rating knows, and the engines' estimate is a better start than the average
  deal: ``benchmarks/audit.py`` measures the error of both on synthetic players.

``rows`` gives every row as a dict with a ``kind`` of ``"deal"``, ``"band"`` or ``"fit"``;
``reliability`` bins deals by predicted share for a reliability diagram
(``triples.engines.reliability`` draws it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# The shares of attempts reaching best that design asks of each band: a deal is ``easy``
# when at least 60% of people reach its best, ``medium`` at least 25%, else ``hard``.
DEFAULT_SHARES: Mapping[str, float] = {"easy": 0.6, "medium": 0.25}
# p_random is clipped to this distance from 0 and 1 before its logit is taken.
CLIP = 1e-4
# A rating's scale: 1500 where half the attempts reach best, 400 more per tenfold drop in the odds.
RATING_CENTRE = 1500.0
RATING_SCALE = 400.0 / math.log(10.0)
# The spread of deals' logit shares around the map (its variance) stays within these.
SPREAD_LIMITS = (0.05, 9.0)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class DealAttempts:
    """One published deal: what the engines said of it and each finished attempt's cleared."""

    date: str
    variant: str
    band: str
    best: int
    fair: int
    p_random: float | None
    cleared: tuple[int, ...] = ()  # in the order the attempts finished

    @property
    def attempts(self) -> int:
        return len(self.cleared)

    @property
    def reached(self) -> int:
        return sum(c >= self.best for c in self.cleared)


@dataclass(frozen=True)
class Fit:
    """The fitted map and how much data it stands on; ``spread`` is the variance of deals'
    logit shares around it (what the map does not explain)."""

    intercept: float
    slope: float
    deals: int
    attempts: int
    spread: float
    log_likelihood: float
    cuts: dict[str, float] = field(default_factory=dict)
    # The coefficients' standard errors, from the likelihood's curvature (binomial attempts).
    errors: tuple[float, float] = (0.0, 0.0)

    def predict(self, p_random: float | None) -> float | None:
        if p_random is None:
            return None
        return sigmoid(self.intercept + self.slope * logit(p_random))


# --- small pieces -----------------------------------------------------------------------------


def sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def logit(p: float) -> float:
    p = min(1.0 - CLIP, max(CLIP, p))
    return math.log(p / (1.0 - p))


def wilson(successes: int, trials: int) -> tuple[float, float]:
    """The 95% Wilson interval of a binomial share; (0, 1) with no trials."""
    if trials == 0:
        return 0.0, 1.0
    share = successes / trials
    if share in (0.0, 1.0):  # the interval's outer end is the share itself, exactly
        edge = Z95 * Z95 / (trials + Z95 * Z95)
        return (0.0, edge) if share == 0.0 else (1.0 - edge, 1.0)
    z2 = Z95 * Z95
    centre = (share + z2 / (2 * trials)) / (1 + z2 / trials)
    half = Z95 * math.sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials)) / (1 + z2 / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered(deals: Sequence[DealAttempts]) -> tuple[float, float, float]:
    """The share of attempts reaching best over ``deals`` and its 95% interval, with deals as
    clusters (a ratio estimator's variance); never narrower than the Wilson interval."""
    trials = sum(d.attempts for d in deals)
    hits = sum(d.reached for d in deals)
    if trials == 0:
        return 0.0, 0.0, 1.0
    share = hits / trials
    low, high = wilson(hits, trials)
    used = [d for d in deals if d.attempts]
    if len(used) > 1:
        mean = trials / len(used)
        variance = sum((d.reached - share * d.attempts) ** 2 for d in used) / (len(used) * (len(used) - 1) * mean**2)
        half = Z95 * math.sqrt(variance)
        low, high = min(low, max(0.0, share - half)), max(high, min(1.0, share + half))
    return share, low, high


def rating_of(share: float) -> float:
    """A share reaching best on the puzzle-site scale: higher is harder."""
    return RATING_CENTRE - RATING_SCALE * logit(share)


# --- the map -----------------------------------------------------------------------------------


def fit_map(deals: Iterable[DealAttempts], shares: Mapping[str, float] = DEFAULT_SHARES) -> Fit | None:
    """The logistic map from ``logit(p_random)`` to the share reaching best, by Newton's method
    on the binomial likelihood of every attempt of every deal with a ``p_random``; None when
    no such deal has attempts, or they cannot tell a slope (one value of p_random, or every
    attempt alike: the fit would run off to infinity)."""
    data = [(logit(d.p_random), d.reached, d.attempts) for d in deals if d.p_random is not None and d.attempts]
    trials = sum(n for _, _, n in data)
    hits = sum(r for _, r, _ in data)
    if not data or hits in (0, trials) or len({x for x, _, _ in data}) < 2:
        return None
    a, b = logit(hits / trials), 0.0
    for _ in range(100):
        ga = gb = haa = hab = hbb = 0.0
        for x, r, n in data:
            p = sigmoid(a + b * x)
            w = n * p * (1 - p)
            ga += r - n * p
            gb += (r - n * p) * x
            haa += w
            hab += w * x
            hbb += w * x * x
        det = haa * hbb - hab * hab
        if det <= 1e-12:
            return None
        da, db = (hbb * ga - hab * gb) / det, (haa * gb - hab * ga) / det
        a, b = a + da, b + db
        if abs(da) + abs(db) < 1e-10:
            break
    if not (math.isfinite(a) and math.isfinite(b)) or abs(a) + abs(b) > 1e3:
        return None
    predicted = [(sigmoid(a + b * x), r, n) for x, r, n in data]
    ll = sum(r * math.log(max(p, 1e-300)) + (n - r) * math.log(max(1 - p, 1e-300)) for p, r, n in predicted)
    haa = sum(n * p * (1 - p) for p, _, n in predicted)
    hab = sum(n * p * (1 - p) * x for (p, _, n), (x, _, _) in zip(predicted, data, strict=True))
    hbb = sum(n * p * (1 - p) * x * x for (p, _, n), (x, _, _) in zip(predicted, data, strict=True))
    det = haa * hbb - hab * hab
    errors = (math.sqrt(hbb / det), math.sqrt(haa / det))
    fit = Fit(a, b, len(data), trials, spread_of(predicted), ll, errors=errors)
    return replace(fit, cuts=cut_points(fit, shares))


def spread_of(predicted: Sequence[tuple[float, int, int]]) -> float:
    """The variance of deals' logit shares around their predictions ``p`` (each with ``r`` of
    ``n`` attempts reaching best), by moments: what binomial noise alone does not explain of
    the scatter, over what a unit of logit variance would add (deals with two attempts or
    more say something of it)."""
    excess = weight = 0.0
    for p, r, n in predicted:
        if n < 2:
            continue
        v = p * (1 - p)
        excess += (r - n * p) ** 2 - n * v
        weight += n * (n - 1) * v * v
    low, high = SPREAD_LIMITS
    return low if weight == 0 else min(high, max(low, excess / weight))


def cut_points(fit: Fit, shares: Mapping[str, float] = DEFAULT_SHARES) -> dict[str, float]:
    """Per band, the ``p_random`` at which the fitted share reaches the band's share: deals at
    or above it are of that band or easier. Empty when the map does not rise with p_random."""
    if fit.slope <= 0:
        return {}
    return {band: sigmoid((logit(share) - fit.intercept) / fit.slope) for band, share in shares.items()}


# --- ratings -----------------------------------------------------------------------------------


def learned(start: float, spread: float, outcomes: Iterable[bool]) -> float:
    """A deal's logit share after its attempts, one at a time: a Gaussian of mean ``start`` and
    variance ``spread``, each attempt's outcome folded in by one Newton step on its logistic
    likelihood (the update Glicko-style puzzle ratings use)."""
    mean, variance = start, spread
    for reached in outcomes:
        p = sigmoid(mean)
        variance = 1.0 / (1.0 / variance + p * (1 - p))
        mean += variance * ((1.0 if reached else 0.0) - p)
    return mean


def flat_start(deals: Sequence[DealAttempts]) -> tuple[float, float]:
    """Where a flat start puts every deal: the logit of the share over every attempt of every
    deal (half an attempt each way, so never infinite), with the spread of the deals around it."""
    trials = sum(d.attempts for d in deals)
    pooled = (sum(d.reached for d in deals) + 0.5) / (trials + 1.0)
    return logit(pooled), spread_of([(pooled, d.reached, d.attempts) for d in deals])


def seeded_start(deal: DealAttempts, fit: Fit | None) -> tuple[float, float] | None:
    """Where a seeded start puts the deal: the fitted map's prediction for its ``p_random``,
    with the map's spread; None without a fit or a ``p_random``."""
    predicted = fit.predict(deal.p_random) if fit is not None else None
    if predicted is None or fit is None:
        return None
    return logit(predicted), fit.spread


def rating(deal: DealAttempts, start: tuple[float, float]) -> float:
    """The deal's rating after its attempts, from ``start`` (a logit share and its variance)."""
    return rating_of(sigmoid(learned(*start, (c >= deal.best for c in deal.cleared))))


def ratings(deals: Sequence[DealAttempts], fit: Fit | None, seeded: bool = True) -> list[float]:
    """Each deal's rating after its attempts: from ``seeded_start`` (or, unseeded, without a
    fit or without a ``p_random``, from ``flat_start``)."""
    flat = flat_start(deals)
    return [rating(d, (seeded_start(d, fit) if seeded else None) or flat) for d in deals]


# --- rows --------------------------------------------------------------------------------------


def deal_rows(deals: Sequence[DealAttempts], fit: Fit | None) -> list[dict[str, Any]]:
    """One ``"deal"`` row per deal, in the order given."""
    rows = []
    for d, rating in zip(deals, ratings(deals, fit), strict=True):
        low, high = wilson(d.reached, d.attempts)
        rows.append(
            {
                "kind": "deal",
                "date": d.date,
                "variant": d.variant,
                "band": d.band,
                "best": d.best,
                "attempts": d.attempts,
                "reached_best": d.reached,
                "share": d.reached / d.attempts if d.attempts else None,
                "low": low,
                "high": high,
                "mean_cleared": sum(d.cleared) / d.attempts if d.attempts else None,
                "p_random": d.p_random,
                "fair_reaches": d.fair >= d.best,
                "predicted": fit.predict(d.p_random) if fit else None,
                "rating": round(rating, 1),
            }
        )
    return rows


def weighted(deals: Iterable[DealAttempts], value: Callable[[DealAttempts], float | None]) -> float | None:
    """The mean of ``value`` over the deals' attempts (each deal weighs its attempts; deals
    with no value are left out); None when nothing is left."""
    total = weight = 0.0
    for d in deals:
        v = value(d)
        if v is not None and d.attempts:
            total += v * d.attempts
            weight += d.attempts
    return total / weight if weight else None


def band_rows(deals: Sequence[DealAttempts], fit: Fit | None, bands: Sequence[str]) -> list[dict[str, Any]]:
    """One ``"band"`` row per band of ``bands`` that has deals (per variant when the deals are
    of several). The engines' predictions are means over the attempts, like the share."""
    rows = []
    for variant in sorted({d.variant for d in deals}):
        for band in bands:
            group = [d for d in deals if d.variant == variant and d.band == band]
            if not group:
                continue
            share, low, high = clustered(group)
            rows.append(
                {
                    "kind": "band",
                    "variant": variant,
                    "band": band,
                    "deals": len(group),
                    "attempts": sum(d.attempts for d in group),
                    "reached_best": sum(d.reached for d in group),
                    "share": share if any(d.attempts for d in group) else None,
                    "low": low,
                    "high": high,
                    "p_random": weighted(group, lambda d: d.p_random),
                    "fair_reaches": weighted(group, lambda d: float(d.fair >= d.best)),
                    "predicted": weighted(group, lambda d: fit.predict(d.p_random) if fit else None),
                }
            )
    return rows


def fit_row(fit: Fit | None, variant: str | None) -> dict[str, Any]:
    """The ``"fit"`` row: the map's coefficients (None when it could not be fitted)."""
    if fit is None:
        return {"kind": "fit", "variant": variant, "intercept": None, "slope": None, "deals": 0, "attempts": 0}
    return {
        "kind": "fit",
        "variant": variant,
        "intercept": fit.intercept,
        "slope": fit.slope,
        "deals": fit.deals,
        "attempts": fit.attempts,
        "spread": fit.spread,
        "intercept_error": fit.errors[0],
        "slope_error": fit.errors[1],
        "log_likelihood": fit.log_likelihood,
        "cuts": fit.cuts,
    }


def rows(
    deals: Sequence[DealAttempts],
    bands: Sequence[str] = ("easy", "medium", "hard"),
    shares: Mapping[str, float] = DEFAULT_SHARES,
    variant: str | None = None,
) -> list[dict[str, Any]]:
    """Every row of a calibration: the deals, the bands, then the fit (``variant`` names the
    deals' variant in the fit row when they are all of one)."""
    fit = fit_map(deals, shares)
    return [*deal_rows(deals, fit), *band_rows(deals, fit, bands), fit_row(fit, variant)]


def reliability(deals: Sequence[DealAttempts], fit: Fit | None, bins: int = 10) -> list[dict[str, Any]]:
    """Deals binned by predicted share (the fitted map's, else ``p_random``): per bin with
    attempts, the mean prediction and ``p_random`` over its attempts, the observed share and
    its interval (deals as clusters)."""
    binned: list[list[tuple[float, DealAttempts]]] = [[] for _ in range(bins)]
    for d in deals:
        if d.p_random is None or not d.attempts:
            continue
        predicted = fit.predict(d.p_random) if fit else d.p_random
        assert predicted is not None
        binned[min(bins - 1, int(predicted * bins))].append((predicted, d))
    out = []
    for i, group in enumerate(binned):
        if not group:
            continue
        members = [d for _, d in group]
        share, low, high = clustered(members)
        attempts = sum(d.attempts for d in members)
        out.append(
            {
                "bin": i,
                "deals": len(group),
                "attempts": attempts,
                "predicted": sum(p * d.attempts for p, d in group) / attempts,
                "p_random": weighted(members, lambda d: d.p_random),
                "observed": share,
                "low": low,
                "high": high,
            }
        )
    return out
