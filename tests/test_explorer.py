"""The deal explorer in a real browser: Debian's Chromium, driven by Playwright, against a
``triples serve`` the tests start on a free port.

Without Chromium (or Playwright) these tests skip, saying how to install it; with
TRIPLES_REQUIRE_BROWSER=1 (set by .ci/run) they fail instead. TRIPLES_CHROMIUM names another
browser binary. A test that fails leaves a screenshot of its last screen in its pytest temp dir.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import SEED1, SEED1_TABLE
from triples import run

CHROMIUM = os.environ.get("TRIPLES_CHROMIUM", "/usr/bin/chromium")
REQUIRED = os.environ.get("TRIPLES_REQUIRE_BROWSER") == "1"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WAIT_MS = 15_000
START_TIMEOUT = 30

AFTER_0_2_5 = ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"]
HIGH_ON_SEED_1 = [[0, 3, 6], [0, 6, 7], [0, 4, 5], [0, 3, 5]]


def missing_tools() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for module in ("playwright", "fastapi", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            return f"no module {module}: pip install -e '.[test]'"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}: install it with `apt-get install chromium` (or set TRIPLES_CHROMIUM)"
    return None


def skip_or_fail() -> None:
    reason = missing_tools()
    if reason is None:
        return
    if REQUIRED:
        pytest.fail(f"browser tests are required (TRIPLES_REQUIRE_BROWSER=1) but cannot run: {reason}", pytrace=False)
    pytest.skip(f"browser tests skipped: {reason}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def serving(*options: str) -> Iterator[str]:
    """``triples serve`` on a free port with these options, stopped with Ctrl-C afterwards."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--no-access-log", *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            assert process.poll() is None, process.communicate()[1].decode()
            try:
                with urllib.request.urlopen(f"{base}/health", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "triples serve did not answer in time"
                time.sleep(0.05)
        yield base
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.communicate(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    skip_or_fail()
    with serving() as base:
        yield base


@pytest.fixture(scope="module")
def browser(server: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def laptop(browser: Any) -> Iterator[Any]:
    """One laptop-sized browser context for the module's pages: the explorer keeps nothing in
    the browser (a game lives in the address and the server), so pages need no context each."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    yield context
    context.close()


@pytest.fixture
def page(laptop: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A fresh laptop-sized page; when its test fails, its last screen is saved as tmp_path/<test>.png."""
    tab = laptop.new_page()
    tab.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    report = getattr(request.node, "report_call", None)  # set by tests/conftest.py
    if report is None or report.failed:
        tab.screenshot(path=str(tmp_path / f"{request.node.name}.png"), full_page=True)
    tab.close()
    assert errors == [], "the page's script failed"


# ---------------------------------------------------------------- helpers


def expect(locator: Any) -> Any:
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def open_game(page: Any, server: str, query: str = "variant=classic&seed=1") -> None:
    page.goto(f"{server}/?{query}")
    expect(page.locator(".card")).not_to_have_count(0)
    settle(page)


def settle(page: Any) -> None:
    """Wait until the page has no request in flight."""
    page.wait_for_function("!document.body.classList.contains('busy')")


def table(page: Any) -> list[str | None]:
    codes: list[str] = page.locator(".card").evaluate_all("cards => cards.map(card => card.dataset.code)")
    return [code or None for code in codes]


def click_slots(page: Any, *slots: int) -> None:
    for slot in slots:
        page.locator(f'.card[data-slot="{slot}"]').click()
    settle(page)


def scores(page: Any) -> dict[str, str]:
    return {name: page.locator(f"#{name}").inner_text() for name in ("cleared", "stock", "best", "over")}


def history(page: Any) -> list[str]:
    slots: list[str] = page.locator("#history .slots").all_inner_texts()
    return slots


# ---------------------------------------------------------------- the tests


def test_seed_1_deals_the_worked_examples_table_as_cards(page: Any, server: str) -> None:
    open_game(page, server)
    assert table(page) == SEED1_TABLE
    assert scores(page) == {"cleared": "0", "stock": "42", "best": "48", "over": "no"}
    first = page.locator('.card[data-slot="0"]')
    assert first.locator(".corner.top").inner_text().split() == ["9", "♦"]
    assert first.locator(".face").get_attribute("class") == "face red"
    assert page.locator('.card[data-slot="4"] .face').get_attribute("class") == "face black"  # 3C
    assert page.locator("#goal").inner_text() == "Take 3 cards that add up to 20"


def test_clicking_slots_0_2_5_plays_the_worked_examples_move(page: Any, server: str) -> None:
    open_game(page, server)
    click_slots(page, 0, 2)
    assert page.locator(".card.selected").count() == 2
    assert page.locator("#selection").inner_text() == "9 + 4 = 13 of 20 · 2/3 picked"
    click_slots(page, 5)
    expect(page.locator("#cleared")).to_have_text("3")
    assert table(page) == AFTER_0_2_5
    assert scores(page) == {"cleared": "3", "stock": "39", "best": "48", "over": "no"}
    assert history(page) == ["0-2-5"]
    assert page.url.endswith("/?variant=classic&seed=1&moves=0-2-5")


def test_an_illegal_triple_shows_the_error_and_changes_nothing(page: Any, server: str) -> None:
    open_game(page, server)
    click_slots(page, 0, 1, 2)  # 9 + 1 + 4
    expect(page.locator("#message")).to_have_text("error: cards sum to 14, need 20")
    expect(page.locator(".card.selected")).to_have_count(0)
    assert table(page) == SEED1_TABLE
    assert scores(page)["cleared"] == "0"
    assert history(page) == []
    assert "moves=" not in page.url


def test_undo_takes_back_the_last_move(page: Any, server: str) -> None:
    open_game(page, server)
    click_slots(page, 0, 2, 5)
    expect(page.locator("#cleared")).to_have_text("3")
    page.locator("#undo").click()
    expect(page.locator("#cleared")).to_have_text("0")
    settle(page)
    assert table(page) == SEED1_TABLE
    assert history(page) == []
    assert page.locator("#undo").is_disabled()
    assert page.url.endswith("/?variant=classic&seed=1")


def test_hint_highlights_the_first_move_of_a_solve_line(page: Any, server: str) -> None:
    solved = run([["new", "g", 1], ["solve", "g"]])[1]
    open_game(page, server)
    page.locator("#hint").click()
    settle(page)
    hinted = page.locator(".card.hinted").evaluate_all("cards => cards.map(card => Number(card.dataset.slot))")
    assert hinted == solved["moves"][0]
    assert page.locator("#message").inner_text().startswith(f"hint: play slots {', '.join(map(str, hinted))}")
    assert table(page) == SEED1_TABLE  # a hint plays nothing


@pytest.mark.parametrize("strategy", ["high", "first", "fair"])
def test_autoplay_plays_to_the_end_with_the_chosen_strategy(page: Any, server: str, strategy: str) -> None:
    expected = run([["new", "g", 1], ["autoplay", "g", strategy], ["status", "g"]])
    open_game(page, server)
    page.locator("#strategy").select_option(strategy)
    page.locator("#autoplay").click()
    expect(page.locator("#over")).to_have_text("yes")
    settle(page)
    assert history(page) == ["-".join(map(str, move)) for move in expected[1]["moves"]]
    assert scores(page)["cleared"] == str(expected[2]["cleared"])
    if strategy == "high":  # the worked example of the high strategy
        assert expected[1]["moves"] == HIGH_ON_SEED_1
        assert (page.locator("#status").text_content() or "").split()[:2] == ["cleared", "12"]
    assert page.locator("#autoplay").is_disabled() and page.locator("#hint").is_disabled()


def test_reloading_the_address_reopens_the_same_game(page: Any, server: str, browser: Any) -> None:
    open_game(page, server)
    click_slots(page, 0, 2, 5)
    expect(page.locator("#cleared")).to_have_text("3")
    page.locator("#autoplay").click()
    expect(page.locator("#over")).to_have_text("yes")
    settle(page)
    seen = (table(page), scores(page), history(page))
    address = page.url
    page.reload()
    expect(page.locator(".card")).not_to_have_count(0)
    settle(page)
    assert (page.url, table(page), scores(page), history(page)) == (address, *seen)
    other = browser.new_page()
    try:
        other.goto(address)
        expect(other.locator("#over")).to_have_text("yes")
        settle(other)
        assert (table(other), scores(other), history(other)) == seen
    finally:
        other.close()


def test_a_pasted_deck_is_dealt_and_kept_in_the_address(page: Any, server: str) -> None:
    open_game(page, server, "variant=classic&seed=2")
    page.locator("#deck-toggle").click()
    page.locator("#deck").fill(" ".join(SEED1))
    page.locator("#deal-deck").click()
    expect(page.locator('.card[data-slot="0"]')).to_have_attribute("data-code", SEED1[0])
    settle(page)
    assert table(page) == SEED1_TABLE
    assert page.url.endswith("/?variant=classic&deck=" + ",".join(SEED1))
    click_slots(page, 0, 2, 5)
    expect(page.locator("#cleared")).to_have_text("3")
    page.reload()
    expect(page.locator("#cleared")).to_have_text("3")
    assert table(page) == AFTER_0_2_5


def test_a_phone_width_window_shows_the_whole_table(browser: Any, server: str, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    phone = context.new_page()
    try:
        open_game(phone, server, "variant=classic&seed=1&moves=0-2-5")
        assert table(phone) == AFTER_0_2_5
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390
        for slot in (0, 9):
            box = phone.locator(f'.card[data-slot="{slot}"]').bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        phone.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    finally:
        context.close()


# ---------------------------------------------------------------- how hard the deal is, fair hints


def rating_requests(page: Any) -> list[str]:
    """The bodies of POST /run that ask for the deal's rating, as the page sends them."""
    bodies: list[str] = []
    page.on("request", lambda request: bodies.append(request.post_data or "") if request.url.endswith("/run") else None)
    return bodies


def rating_shown(page: Any) -> dict[str, str]:
    return {name: page.locator(f"#{name}").inner_text() for name in ("band", "p-random", "fair-cleared")}


def test_the_deals_band_and_p_random_are_the_rating_operations_asked_once_per_deal(page: Any, server: str) -> None:
    bodies = rating_requests(page)
    open_game(page, server)
    rating = run([["new", "g", 1], ["rating", "g"]])[1]
    assert (rating["band"], rating["fair"]) == ("medium", 48)
    expected = {"band": rating["band"], "p-random": f"{rating['p_random']:.4f}", "fair-cleared": str(rating["fair"])}
    assert rating_shown(page) == expected
    click_slots(page, 0, 2, 5)
    expect(page.locator("#cleared")).to_have_text("3")
    page.locator("#undo").click()
    expect(page.locator("#cleared")).to_have_text("0")
    settle(page)
    assert rating_shown(page) == expected
    assert sum('["rating"' in body for body in bodies) == 1
    page.locator("#seed").fill("3")
    page.locator("#deal").click()
    expect(page.locator('.card[data-slot="0"]')).to_have_attribute("data-code", run([["new", "g", 3]])[0][0])
    settle(page)
    other = run([["new", "g", 3], ["rating", "g"]])[1]
    assert rating_shown(page) == {"band": other["band"], "p-random": f"{other['p_random']:.4f}", "fair-cleared": "48"}
    assert sum('["rating"' in body for body in bodies) == 2


def hinted_slots(page: Any, kind: str) -> list[int]:
    slots: list[int] = page.locator(f".card.{kind}").evaluate_all(
        "cards => cards.map(card => Number(card.dataset.slot))"
    )
    return slots


@pytest.mark.parametrize(("seed", "moves"), [(3, ""), (1, "0-2-5")])
def test_the_fair_hint_shows_the_fair_players_move_beside_the_best_lines(
    page: Any, server: str, seed: int, moves: str
) -> None:
    played = [[int(slot) for slot in move.split("-")] for move in moves.split(",") if move]
    expected = run([["new", "g", seed], *(["play", "g", move] for move in played), ["fair_move", "g"], ["solve", "g"]])
    fair_move, line = expected[-2], expected[-1]
    open_game(page, server, f"variant=classic&seed={seed}" + (f"&moves={moves}" if moves else ""))
    page.locator("#fair-hint").click()
    settle(page)
    assert hinted_slots(page, "fair-hinted") == fair_move
    assert hinted_slots(page, "hinted") == line["moves"][0]
    apart = fair_move != line["moves"][0]
    if seed == 3:
        assert (fair_move, line["moves"][0]) == ([2, 5, 6], [1, 4, 6])  # where seeing the stock matters
    tail = (
        f"the best line plays {', '.join(map(str, line['moves'][0]))}: here they part"
        if apart
        else "the best line plays the same"
    )
    expect(page.locator("#message")).to_have_text(f"fair hint: play slots {', '.join(map(str, fair_move))} · {tail}")
    assert page.locator(f'.card[data-slot="{fair_move[0]}"]').get_attribute("aria-label").endswith("fair hint)")
    assert len(history(page)) == len(played)  # a hint plays nothing


def test_the_variant_picker_offers_the_servers_variants(page: Any, server: str) -> None:
    open_game(page, server)
    options = page.locator("#variant option").evaluate_all("options => options.map(o => [o.value, o.textContent])")
    variants = run([["variants"]])[0]
    assert options == [[v["name"], f"{v['name']} ({v['per_move']} to {v['target']})"] for v in variants]
    page.locator("#variant").select_option("pairs")
    expect(page.locator("#goal")).to_have_text("Take 2 cards that add up to 14")


def test_enter_on_a_focused_card_picks_it(page: Any, server: str) -> None:
    open_game(page, server)
    for slot in (0, 2, 5):
        page.locator(f'.card[data-slot="{slot}"]').focus()
        page.keyboard.press("Enter")
    expect(page.locator("#cleared")).to_have_text("3")
    settle(page)
    assert table(page) == AFTER_0_2_5
    assert page.locator('.card[data-slot="0"]').get_attribute("aria-label") == "slot 0: 10S, worth 10"


# ---------------------------------------------------------------- rules of your own, the daily deal


def test_the_rules_form_deals_a_custom_variant_kept_in_the_address(page: Any, server: str) -> None:
    open_game(page, server)
    page.locator("#rules-toggle").click()
    page.locator("#rule-slots").fill("11")
    page.locator("#rule-target").fill("21")
    page.locator("#rules-deal").click()
    expect(page.locator(".card")).to_have_count(11)
    settle(page)
    rules = {"base": "classic", "slots": 11, "target": 21}
    assert table(page) == run([["new", "g", 1, rules]])[0]
    assert page.url.endswith("/?variant=classic&slots=11&target=21&seed=1")
    assert page.locator("#goal").inner_text() == "Take 3 cards that add up to 21"
    rating = run([["new", "g", 1, rules], ["rating", "g"]])[1]
    expect(page.locator("#band")).to_have_text(rating["band"])
    page.locator("#rule-slots").fill("0")
    page.locator("#rules-deal").click()
    refused = run([["new", "g", 1, {**rules, "slots": 0}]])[0]
    assert refused.startswith("error: bad variant: slots")
    expect(page.locator("#message")).to_have_text(refused)
    assert page.url.endswith("/?variant=classic&slots=11&target=21&seed=1")
    page.reload()
    expect(page.locator(".card")).to_have_count(11)


def test_daily_without_a_calendar_shows_the_services_message(page: Any, server: str) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server}/daily/today", timeout=5)
    assert refused.value.code == 404
    message = json.loads(refused.value.read())["error"]
    open_game(page, server)
    page.locator("#daily").click()
    expect(page.locator("#message")).to_have_text(f"error: daily: {message}")
    assert table(page) == SEED1_TABLE  # the game stays


def test_daily_opens_todays_deal_and_shows_its_band(browser: Any, tmp_path: Path) -> None:
    store = tmp_path / "ratings.db"
    today = datetime.now(UTC).date().isoformat()
    subprocess.run(
        [
            *(sys.executable, "-m", "triples", "calendar", "--variant", "classic", "--start", today, "--days", "1"),
            *("--pattern", "medium", "--seeds", "1-40", "--db", str(store), "--jobs", "1"),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    with serving("--db", str(store)) as base:
        with urllib.request.urlopen(f"{base}/daily/today", timeout=5) as response:
            daily = json.loads(response.read())
        tab = browser.new_page()
        try:
            open_game(tab, base, "variant=classic&seed=2")
            tab.locator("#daily").click()
            expect(tab.locator("#daily-note")).to_have_text(
                f"Daily deal of {today}: classic, seed {daily['seed']} · band {daily['band']} · best {daily['best']}"
            )
            settle(tab)
            assert daily["band"] == "medium"
            assert table(tab) == daily["table"]
            assert tab.url.endswith(f"/?variant=classic&seed={daily['seed']}")
            assert tab.locator("#band").inner_text() == daily["band"]
        finally:
            tab.close()


# ---------------------------------------------------------------- answers that come late, custom rules, losses


def test_a_later_deal_wins_over_a_slower_earlier_answer(page: Any, server: str) -> None:
    open_game(page, server)
    held: list[Any] = []

    def hold_the_first_pairs_deal(route: Any) -> None:
        if not held and '"pairs"' in (route.request.post_data or ""):
            held.append(route)  # answered only at the end: a slow answer under load
        else:
            route.continue_()

    page.route("**/run", hold_the_first_pairs_deal)
    page.locator("#variant").select_option("pairs")
    while not held:
        page.wait_for_timeout(20)
    page.locator("#seed").fill("5")
    page.locator("#deal").click()  # right after the variant change, its answer still to come
    expected = run([["new", "g", 5, "pairs"]])[0]
    expect(page.locator('.card[data-slot="0"]')).to_have_attribute("data-code", expected[0])
    held[0].continue_()
    settle(page)  # busy until the held answer is in and dealt with
    assert table(page) == expected
    assert page.url.endswith("/?variant=pairs&seed=5")
    assert page.locator("#goal").inner_text() == "Take 2 cards that add up to 14"


def test_the_picker_says_when_the_rules_are_custom(page: Any, server: str) -> None:
    open_game(page, server)
    chosen = page.locator("#variant option:checked")
    assert chosen.inner_text() == "classic (3 to 20)"
    page.locator("#rules-toggle").click()
    page.locator("#rule-target").fill("21")
    page.locator("#rules-deal").click()
    expect(chosen).to_have_text("classic, custom rules (3 to 21)")
    assert page.locator('#variant option[value="pairs"]').inner_text() == "pairs (2 to 14)"
    page.locator("#rules-reset").click()
    expect(chosen).to_have_text("classic (3 to 20)")
    settle(page)
    assert page.url.endswith("/?variant=classic&seed=1")


def test_the_historys_loss_marks_are_the_explain_operations(page: Any, server: str) -> None:
    bodies = rating_requests(page)
    explained = run([["new", "g", 1], ["play", "g", [0, 3, 6]], ["play", "g", [0, 4, 5]], ["explain", "g"]])[3]
    assert [(move["turn"], move["by"], move["lost"]) for move in explained["moves"]] == [(1, "played", 36)]
    open_game(page, server, "variant=classic&seed=1&moves=0-3-6,0-4-5")
    lost = page.locator("#history li.lost")
    expect(lost).to_have_count(1)
    assert lost.locator("em").inner_text() == "\u221236"  # a minus sign
    assert lost.locator(".step").inner_text() == "1"
    assert lost.get_attribute("title") == (
        "36 cards lost: the best line plays 0-2-5 (9D 4H 7H) here. Click to go back to just after this move"
    )
    assert page.locator("#history li").nth(1).get_attribute("class") == ""
    assert sum('["explain","g"]' in body for body in bodies) == 1
