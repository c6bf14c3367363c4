"""The reliability diagram of a calibration: predicted share against observed share, per bin.

matplotlib is an optional extra (``triples-solitaire[plot]``), imported only to draw, on its
file-only Agg backend so that no display is needed. ``draw`` takes the rows of
``triples.engines.calibration.reliability``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from triples.engines import calibration

DPI = 110
FORMATS = {".png": "png", ".svg": "svg"}


def draw(path: str, series: Mapping[str, Sequence[Mapping[str, Any]]], title: str) -> None:
    """Draw each series' bins (a label -> ``calibration.reliability`` rows) into ``path``
    (.png or .svg): observed share with its 95% interval over the predicted share, the
    diagonal where the prediction is right, and each bin's ``p_random`` as a hollow mark."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6.4, 5.6), dpi=DPI)
    axes.plot([0, 1], [0, 1], color="#9e9e9e", linestyle="--", linewidth=1, label="prediction right")
    for i, (label, bins) in enumerate(series.items()):
        colour = f"C{i}"
        predicted = [b["predicted"] for b in bins]
        observed = [b["observed"] for b in bins]
        below = [b["observed"] - b["low"] for b in bins]
        above = [b["high"] - b["observed"] for b in bins]
        axes.errorbar(predicted, observed, yerr=[below, above], fmt="o-", color=colour, capsize=3, label=label)
        chances = [(b["p_random"], b["observed"]) for b in bins if b.get("p_random") is not None]
        if chances:
            axes.scatter(
                [x for x, _ in chances], [y for _, y in chances], facecolors="none", edgecolors=colour, marker="s", s=22
            )
    axes.set_xlim(0, 1)
    axes.set_ylim(0, 1)
    axes.set_xlabel("predicted share reaching best (fitted map; hollow squares: p_random)")
    axes.set_ylabel("observed share of attempts reaching best")
    axes.set_title(title)
    axes.legend(loc="upper left", fontsize="small")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, format=FORMATS.get(os.path.splitext(path)[1].lower(), "png"))
    plt.close(figure)


def draw_deals(path: str, deals: Sequence[calibration.DealAttempts], title: str, bins: int = 10) -> None:
    """The reliability diagram of ``deals`` (``triples calibrate --plot``): the map fitted to
    them, binned by its prediction; by ``p_random`` itself when no map can be fitted."""
    fit = calibration.fit_map(deals)
    label = "fitted map" if fit is not None else "p_random"
    draw(path, {label: calibration.reliability(deals, fit, bins)}, title)
