"""``--plot FILE`` of ``triples rate`` and ``triples pick``: the run's distributions as a PNG or SVG.

The top panel puts the cards cleared by best play, by the row's strategy and by ``fair`` (when
rated) side by side for each count; the bottom one, with ``--difficulty``, stacks the deals of
each band over ``p_random``. Everything comes from the run's ``Summary``, which keeps counts,
not rows. matplotlib is an optional extra (``triples-solitaire[plot]``), imported only to draw, on its
file-only Agg backend so that no display is needed.
"""

from __future__ import annotations

import importlib.util
import os
import re
from typing import TYPE_CHECKING

from triples.doors.kit.exits import BadInput
from triples.doors.kit.install import install_hint
from triples.doors.rating.summary import P_RANDOM_BINS, Summary

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

PLOT_FORMATS = {".png": "png", ".svg": "svg"}
PLOT_HELP = "draw the distributions of the run into FILE (.png or .svg; needs the plot extra)"
INSTALL_HINT = install_hint("plot")
BAND_COLOURS = {"easy": "#4caf50", "medium": "#ff9800", "hard": "#e53935"}
SERIES_COLOURS = ("#37474f", "#1e88e5", "#8e24aa")  # best, the strategy, fair
DPI = 110
LEGEND_ROOM = 1.22  # headroom above the tallest bar, so that the legend row covers none
TITLE_ROOM = 0.94  # of the figure's width, what a title's line may take
TITLE_EM = 0.72  # the title's bold font: its widest glyphs (digits) are 0.7 of an em wide


def plot_format(path: str) -> str | None:
    return PLOT_FORMATS.get(os.path.splitext(path)[1].lower())


def checked_plot_path(path: str) -> str:
    """``path``, once it is known that a plot can be written there: checked before any rating,
    so that a long run does not end in a refusal."""
    if plot_format(path) is None:
        raise BadInput(f"--plot {path}: expected a file name ending in .png or .svg")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise BadInput(f"--plot {path}: no such directory {folder}")
    if importlib.util.find_spec("matplotlib") is None:
        raise BadInput(f"--plot needs matplotlib: {INSTALL_HINT}")
    return path


def title_of(summary: Summary, seeds: str) -> str:
    return f"{summary.variant.name}, {seeds} ({summary.deals:,} deals)"


def fitted_title(text: str, width: float, fontsize: float) -> tuple[str, float]:
    """``text`` in lines that fit a figure ``width`` inches wide, broken after a space or a
    comma (a custom variant's name breaks between its fields), and the font size: smaller than
    ``fontsize`` only when one piece that cannot be broken is wider than the figure."""
    room = TITLE_ROOM * width * 72  # points
    per_line = max(1, int(room / (fontsize * TITLE_EM)))
    lines = [""]
    for piece in re.split(r"(?<=[ ,])", text):
        if lines[-1] and len(lines[-1] + piece.rstrip()) > per_line:
            lines.append("")
        lines[-1] += piece
    lines = [line.rstrip() for line in lines]
    longest = max(len(line) for line in lines)
    return "\n".join(lines), min(fontsize, room / (TITLE_EM * longest))


def set_title(figure: Figure, title: str, fontsize: float) -> None:
    """The figure's title, fitted to its width: a long variant name is never cut off."""
    text, size = fitted_title(title, figure.get_figwidth(), fontsize)
    figure.suptitle(text, fontsize=size, fontweight="bold")


def matplotlib_or_refusal() -> None:
    """matplotlib on its file-only backend, or the one-line refusal naming the extra."""
    try:
        import matplotlib
    except ImportError:
        raise BadInput(f"--plot needs matplotlib: {INSTALL_HINT}") from None
    matplotlib.use("Agg")


def save(figure: Figure, path: str, title: str) -> None:
    """Write ``figure`` to ``path`` (its extension picks PNG or SVG), ``title`` in its metadata."""
    import matplotlib

    try:
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "triples"}):
            figure.savefig(path, format=plot_format(path), metadata={"Title": title})
    except OSError as exc:
        raise BadInput(f"--plot {path}: {exc.strerror or exc}") from None


def plot_figure(summary: Summary, seeds: str) -> Figure:
    """The summary's distributions, drawn; ``seeds`` names the range, e.g. ``seeds 1-500``."""
    matplotlib_or_refusal()
    from matplotlib.figure import Figure

    with_bands = summary.band_deals > 0
    figure = Figure(figsize=(10, 7.5 if with_bands else 4.2), dpi=DPI, layout="constrained")
    set_title(figure, title_of(summary, seeds), 13)
    if with_bands:
        cleared_axes, chance_axes = figure.subplots(2, 1, height_ratios=(1, 1))
        draw_cleared(cleared_axes, summary)
        draw_p_random(chance_axes, summary)
    else:
        draw_cleared(figure.subplots(), summary)
    return figure


def write_plot(path: str, summary: Summary, seeds: str) -> None:
    """Draw the summary's distributions into ``path`` (its extension picks PNG or SVG);
    ``seeds`` names the range, e.g. ``seeds 1-500``."""
    save(plot_figure(summary, seeds), path, title_of(summary, seeds))


def draw_cleared(axes: Axes, summary: Summary) -> None:
    """Grouped bars: per count of cards cleared, how many deals each player ended on it."""
    series = [(f"best play (mean {summary.mean_best:.2f})", summary.best_counts)]
    series.append((f"{summary.strategy} (mean {summary.mean_autoplay:.2f})", summary.autoplay_counts))
    if summary.fair_deals:
        series.append((f"fair (mean {summary.mean_fair:.2f})", summary.fair_counts))
    seen = sorted({value for _, counts in series for value in counts})
    step = summary.variant.per_move
    values = sorted({*range(seen[0], seen[-1] + 1, step), *seen})
    width = 0.8 * step / len(series)
    for i, ((label, counts), colour) in enumerate(zip(series, SERIES_COLOURS, strict=False)):
        offset = (i - (len(series) - 1) / 2) * width
        axes.bar([v + offset for v in values], [counts[v] for v in values], width=width, label=label, color=colour)
    axes.set_title("Cards cleared per deal")
    axes.set_xlabel(f"cards cleared (of {summary.variant.deck_size})")
    axes.set_ylabel("deals")
    ticks = values if len(values) <= 20 else values[:: -(-len(values) // 20)]
    axes.set_xticks(ticks)
    top = max(max(counts.values()) for _, counts in series)
    axes.set_ylim(0, top * LEGEND_ROOM)
    axes.legend(loc="upper left", frameon=False, ncols=len(series), fontsize="small")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)


def draw_p_random(axes: Axes, summary: Summary) -> None:
    """Stacked bars over p_random, one colour per band."""
    width = 1 / P_RANDOM_BINS
    lefts = [i * width for i in range(P_RANDOM_BINS)]
    bottom = [0] * P_RANDOM_BINS
    for band, colour in BAND_COLOURS.items():
        counts = summary.p_random_bins[band]
        share = summary.band_counts[band] / summary.band_deals
        mean = summary.mean_p_random(band)
        label = f"{band}: {100 * share:.1f}% of deals" + ("" if mean is None else f", mean {mean:.3f}")
        axes.bar(lefts, counts, width=width, bottom=bottom, align="edge", color=colour, label=label, edgecolor="white")
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    axes.set_title("Chance that random moves reach best (p_random), by difficulty band")
    axes.set_xlabel("p_random (moves chosen uniformly among the legal ones)")
    axes.set_ylabel("deals")
    axes.set_xlim(0, 1)
    axes.set_xticks([i / 10 for i in range(11)])
    axes.set_ylim(0, max(max(bottom), 1) * LEGEND_ROOM)
    axes.legend(loc="upper left", frameon=False, ncols=len(BAND_COLOURS), fontsize="small")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
