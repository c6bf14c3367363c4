"""``triples sweep --plot`` (triples/doors/rating/sweep_plots.py): the title names the base without
the varied fields and fits the figure, and every heatmap cell shows its uncertainty."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest
from matplotlib.figure import Figure

from triples.doors.rating import plots, sweep_plots
from triples.doors.rating.summary import wilson_interval
from triples.doors.rating.sweep_rows import SweepRow

SVG = "{http://www.w3.org/2000/svg}"
LONG_BASE = "classic(slots=11,per_move=4,target=31,court=11/12/13,suits=3)"


@dataclass(frozen=True)
class Vary:
    field: str
    values: tuple[object, ...]


@dataclass(frozen=True)
class Plotted:
    measure: str
    base_name: str
    varies: tuple[Vary, ...]
    seeds_text: str = "1-200"
    strategy: str = "high"


def rows_of(measure: str, with_interval: bool) -> list[SweepRow]:
    rows: list[SweepRow] = []
    for target in (18, 19):
        for slots in (9, 10):
            wins = target + slots  # 27..29 of 200
            row: SweepRow = {"target": target, "slots": slots, "deals": 200, measure: wins / 200}
            if with_interval:
                row[f"{measure}_low"], row[f"{measure}_high"] = wilson_interval(wins, 200)
            rows.append(row)
    return rows


def svg_texts(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


HEAT = (Vary("target", (18, 19)), Vary("slots", (9, 10)))


@pytest.mark.parametrize(
    ("name", "varied", "shown"),
    [
        ("classic(target=18)", {"target", "slots"}, "classic"),
        ("classic(slots=11,target=18)", {"target"}, "classic(slots=11)"),
        ("classic(slots=11,target=18)", {"per_move"}, "classic(slots=11,target=18)"),
        ("sum15", {"target"}, "sum15"),
        ("classic(court=11/12/13,suits=3)", {"court"}, "classic(suits=3)"),
    ],
)
def test_the_title_leaves_out_the_varied_fields(name: str, varied: set[str], shown: str) -> None:
    assert sweep_plots.without_varied(name, varied) == shown


def test_the_heatmap_title_shows_no_value_of_a_varied_field(tmp_path: Path) -> None:
    path = tmp_path / "heat.svg"
    sweep = Plotted("win_best", "classic(target=18)", HEAT)
    sweep_plots.write_sweep_plot(str(path), sweep, rows_of("win_best", True))
    texts = svg_texts(path)
    assert "win rate of best play: classic, seeds 1-200 (200 deals per rule set)" in texts
    assert not [text for text in texts if "target=" in text]


def test_each_heatmap_cell_shows_its_interval(tmp_path: Path) -> None:
    path = tmp_path / "heat.svg"
    sweep_plots.write_sweep_plot(str(path), Plotted("win_best", "classic", HEAT), rows_of("win_best", True))
    texts = svg_texts(path)
    for wins in (27, 28, 29):
        low, high = wilson_interval(wins, 200)
        assert f"{100 * wins / 200:.1f}%" in texts
        assert f"{100 * low:.1f}-{100 * high:.1f}%" in texts
    assert "9.4-18.9%" in texts  # 27 of 200: 13.5%, give or take about 5 points


def test_a_bands_share_gets_its_interval_and_a_mean_its_deals(tmp_path: Path) -> None:
    path = tmp_path / "hard.svg"
    sweep_plots.write_sweep_plot(str(path), Plotted("hard", "classic", HEAT), rows_of("hard", False))
    low, high = wilson_interval(28, 200)
    assert f"{100 * low:.1f}-{100 * high:.1f}%" in svg_texts(path)
    path = tmp_path / "mean.svg"
    rows = [{**row, "mean_best": 30.0 + index} for index, row in enumerate(rows_of("hard", False))]
    sweep_plots.write_sweep_plot(str(path), Plotted("mean_best", "classic", HEAT), rows)
    texts = svg_texts(path)
    assert texts.count("n=200") == 4
    assert {"30.0", "31.0", "32.0", "33.0"} <= set(texts)


def test_a_cell_not_rated_is_blank() -> None:
    figure = sweep_plots.sweep_figure(Plotted("win_best", "classic", HEAT), rows_of("win_best", True)[:3])
    cells = [text.get_text() for text in figure.axes[0].texts]
    assert len(cells) == 6  # three rule sets, two lines each


def title_fits(figure: Figure) -> None:
    figure.draw_without_rendering()
    (title,) = figure.texts
    box, page = title.get_window_extent(), figure.bbox
    assert box.x0 >= 0 and box.x1 <= page.width and box.y1 <= page.height, (box, page)


@pytest.mark.parametrize("varies", [HEAT, HEAT[:1]], ids=["heatmap", "line"])
def test_a_long_variant_name_is_broken_into_lines_that_fit(varies: tuple[Vary, ...]) -> None:
    sweep = Plotted("hard", LONG_BASE, varies, seeds_text="1-100000")
    figure = sweep_plots.sweep_figure(sweep, rows_of("hard", False))
    title_fits(figure)
    text = figure.texts[0].get_text()
    title = sweep_plots.title_of(sweep, rows_of("hard", False))
    assert "".join(text.split()) == "".join(title.split())  # the same words, in lines
    assert text.count("\n") == 1  # broken once, after a comma of the name


def test_a_title_with_nowhere_to_break_is_shrunk() -> None:
    text, size = plots.fitted_title("x" * 200, 9, 12)
    assert (text, round(size, 2)) == ("x" * 200, round(0.94 * 9 * 72 / (0.72 * 200), 2))
    assert plots.fitted_title("short title", 9, 12) == ("short title", 12)
