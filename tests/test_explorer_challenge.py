"""Today's challenge in a real browser (triples/doors/service/static/challenge.js): Debian's Chromium,
driven by Playwright, against a ``triples serve --db`` over a store with a secret deal today.

A whole game is played by clicking cards, and every response the page receives is recorded:
none holds a card of the stock before it is drawn. The name is asked once (a refused one says
why), the token stays in the browser, the page plays only through /play (its one other request
is the rules of the variants), and the leaderboard shows at the end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.players_server import UNLIMITED, Days, make_store, serving
from tests.test_explorer import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, expect, settle, skip_or_fail
from triples.doors.service.pages import STATIC_FILES


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Days]]:
    skip_or_fail()
    db = tmp_path_factory.mktemp("challenge") / "game.db"
    days = make_store(db)
    with serving(db, *UNLIMITED) as port:
        yield f"http://127.0.0.1:{port}", days


@pytest.fixture(scope="module")
def browser(served: tuple[str, Days]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def test_a_whole_game_never_receives_a_card_before_it_is_drawn(
    browser: Any, served: tuple[str, Days], tmp_path: Path
) -> None:
    base, days = served
    deck = days.today.deck
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    received: list[Any] = []
    errors: list[str] = []
    page.on("response", lambda response: received.append(response))
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"{base}/?game=challenge")
        expect(page.locator("#ch-join")).to_be_visible()
        page.locator("#ch-name").fill("<b>x</b>")
        page.locator("#ch-join-button").click()
        settle(page)
        expect(page.locator("#ch-message")).to_have_text(
            "error: a name is 1 to 24 letters, digits, spaces, '-', '_' or '.', not starting or ending with a space"
        )
        page.locator("#ch-name").fill("Ada Lovelace")
        page.locator("#ch-join-button").click()
        expect(page.locator("#ch-table .card")).to_have_count(10)
        settle(page)
        assert page.locator("#ch-who").inner_text() == f"Playing as Ada Lovelace · classic, {days.today.date}"
        assert page.locator("#view-challenge button", has_text="Undo").count() == 0
        assert page.locator("#view-challenge button", has_text="Hint").count() == 0
        for turn, move in enumerate(days.today.line):
            for slot in move:
                page.locator(f'#ch-table .card[data-slot="{slot}"]').click()
            expect(page.locator("#ch-turn")).to_have_text(str(turn + 1))
            settle(page)
        assert page.locator("#ch-cleared").inner_text() == str(days.today.best)
        assert page.locator("#ch-over").inner_text() == "yes"
        expect(page.locator("#ch-board li")).to_have_count(1)
        assert page.locator("#ch-board .name").inner_text() == "Ada Lovelace"
        assert page.locator("#ch-board .cleared").inner_text() == f"{days.today.best} cleared"
        token = page.evaluate("JSON.parse(localStorage.getItem('triples.player')).token")

        # Every JSON answer the page received, in order: no card past what was drawn by then.
        turn = 0
        paths: list[str] = []
        for response in received:
            path = response.url.removeprefix(base)
            paths.append(f"{response.request.method} {path.split('?')[0]}")
            if "application/json" not in (response.headers.get("content-type") or ""):
                continue
            body = json.loads(response.body())
            assert path != "/run"  # the players' view asks only the players' routes
            if isinstance(body, dict) and isinstance(body.get("turn"), int):
                turn = max(turn, body["turn"])
            drawn = set(deck[: 10 + 3 * turn])
            assert [code for code in strings(body) if code in deck and code not in drawn] == [], path
        asked = {re.sub(r"/play/[0-9]+$", "/play/N", path) for path in paths}
        assert asked - {"GET /", *(f"GET /static/{name}" for name in STATIC_FILES)} == {
            "POST /players", "POST /play", "POST /play/N", f"GET /leaderboard/{days.today.date}"
        }  # fmt: skip

        # Back later: the token is remembered, no name is asked, the game and the board come back.
        page.reload()
        expect(page.locator("#ch-board li")).to_have_count(1)
        assert page.locator("#ch-join").is_hidden()
        assert page.evaluate("JSON.parse(localStorage.getItem('triples.player')).token") == token
        assert page.locator("#ch-over").inner_text() == "yes"
    except BaseException:
        page.screenshot(path=str(tmp_path / "challenge.png"), full_page=True)
        raise
    finally:
        context.close()
    assert errors == [], "the page's script failed"
