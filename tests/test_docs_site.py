"""The docs site as mkdocs builds it (mkdocs.yml, docs/): it asks no other host for anything, its
search finds the Python API reference's names, and the pages that list the commands list them
all. The examples on the pages are tests/test_docs.py's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest

from triples.doors.cli import COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BUILD_SECONDS = 120


class Requests(HTMLParser):
    """The addresses a page makes the browser fetch by itself: scripts, images, frames, media,
    and linked files (stylesheets, fonts, preconnects, icons). Links a reader may follow (``<a
    href>``, a canonical ``<link>``) fetch nothing."""

    SOURCES: ClassVar[dict[str, str]] = {"script": "src", "img": "src", "iframe": "src", "source": "src",
                                         "video": "src", "audio": "src", "embed": "src", "object": "data",
                                         "input": "src"}  # fmt: skip
    NOT_FETCHED = frozenset({"canonical", "alternate", "author", "license", "me", "prev", "next", "search"})

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "link" and not set(values.get("rel", "").split()) <= self.NOT_FETCHED:
            self.found.append(values.get("href", ""))
        elif tag in self.SOURCES:
            self.found.append(values.get(self.SOURCES[tag], ""))
        if "srcset" in values:
            self.found += [part.split()[0] for part in values["srcset"].split(",") if part.strip()]
        style = values.get("style", "")
        self.found += re.findall(r"url\(\s*['\"]?([^'\")]+)", style)


def is_elsewhere(address: str) -> bool:
    return re.match(r"^(https?:)?//", address.strip()) is not None


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("mkdocs", reason="the docs site needs the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="the docs site needs the docs extra: pip install -e '.[docs]'")
    built = tmp_path_factory.mktemp("site")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(built)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return built


def test_no_page_asks_another_host_for_anything(site: Path) -> None:
    asked: dict[str, list[str]] = {}
    pages = sorted(site.glob("**/*.html"))
    assert len(pages) > len(list(DOCS.glob("*.md")))  # every page, and the 404 page
    for page in pages:
        parser = Requests()
        parser.feed(page.read_text(encoding="utf-8"))
        asked[str(page.relative_to(site))] = [address for address in parser.found if is_elsewhere(address)]
    for sheet in sorted(site.glob("**/*.css")):
        text = sheet.read_text(encoding="utf-8")
        addresses = re.findall(r"url\(\s*['\"]?([^'\")]+)", text) + re.findall(r"@import\s+['\"]([^'\"]+)", text)
        asked[str(sheet.relative_to(site))] = [address for address in addresses if is_elsewhere(address)]
    assert {name: found for name, found in asked.items() if found} == {}


def test_the_request_finder_finds_what_a_theme_with_fonts_asks_for() -> None:
    parser = Requests()
    parser.feed(
        '<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>'
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        '<link rel="canonical" href="https://example.org/page/"><a href="https://example.org/">a link</a>'
        '<script src="//cdn.example.org/x.js"></script><img src="local.png" srcset="a.png 1x, https://e.org/b.png 2x">'
    )
    assert [address for address in parser.found if is_elsewhere(address)] == [
        "https://fonts.gstatic.com",
        "https://fonts.googleapis.com/css?family=Roboto",
        "//cdn.example.org/x.js",
        "https://e.org/b.png",
    ]


def test_searching_the_site_finds_the_api_reference(site: Path) -> None:
    index: dict[str, Any] = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    found = {entry["location"] for entry in index["docs"] if entry["title"] == "OperationTimedOut"}
    assert found == {"api/#triples.api.OperationTimedOut"}
    text = next(entry["text"] for entry in index["docs"] if entry["location"] == "api/#triples.api.run")
    assert "time_limit" in text and "OperationTimedOut" in text


def test_the_theme_asks_no_font_service() -> None:
    assert re.search(r"^theme:\n(?:  .*\n)*?  font: false$", (ROOT / "mkdocs.yml").read_text(), re.MULTILINE)


def test_the_tour_and_the_command_lines_table_list_every_command() -> None:
    tour = (DOCS / "tour.md").read_text(encoding="utf-8")
    headings = " ".join(line for line in tour.splitlines() if line.startswith("## "))
    table = (DOCS / "command-line.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `triples (\w+)", table, re.MULTILINE))
    for name in COMMANDS:
        assert f"`{name}`" in headings, f"the tour has no section on {name}"
        ran = re.search(rf"^\$ (.*\| )?triples {name}\b", tour, re.MULTILINE)
        assert ran, f"the tour never runs {name}"
        assert name in listed, f"command-line.md's table leaves out {name}"
