# ruff: noqa: F811  (the browser fixtures come from tests/test_explorer.py and are named as arguments)
"""The explorer's other games in a real browser (Chromium through Playwright, as in
tests/test_explorer.py, whose server and page fixtures these tests share): Uniscraper's pyramid
played by clicks and its best run against ``bestrun``, and Quartets' samples and errors
against the ``quartets`` operation."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers import SPEC_SECTION_9
from tests.test_explorer import browser, expect, laptop, page, server, settle  # noqa: F401 (fixtures)
from triples import run

FULL_DEAL = SPEC_SECTION_9[0][0]


def open_pyramid(page: Any, server: str, config: str = FULL_DEAL) -> None:
    page.goto(f"{server}/?game=uniscraper&config={config}")
    expect(page.locator("#py-best")).not_to_have_text("\u2013")
    settle(page)


def gone(page: Any) -> list[int]:
    positions: list[int] = page.locator("#pyramid .pcard.gone").evaluate_all(
        "cards => cards.map(card => Number(card.dataset.position))"
    )
    return positions


def play_card(page: Any) -> str:
    rank: str = page.locator("#play-card").get_attribute("data-rank")
    return rank


def address_config(page: Any) -> str:
    return parse_qs(urlsplit(page.url).query)["config"][0]


def take(config: str, *positions: int) -> str:
    """The config after taking these positions, as the page writes it (no trailing dots)."""
    cells = list(config[1:].ljust(36, "."))
    play = config[0]
    for position in positions:
        play, cells[position - 1] = cells[position - 1], "."
    return (play + "".join(cells)).rstrip(".")


def best_run_shown(page: Any) -> list[int]:
    numbered: list[list[int]] = page.locator("#pyramid .pcard:has(.run-step)").evaluate_all(
        "cards => cards.map(card => [Number(card.querySelector('.run-step').textContent),"
        " Number(card.dataset.position)])"
    )
    return [position for _, position in sorted(numbered)]


# ---------------------------------------------------------------- Uniscraper


def test_a_pyramid_is_played_by_clicks(page: Any, server: str) -> None:
    open_pyramid(page, server)
    assert page.locator("#pyramid .pcard").count() == 36 and gone(page) == []
    assert page.locator("#pyramid .pcard.covered").count() == 28  # rows 1 to 7
    assert play_card(page) == "6"
    # 35 holds a 5, one below the play card 6; 34 then holds a 6, one above the new play card.
    page.locator('.pcard[data-position="35"]').click()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "5")
    page.locator('.pcard[data-position="34"]').click()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "6")
    settle(page)
    assert gone(page) == [34, 35]
    assert page.locator("#py-gone").inner_text() == "2" and page.locator("#py-left").inner_text() == "34"
    config = take(FULL_DEAL, 35, 34)
    assert address_config(page) == config
    assert page.locator("#py-best").inner_text() == str(len(run([["bestrun", config]])[0]))


def test_a_card_that_cannot_be_taken_says_why_and_changes_nothing(page: Any, server: str) -> None:
    open_pyramid(page, server)
    page.locator('.pcard[data-position="28"]').click()  # the Q, under the 5 at 35 and the 4 at 36
    expect(page.locator("#py-message")).to_have_text("error: position 28 is covered by 35 and 36")
    page.locator('.pcard[data-position="36"]').click()  # a free 4, two ranks from the 6
    expect(page.locator("#py-message")).to_have_text("error: 4 is not one rank from the play card 6")
    assert (gone(page), play_card(page), address_config(page)) == ([], "6", FULL_DEAL)


def test_ranks_wrap_and_the_best_run_is_stepped_through(page: Any, server: str) -> None:
    config, best = SPEC_SECTION_9[3]  # A2A2KAK2: the A takes 2s and Ks alike
    open_pyramid(page, server, config)
    played = []
    for position in best:
        page.locator("#py-step").click()
        played.append(position)
        expect(page.locator("#py-gone")).to_have_text(str(36 - len(config) + 1 + len(played)))
        settle(page)
        assert address_config(page) == take(config, *played)
    assert gone(page) == sorted([*best, *range(len(config), 37)])
    assert play_card(page) == config[best[-1]]
    assert page.locator("#py-best").inner_text() == "0" and page.locator("#py-step").is_disabled()


def test_each_example_is_a_click_away_and_shows_its_best_run(page: Any, server: str) -> None:
    open_pyramid(page, server, "K")
    for config, best in SPEC_SECTION_9:
        page.locator(f'#view-uniscraper .example[data-config="{config}"]').click()
        expect(page.locator("#py-config")).to_have_value(config.rstrip(".") or config)  # "K." is "K"
        settle(page)
        if page.locator("#py-bestrun").get_attribute("aria-pressed") == "false":
            page.locator("#py-bestrun").click()
        expected = run([["bestrun", config]])[0]
        assert expected == best
        assert best_run_shown(page) == expected, config
        shown = page.locator("#py-run li[data-position]").evaluate_all(
            "items => items.map(item => Number(item.dataset.position))"
        )
        assert shown == expected, config
        assert page.locator("#py-best").inner_text() == str(len(expected))


def test_a_pasted_config_opens_or_shows_the_servers_error(page: Any, server: str) -> None:
    open_pyramid(page, server)
    for bad in ("KKKKK", ".K", "K1"):
        page.locator("#py-config").fill(bad)
        page.locator("#py-open").click()
        expect(page.locator("#py-message")).to_have_text(run([["bestrun", bad]])[0])
        assert address_config(page) == FULL_DEAL and gone(page) == []
    page.locator("#py-config").fill("kakja.tk..jq...q")
    page.locator("#py-open").click()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "K")
    settle(page)
    assert address_config(page) == "KAKJA.TK..JQ...Q"
    assert gone(page) == [5, 8, 9, 12, 13, 14, *range(16, 37)]


def test_a_new_play_card_is_drawn(page: Any, server: str) -> None:
    open_pyramid(page, server, "KJQKA2A")
    page.locator("#py-draw").select_option("9")
    page.locator("#py-draw-button").click()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "9")
    settle(page)
    assert address_config(page) == "9JQKA2A"
    assert page.locator("#py-best").inner_text() == str(len(run([["bestrun", "9JQKA2A"]])[0]))
    # Three Ks lie in the pyramid, so a fourth may come; the play card K makes a fifth.
    assert page.locator('#py-draw option[value="K"]').is_disabled() is False
    page.locator("#py-undo").click()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "K")


def test_the_address_reopens_the_position_and_enter_plays_a_card(page: Any, server: str) -> None:
    open_pyramid(page, server)
    page.locator('.pcard[data-position="33"]').focus()  # a 7, one above the 6
    page.keyboard.press("Enter")
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "7")
    settle(page)
    label = page.locator('.pcard[data-position="32"]').get_attribute("aria-label")
    assert label == "position 32: 8, free, playable"
    assert page.locator('.pcard[data-position="1"]').get_attribute("aria-label") == "position 1: king, covered"
    address = page.url
    page.reload()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "7")
    settle(page)
    assert (page.url, gone(page)) == (address, [33])
    page.go_back()
    expect(page.locator("#play-card")).to_have_attribute("data-rank", "6")


# ---------------------------------------------------------------- Quartets

SAMPLES = [
    ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3C no"],
    ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3B no", "1 A 4 5B yes", "1 Q 5"],
]


def open_quartets(page: Any, server: str) -> None:
    page.goto(f"{server}/?game=quartets")
    expect(page.locator("#qt-verdict")).not_to_have_text("")
    settle(page)


def listed(page: Any) -> list[str]:
    lines: list[str] = page.locator("#qt-actions .line").all_inner_texts()
    return lines


def test_each_quartets_sample_is_a_click_away(page: Any, server: str) -> None:
    open_quartets(page, server)
    for sample, actions in enumerate(SAMPLES):
        page.locator(f'#view-quartets .sample[data-sample="{sample}"]').click()
        expect(page.locator("#qt-actions .line")).to_have_count(len(actions))
        settle(page)
        verdict = run([["quartets", actions]])[0]
        assert listed(page) == actions
        certain = page.locator("#qt-actions .certain").evaluate_all(
            "items => items.map(item => Number(item.dataset.n))"
        )
        if sample == 0:
            assert verdict == {"cheated": True, "certain_after": 4}
            assert certain == [4]
            expect(page.locator("#qt-verdict")).to_have_text("Someone cheated: certain after action 4.")
        else:
            assert verdict == {"cheated": False}
            assert certain == []
            expect(page.locator("#qt-verdict")).to_have_text("Everyone may have played fair.")
            assert page.locator("#qt-actions .words").nth(5).inner_text() == "Player 1 puts down the quartet of set 5"
        words = page.locator("#qt-actions .words").all_inner_texts()
        assert words[:2] == [
            "Player 1 asks player 2 for 3C: no; player 2's turn",
            "Player 2 asks player 3 for 3A: yes, handed over",
        ]
        assert parse_qs(urlsplit(page.url).query)["actions"] == ["|".join(actions)]


def test_an_invalid_quartets_game_shows_the_operations_error(page: Any, server: str) -> None:
    open_quartets(page, server)
    actions = ["1 A 2 3C no", "1 A 2 3C no"]
    page.locator("#qt-input").fill("2\n" + "\n".join(actions))
    page.locator("#qt-check").click()
    error = run([["quartets", actions]])[0]
    assert error == "error: action 2: player 1 acts out of turn: it is player 2's turn"
    expect(page.locator("#qt-message")).to_have_text(error)
    assert page.locator("#qt-actions .invalid").evaluate_all("items => items.map(item => Number(item.dataset.n))") == [
        2
    ]


def test_quartets_json_input_and_a_miscounted_contest_input(page: Any, server: str) -> None:
    open_quartets(page, server)
    actions = SAMPLES[0]
    page.locator("#qt-input").fill(json.dumps(actions))
    page.locator("#qt-check").click()
    settle(page)
    assert listed(page) == actions
    verdict = run([["quartets", actions]])[0]
    expect(page.locator("#qt-verdict")).to_have_text(
        f"Someone cheated: certain after action {verdict['certain_after']}."
    )
    page.locator("#qt-input").fill("3\n1 A 2 3C no\n")
    page.locator("#qt-check").click()
    expect(page.locator("#qt-message")).to_have_text("error: 3 actions announced, 1 given")
    assert listed(page) == actions  # the last game stays


# ---------------------------------------------------------------- phone and laptop widths

DOCS = Path(__file__).resolve().parent.parent / "docs"
# TRIPLES_DOCS_SCREENSHOTS=1 writes the screenshots the docs page shows (docs/explorer-*.png).
WRITE_DOCS = os.environ.get("TRIPLES_DOCS_SCREENSHOTS") == "1"


def show_triples(tab: Any) -> None:
    tab.locator("#fair-hint").click()
    expect(tab.locator(".card.fair-hinted")).to_have_count(3)


def show_uniscraper(tab: Any) -> None:
    tab.locator("#py-bestrun").click()
    expect(tab.locator("#pyramid .run-step")).to_have_count(7)


def show_quartets(tab: Any) -> None:
    expect(tab.locator("#qt-actions .certain")).to_have_count(1)


SCREENS = {
    "triples": ("variant=classic&seed=3", show_triples),
    "uniscraper": (f"game=uniscraper&config={FULL_DEAL}", show_uniscraper),
    "quartets": ("game=quartets", show_quartets),
}


@pytest.mark.parametrize("width", [390, 1280])
def test_every_game_fits_a_phone_and_a_laptop(browser: Any, server: str, tmp_path: Path, width: int) -> None:
    context = browser.new_context(viewport={"width": width, "height": 844 if width == 390 else 800})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    try:
        for name, (query, show) in SCREENS.items():
            tab.goto(f"{server}/?{query}")
            expect(tab.locator("body")).not_to_have_class("busy")
            settle(tab)
            show(tab)
            settle(tab)
            assert tab.locator(f"#tab-{name}").get_attribute("aria-selected") == "true"
            assert tab.evaluate("document.documentElement.scrollWidth") <= width, name
            for card in tab.locator(".view:not([hidden]) :is(.card, .pcard)").all():
                box = card.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, name
            folder = DOCS if WRITE_DOCS else tmp_path
            tab.screenshot(path=str(folder / f"explorer-{name}-{width}.png"), full_page=True)
    finally:
        context.close()
