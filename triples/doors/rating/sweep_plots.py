"""``triples sweep --plot FILE``: the chosen measure over the varied fields, as a PNG or SVG.

Two varied fields give a heatmap (the first --vary down the side, the second along the bottom,
each cell labelled with its value and, below it, its 95% Wilson interval for a share, or its
number of deals for a mean); one gives a line, with the 95% Wilson interval shaded for a win
rate. The title names the base without the fields the sweep varies (they are the axes). A long
title is broken into lines that fit. matplotlib is the plot extra, imported only here, on its
file-only Agg backend.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

from triples.doors.rating.plots import DPI, matplotlib_or_refusal, save, set_title
from triples.doors.rating.summary import wilson_interval
from triples.doors.rating.sweep_rows import MEASURES, SweepRow, varied_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


class VariedField(Protocol):
    """One varied field of a sweep: its name and the values it takes, in order."""

    @property
    def field(self) -> str: ...
    @property
    def values(self) -> tuple[object, ...]: ...


class PlottedSweep(Protocol):
    """What a plot needs to know of the sweep it draws."""

    @property
    def measure(self) -> str: ...
    @property
    def seeds_text(self) -> str: ...
    @property
    def base_name(self) -> str: ...
    @property
    def strategy(self) -> str: ...
    @property
    def varies(self) -> tuple[VariedField, ...]: ...


def number(value: object) -> float:
    """A measure's value in a row: always a number (the rows were written by the sweep)."""
    assert isinstance(value, int | float), value
    return float(value)


PERCENT_MEASURES = ("win_best", "win_autoplay", "win_fair", "easy", "medium", "hard")


def cell_text(measure: str, value: float) -> str:
    if math.isnan(value):
        return ""
    return f"{100 * value:.1f}%" if measure in PERCENT_MEASURES else f"{value:.1f}"


def without_varied(name: str, varied: set[str]) -> str:
    """A variant's name without the fields the sweep varies: ``classic(slots=11,target=18)``
    varying target is ``classic(slots=11)``; the varied fields' values are the plot's axes,
    not the base's."""
    base, opened, fields = name.partition("(")
    if not opened:
        return name
    kept = [part for part in fields.removesuffix(")").split(",") if part.partition("=")[0] not in varied]
    return f"{base}({','.join(kept)})" if kept else base


def title_of(sweep: PlottedSweep, rows: list[SweepRow]) -> str:
    label = MEASURES[sweep.measure].replace("the strategy", sweep.strategy)
    base = without_varied(sweep.base_name, {vary.field for vary in sweep.varies})
    deals = int(number(rows[0]["deals"]))
    return f"{label}: {base}, seeds {sweep.seeds_text} ({deals:,} deals per rule set)"


def sweep_figure(sweep: PlottedSweep, rows: list[SweepRow]) -> Figure:
    """``sweep.measure`` of ``rows`` (the finished rule sets), drawn."""
    matplotlib_or_refusal()
    from matplotlib.figure import Figure

    label = MEASURES[sweep.measure].replace("the strategy", sweep.strategy)
    figure = Figure(figsize=(9, 6.5) if len(sweep.varies) == 2 else (9, 4.5), dpi=DPI, layout="constrained")
    set_title(figure, title_of(sweep, rows), 12)
    axes = figure.subplots()
    if len(sweep.varies) == 2:
        draw_heatmap(figure, axes, sweep, rows, label)
    else:
        draw_line(axes, sweep, rows, label)
    return figure


def write_sweep_plot(path: str, sweep: PlottedSweep, rows: list[SweepRow]) -> None:
    """Draw ``sweep.measure`` of ``rows`` (the finished rule sets) into ``path``."""
    save(sweep_figure(sweep, rows), path, title_of(sweep, rows))


def uncertainty_text(measure: str, row: SweepRow) -> str:
    """What a heatmap cell shows under its value: a share's 95% Wilson interval (the row's own
    for a win rate; for a band's share, worked out from the share and the deals), or a mean's
    number of deals."""
    deals = int(number(row["deals"]))
    if measure not in PERCENT_MEASURES:
        return f"n={deals:,}"
    if f"{measure}_low" in row:
        low, high = number(row[f"{measure}_low"]), number(row[f"{measure}_high"])
    else:
        low, high = wilson_interval(round(number(row[measure]) * deals), deals)
    return f"{100 * low:.1f}-{100 * high:.1f}%"


def draw_heatmap(figure: Figure, axes: Axes, sweep: PlottedSweep, rows: list[SweepRow], label: str) -> None:
    down, across = sweep.varies
    ys = [varied_text(down.field, v) for v in down.values]
    xs = [varied_text(across.field, v) for v in across.values]
    row_of = {(row[down.field], row[across.field]): row for row in rows}
    by_cell = {cell: number(row[sweep.measure]) for cell, row in row_of.items()}
    grid = [[by_cell.get((y, x), math.nan) for x in xs] for y in ys]  # a rule set not rated: blank
    finite = [v for line in grid for v in line if not math.isnan(v)]
    low, high = min(finite), max(finite)
    if sweep.measure in PERCENT_MEASURES:  # shares start at nothing, so equal shades mean equal shares
        low, high = 0.0, high or 1.0
    image = axes.imshow(grid, cmap="viridis", aspect="auto", origin="lower", vmin=low, vmax=high)
    middle = (low + high) / 2
    for i, line in enumerate(grid):
        for j, value in enumerate(line):
            row = row_of.get((ys[i], xs[j]))
            if row is None:
                continue
            colour = "black" if value >= middle else "white"
            axes.text(j, i, cell_text(sweep.measure, value), ha="center", va="bottom", color=colour, fontsize=9)
            axes.text(j, i, uncertainty_text(sweep.measure, row), ha="center", va="top", color=colour, fontsize=7)
    axes.set_xticks(range(len(xs)), [str(x) for x in xs])
    axes.set_yticks(range(len(ys)), [str(y) for y in ys])
    axes.set_xlabel(across.field)
    axes.set_ylabel(down.field)
    bar = figure.colorbar(image, ax=axes)
    bar.set_label(label)
    if sweep.measure in PERCENT_MEASURES:
        bar.ax.yaxis.set_major_formatter(lambda value, _: f"{100 * value:.4g}%")


def draw_line(axes: Axes, sweep: PlottedSweep, rows: list[SweepRow], label: str) -> None:
    (along,) = sweep.varies
    xs = [varied_text(along.field, v) for v in along.values]
    by_value = {row[along.field]: row for row in rows}
    shown = [x for x in xs if x in by_value]
    positions = [xs.index(x) for x in shown]
    values = [number(by_value[x][sweep.measure]) for x in shown]
    axes.plot(positions, values, marker="o", color="#1e88e5")
    low, high = f"{sweep.measure}_low", f"{sweep.measure}_high"
    if shown and low in by_value[shown[0]]:
        lows = [number(by_value[x][low]) for x in shown]
        highs = [number(by_value[x][high]) for x in shown]
        axes.fill_between(positions, lows, highs, color="#1e88e5", alpha=0.2, label="95% Wilson interval")
        axes.legend(loc="best", frameon=False, fontsize="small")
    for x, y in zip(positions, values, strict=True):
        axes.annotate(cell_text(sweep.measure, y), (x, y), textcoords="offset points", xytext=(0, 7), ha="center")
    axes.set_xticks(range(len(xs)), [str(x) for x in xs])
    axes.set_xlabel(along.field)
    axes.set_ylabel(label)
    if sweep.measure in PERCENT_MEASURES:
        top = max([*values, *(number(row.get(high, 0.0)) for row in by_value.values())]) or 1.0
        axes.set_ylim(0, top * 1.15)
        axes.yaxis.set_major_formatter(lambda value, _: f"{100 * value:.4g}%")
    axes.set_xlim(-0.5, len(xs) - 0.5)
    axes.grid(alpha=0.3)
    axes.set_axisbelow(True)
