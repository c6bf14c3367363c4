"""``--plot FILE`` (triples/doors/rating/plots.py): PNG and SVG files with the titles and panels asked
for, refusals before any rating, and the message when matplotlib is missing."""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import pytest

from triples.doors import cli
from triples.doors.kit.exits import BadInput
from triples.doors.rating import Row, Summary, plots
from triples.model.variants import parse_variant

SVG = "{http://www.w3.org/2000/svg}"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def summary_of(with_difficulty: bool) -> Summary:
    summary = Summary(parse_variant("sum15"), "high")
    bands = ["easy", "medium", "hard", "easy"]
    for seed, (autoplay, best, fair) in enumerate([(36, 36, 36), (30, 36, 36), (24, 33, 30), (21, 27, 27)]):
        extra: dict[str, int | float | str] = {}
        if with_difficulty:
            extra = {"fair": fair, "p_random": seed / 4, "band": bands[seed]}
        summary.add(Row(seed, autoplay, best, best - autoplay, best == 36, 10, 1.0, extra=extra))
    return summary


def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """The (type, body) of every chunk, each checked against its CRC."""
    assert data[:8] == PNG_MAGIC
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert zlib.crc32(kind + body) == crc
        chunks.append((kind, body))
        at += 12 + length
    return chunks


def svg_texts(path: Path) -> list[str]:
    root = ET.parse(path).getroot()
    return [text for element in root.iter(f"{SVG}text") for text in ["".join(element.itertext())] if text]


def test_png_is_a_whole_png_with_the_title_in_its_metadata(tmp_path: Path) -> None:
    path = tmp_path / "rate.png"
    plots.write_plot(str(path), summary_of(True), "seeds 0-3")
    chunks = png_chunks(path.read_bytes())
    assert (chunks[0][0], chunks[-1][0]) == (b"IHDR", b"IEND")
    width, height = struct.unpack(">II", chunks[0][1][:8])
    assert (width, height) == (10 * plots.DPI, 7.5 * plots.DPI)
    texts = dict(body.split(b"\0", 1) for kind, body in chunks if kind == b"tEXt")
    assert texts[b"Title"] == b"sum15, seeds 0-3 (4 deals)"


def test_svg_holds_the_titles_and_labels_as_text(tmp_path: Path) -> None:
    path = tmp_path / "rate.svg"
    plots.write_plot(str(path), summary_of(True), "seeds 0-3")
    texts = svg_texts(path)
    for expected in [
        "sum15, seeds 0-3 (4 deals)",
        "Cards cleared per deal",
        "cards cleared (of 36)",
        "best play (mean 33.00)",
        "high (mean 27.75)",
        "fair (mean 32.25)",
        "Chance that random moves reach best (p_random), by difficulty band",
        "easy: 50.0% of deals, mean 0.375",
        "hard: 25.0% of deals, mean 0.500",
    ]:
        assert expected in texts


def test_without_difficulty_there_is_one_panel_and_no_fair(tmp_path: Path) -> None:
    path = tmp_path / "rate.svg"
    plots.write_plot(str(path), summary_of(False), "seeds 0-3")
    texts = svg_texts(path)
    assert "Cards cleared per deal" in texts
    assert not [text for text in texts if "fair" in text or "p_random" in text]


def test_rate_draws_the_plot_after_its_rows(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "triples", "rate", "--variant", "pairs", "--seeds", "1-6", "--plot", "pairs.svg",
         "--jobs", "1"],
        capture_output=True, text=True, cwd=tmp_path, timeout=300, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    assert "pairs, seeds 1-6 (6 deals)" in svg_texts(tmp_path / "pairs.svg")


@pytest.mark.parametrize(
    ("plot", "message"),
    [
        pytest.param("rate.pdf", "--plot rate.pdf: expected a file name ending in .png or .svg", id="pdf"),
        pytest.param("rate", "--plot rate: expected a file name ending in .png or .svg", id="no-extension"),
        pytest.param("nowhere/rate.png", "--plot nowhere/rate.png: no such directory nowhere", id="no-directory"),
    ],
)
def test_a_plot_that_cannot_be_written_is_refused_before_rating(
    plot: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli.main(["rate", "--variant", "sum15", "--seeds", "1-3", "--plot", plot]) == 2
    assert capsys.readouterr() == ("", f"triples rate: error: {message}\n")


def test_upper_case_extensions_are_accepted() -> None:
    assert plots.plot_format("RATE.SVG") == "svg"
    assert plots.plot_format("rate.Png") == "png"


def test_without_matplotlib_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["rate", "--variant", "sum15", "--seeds", "1-3", "--plot", "rate.png"]) == 2
    hint = "pip install 'triples-solitaire[plot]'"
    assert capsys.readouterr() == ("", f"triples rate: error: --plot needs matplotlib: {hint}\n")
    # And at drawing time too, should it vanish in between.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(BadInput, match=r"^--plot needs matplotlib: pip install 'triples-solitaire\[plot\]'$"):
        plots.write_plot(str(tmp_path / "rate.png"), summary_of(False), "seeds 1-3")


def test_a_long_variant_name_in_the_title_is_broken_into_lines_that_fit() -> None:
    variant = parse_variant("classic(slots=11,per_move=4,target=31,court=11/12/13,suits=3)")
    summary = Summary(variant, "lookahead")
    summary.add(Row(1, 8, 12, 4, False, 10, 1.0))
    figure = plots.plot_figure(summary, "seeds 1000000-1999999")
    figure.draw_without_rendering()
    (title,) = figure.texts
    box = title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width and box.y1 <= figure.bbox.height
    assert title.get_text() == (
        "classic(slots=11,per_move=4,target=31,court=11/12/13,suits=3), seeds\n1000000-1999999 (1 deals)"
    )
