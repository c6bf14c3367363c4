"""Calibration against attempts: exact answers on hand-made deals, and a synthetic population
whose true map from p_random to the share reaching best is known, which the fit must recover."""

from __future__ import annotations

import math
import random
from pathlib import Path

import pytest

from triples.engines import calibration, reliability
from triples.engines.calibration import DealAttempts, Fit, fit_map, logit, sigmoid


def deal(
    p_random: float | None,
    reached: int,
    attempts: int,
    *,
    band: str = "easy",
    best: int = 36,
    fair: int = 36,
    date: str = "2025-03-01",
) -> DealAttempts:
    """A deal whose first ``reached`` attempts cleared ``best`` and the others 3 cards fewer."""
    return DealAttempts(
        date, "sum15", band, best, fair, p_random, (best,) * reached + (best - 3,) * (attempts - reached)
    )


def population(
    true_intercept: float, true_slope: float, deals: int, attempts: int, spread: float = 0.0, seed: int = 7
) -> list[DealAttempts]:
    """Synthetic players on ``deals`` deals: on a deal of ``p_random`` p each attempt reaches best
    with chance sigmoid(intercept + slope * logit p + noise), the noise of the deal drawn once
    with variance ``spread``."""
    rng = random.Random(seed)
    out = []
    for i in range(deals):
        p = rng.uniform(0.02, 0.98)
        noise = rng.gauss(0.0, math.sqrt(spread)) if spread else 0.0
        share = sigmoid(true_intercept + true_slope * logit(p) + noise)
        reached = sum(rng.random() < share for _ in range(attempts))
        out.append(deal(p, reached, attempts, date=f"2025-{1 + i // 28:02d}-{1 + i % 28:02d}"))
    return out


def test_wilson_intervals() -> None:
    assert calibration.wilson(0, 0) == (0.0, 1.0)
    low, high = calibration.wilson(0, 10)
    assert (low, round(high, 4)) == (0.0, 0.2775)
    low, high = calibration.wilson(5, 10)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)
    assert calibration.wilson(10, 10) == (1.0 - calibration.wilson(0, 10)[1], 1.0)


def test_two_deals_are_fitted_exactly() -> None:
    # Two values of p_random and two free coefficients: the map passes through both shares.
    fit = fit_map([deal(0.5, 1, 2), deal(0.8, 4, 5)])
    assert fit is not None
    assert (round(fit.intercept, 9), round(fit.slope, 9)) == (0.0, 1.0)
    assert (fit.deals, fit.attempts) == (2, 7)
    # With intercept 0 and slope 1 the map is the identity: each cut point is its own share.
    assert {band: round(cut, 9) for band, cut in fit.cuts.items()} == {"easy": 0.6, "medium": 0.25}


def test_a_map_is_not_fitted_without_contrast() -> None:
    assert fit_map([]) is None
    assert fit_map([deal(None, 3, 5)]) is None  # no p_random
    assert fit_map([deal(0.3, 2, 5), deal(0.3, 1, 5)]) is None  # one value of p_random
    assert fit_map([deal(0.3, 5, 5), deal(0.6, 5, 5)]) is None  # every attempt reached best
    assert fit_map([deal(0.3, 0, 5), deal(0.6, 0, 5)]) is None


def test_random_players_recover_the_identity_map() -> None:
    # Random players reach best with chance p_random itself: intercept 0, slope 1.
    fit = fit_map(population(0.0, 1.0, deals=400, attempts=30))
    assert fit is not None
    assert abs(fit.intercept) < 0.05 and abs(fit.slope - 1.0) < 0.05
    assert fit.spread == calibration.SPREAD_LIMITS[0]  # nothing beyond binomial noise


def test_a_known_map_is_recovered() -> None:
    fit = fit_map(population(-0.7, 0.6, deals=400, attempts=20))
    assert fit is not None
    assert abs(fit.intercept + 0.7) < 0.1 and abs(fit.slope - 0.6) < 0.1


def test_deals_scattered_around_the_map_flatten_it_and_show_as_spread() -> None:
    # Each deal's own noise (variance 1 on the logit scale) averages into a flatter map over
    # deals, which is what the share of people over many deals follows; what the map does not
    # explain is measured as its spread.
    fit = fit_map(population(-0.7, 0.6, deals=400, attempts=20, spread=1.0))
    assert fit is not None
    assert -0.7 < fit.intercept < -0.35 and 0.4 < fit.slope < 0.59
    assert 0.5 < fit.spread < 1.2


def test_seeded_ratings_beat_a_flat_start_with_few_attempts() -> None:
    truth_rng = random.Random(11)
    trained = population(-0.7, 0.6, deals=400, attempts=20, spread=0.5, seed=3)
    fit = fit_map(trained)
    assert fit is not None
    flat = calibration.flat_start(trained)
    errors = {"seeded": 0.0, "flat": 0.0}
    for _ in range(300):
        p = truth_rng.uniform(0.02, 0.98)
        share = sigmoid(-0.7 + 0.6 * logit(p) + truth_rng.gauss(0.0, math.sqrt(0.5)))
        reached = sum(truth_rng.random() < share for _ in range(3))
        new = deal(p, reached, 3)
        start = calibration.seeded_start(new, fit)
        assert start is not None
        truth = calibration.rating_of(share)
        errors["seeded"] += (calibration.rating(new, start) - truth) ** 2
        errors["flat"] += (calibration.rating(new, flat) - truth) ** 2
    assert errors["seeded"] < 0.8 * errors["flat"]


def test_a_rating_moves_with_its_attempts() -> None:
    fit = Fit(0.0, 1.0, 2, 10, 1.0, 0.0)
    # No attempt: the map's prediction itself (share 0.5 is rating 1500).
    assert calibration.ratings([deal(0.5, 0, 0)], fit) == [1500.0]
    up, down = calibration.ratings([deal(0.5, 0, 4), deal(0.5, 4, 4)], fit)
    assert up > 1500.0 > down  # every attempt failing makes a deal harder
    assert calibration.rating_of(0.5) == 1500.0
    assert round(calibration.rating_of(sigmoid(-math.log(10))), 6) == 1900.0


def test_rows_carry_their_kind_and_fields() -> None:
    deals = [
        deal(0.5, 1, 2, band="easy", date="2025-03-01"),
        deal(0.8, 4, 5, band="easy", date="2025-03-02", fair=33),
        deal(None, 0, 3, band="hard", date="2025-03-03", fair=30),
    ]
    rows = calibration.rows(deals, variant="sum15")
    assert [row["kind"] for row in rows] == ["deal", "deal", "deal", "band", "band", "fit"]
    first = rows[0]
    assert {key: first[key] for key in ("date", "variant", "band", "best", "attempts", "reached_best")} == {
        "date": "2025-03-01",
        "variant": "sum15",
        "band": "easy",
        "best": 36,
        "attempts": 2,
        "reached_best": 1,
    }
    assert (first["mean_cleared"], first["p_random"], first["share"]) == (34.5, 0.5, 0.5)
    assert round(first["predicted"], 9) == 0.5
    assert rows[1]["fair_reaches"] is False and rows[2]["predicted"] is None
    easy = rows[3]
    assert (easy["band"], easy["deals"], easy["attempts"], easy["reached_best"]) == ("easy", 2, 7, 5)
    assert round(easy["share"], 9) == round(5 / 7, 9)
    # The engines' predictions are means over the attempts: p_random (0.5 * 2 + 0.8 * 5) / 7.
    assert round(easy["p_random"], 9) == round(5.0 / 7, 9)
    assert round(easy["fair_reaches"], 9) == round(2 / 7, 9)
    assert easy["low"] < easy["share"] < easy["high"]
    hard = rows[4]
    assert (hard["band"], hard["share"], hard["p_random"], hard["predicted"]) == ("hard", 0.0, None, None)
    fit = rows[5]
    assert (fit["variant"], round(fit["intercept"], 9), round(fit["slope"], 9)) == ("sum15", 0.0, 1.0)


def test_a_band_interval_counts_deals_not_attempts() -> None:
    # Two deals, one always reached, one never: 50 of 100 attempts, but only two deals'
    # worth of evidence, so the interval is far wider than the attempts' Wilson interval.
    share, low, high = calibration.clustered([deal(0.5, 50, 50), deal(0.5, 0, 50)])
    wilson_low, wilson_high = calibration.wilson(50, 100)
    assert share == 0.5 and low < wilson_low - 0.2 and high > wilson_high + 0.2


def test_reliability_bins_by_prediction() -> None:
    deals = [deal(0.05, 0, 4), deal(0.07, 1, 4), deal(0.55, 2, 4), deal(0.95, 4, 4), deal(None, 1, 1)]
    bins = calibration.reliability(deals, None, bins=10)
    assert [(b["bin"], b["deals"], b["attempts"], b["observed"]) for b in bins] == [
        (0, 2, 8, 0.125),
        (5, 1, 4, 0.5),
        (9, 1, 4, 1.0),
    ]
    assert round(bins[0]["predicted"], 9) == 0.06


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_a_reliability_diagram_is_drawn(tmp_path: Path, suffix: str) -> None:
    deals = population(-0.5, 0.8, deals=200, attempts=10)
    fit = fit_map(deals)
    path = tmp_path / f"reliability{suffix}"
    reliability.draw(str(path), {"synthetic": calibration.reliability(deals, fit)}, "synthetic players")
    head = path.read_bytes()[:8]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<?xml" in head or b"<svg" in head


def test_the_diagram_of_deals(tmp_path: Path) -> None:
    path = tmp_path / "deals.png"
    reliability.draw_deals(str(path), population(0.0, 1.0, deals=50, attempts=5), "random players")
    assert path.read_bytes().startswith(b"\x89PNG")
    # No map to fit: binned by p_random itself.
    reliability.draw_deals(str(path), [deal(0.5, 1, 2)], "one deal")
    assert path.read_bytes().startswith(b"\x89PNG")
