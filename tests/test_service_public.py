"""``triples serve --public``: only what a player needs faces the internet. Real server processes
in both modes: every design route is a 404 on the public one, its page and files hold nothing
that reaches the interpreter, /metrics needs its token, and a whole game is played through it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.players_server import UNLIMITED, Client, Days, make_store, serving
from triples import run

TOKEN = "metrics-token-0123456789"
DESIGN = [
    ("POST", "/run", b'[["new","g",1],["fair_move","g"]]'),
    ("GET", "/metrics", None),
    ("GET", "/static/explorer.js", None),
    ("GET", "/static/triples.js", None),
    ("GET", "/static/rules.js", None),
    ("GET", "/static/pyramid.js", None),
    ("GET", "/static/quartets.js", None),
    ("GET", "/no/such/path", None),
]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Days]:
    path = tmp_path_factory.mktemp("public") / "game.db"
    return path, make_store(path)


@pytest.fixture(scope="module")
def public(store: tuple[Path, Days]) -> Iterator[int]:
    with serving(store[0], "--public", *UNLIMITED) as port:
        yield port


def test_every_design_route_is_a_404_on_the_public_service(public: int) -> None:
    client = Client(public)
    for method, path, body in DESIGN:
        reply = client.send(method, path, raw=body)
        assert (reply.status, reply.body) == (404, {"error": f"not found: {method} {path}"}), path
    assert client.send("GET", "/health").status == 200
    assert client.send("GET", "/daily/today").status == 200
    assert client.send("GET", "/leaderboard/today").status == 200


def test_the_public_page_and_its_files_hold_nothing_of_the_interpreter(public: int) -> None:
    client = Client(public)
    connection = client.connection
    connection.request("GET", "/")
    page = connection.getresponse().read().decode()
    assert "Today's challenge" in page or "today's challenge" in page
    files = re.findall(r'(?:src|href)="(static/[^"]+)"', page)
    assert sorted(files) == ["static/challenge.js", "static/common.js", "static/explorer.css"]
    texts = [page]
    for name in files:
        connection.request("GET", "/" + name)
        response = connection.getresponse()
        assert response.status == 200, name
        texts.append(response.read().decode())
    for text in texts:
        assert "/run" not in text and '"run"' not in text and 'fetch("run' not in text
        assert "solve" not in text and "fair_move" not in text and not re.search(r'id="[^"]*hint', text)


def test_the_public_openapi_page_documents_only_the_players_routes(public: int) -> None:
    schema = Client(public).send("GET", "/openapi.json").body
    assert sorted(schema["paths"]) == [
        "/daily/{day}",
        "/health",
        "/leaderboard/{day}",
        "/play",
        "/play/{attempt}",
        "/players",
    ]


def test_metrics_need_their_token(store: tuple[Path, Days]) -> None:
    with serving(store[0], "--public", "--metrics-token", TOKEN) as port:
        client = Client(port)
        refused = client.send("GET", "/metrics")
        assert (refused.status, refused.headers["www-authenticate"]) == (401, "Bearer")
        assert client.send("GET", "/metrics", token="wrong-token-0000000000").status == 401
        connection = client.connection
        connection.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        answered = connection.getresponse()
        assert answered.status == 200 and b"triples_requests_total" in answered.read()
    with serving(store[0], *UNLIMITED) as port:  # the team's service: its counters are open, /run there
        connection = Client(port).connection
        connection.request("GET", "/metrics")
        answered = connection.getresponse()
        assert answered.status == 200 and b"triples_requests_total" in answered.read()
        assert Client(port).send("POST", "/run", raw=b'[["new","g",1]]').status == 200


def test_a_whole_game_is_played_through_the_public_service(public: int, store: tuple[Path, Days]) -> None:
    days = store[1]
    player = Client(public)
    assert player.join("Grace").status == 201
    state = player.send("POST", "/play", {"variant": "classic"}).body
    assert state["table"] == list(days.today.deck[:10]) and state["rules"]["target"] == 20
    # The best line, as someone who knew the deck would play it (the test knows it; the player
    # is shown only the table).
    for turn, move in enumerate(days.today.line):
        reply = player.send("POST", f"/play/{state['attempt']}", {"move": list(move), "turn": turn})
        assert reply.status == 200, reply.body
        assert set(reply.body) == {
            "attempt",
            "date",
            "variant",
            "table",
            "stock",
            "cleared",
            "over",
            "turn",
            "moves",
            "rules",
        }
    assert reply.body["over"] and reply.body["cleared"] == days.today.best
    board = player.send("GET", "/leaderboard/today?variant=classic").body
    assert [(entry["name"], entry["cleared"]) for entry in board["entries"]] == [("Grace", days.today.best)]
    assert run([["new", "g", list(days.today.deck)], ["best", "g"]])[1] == days.today.best


def test_the_public_page_plays_in_a_browser_asking_only_the_players_routes(
    public: int, store: tuple[Path, Days]
) -> None:
    from playwright.sync_api import sync_playwright

    from tests.test_explorer import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, expect, skip_or_fail

    skip_or_fail()
    deck = list(store[1].today.deck)
    move = run([["new", "g", deck], ["moves", "g"]])[1][0]
    asked: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: asked.append(f"{request.method} {request.url.split(str(public), 1)[1]}"))
        page.goto(f"http://127.0.0.1:{public}/")
        page.fill("#ch-name", "Hopper")
        page.click("#ch-join-button")
        expect(page.locator("#ch-table .card")).to_have_count(10)
        expect(page.locator("#ch-goal")).to_have_text("Take 3 cards that add up to 20")
        for slot in move:
            page.locator(f'#ch-table .card[data-slot="{slot}"]').click()
        expect(page.locator("#ch-cleared")).to_have_text("3")
        browser.close()
    assert errors == []
    paths = sorted({re.sub(r"/play/\d+", "/play/{attempt}", line.split("?")[0]) for line in asked})
    assert paths == [
        "GET /",
        "GET /static/challenge.js",
        "GET /static/common.js",
        "GET /static/explorer.css",
        "POST /play",
        "POST /play/{attempt}",
        "POST /players",
    ]
