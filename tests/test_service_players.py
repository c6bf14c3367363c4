"""The players' game through real ``triples serve`` processes (triples/doors/service/players.py and
game.py): joining and tokens, attempts and moves with every status, what ``/daily`` and the
leaderboard show while a day lasts and once it has ended, threads racing on one turn across two
worker processes, ``kill -9`` and a restart, and the rate limits."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.players_server import UNLIMITED, Client, Days, day, make_store, played_day, serving, start, stop
from triples import run
from triples.store import open_store

RULE = "a name is 1 to 24 letters, digits, spaces, '-', '_' or '.', not starting or ending with a space"


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path, Days]]:
    db = tmp_path_factory.mktemp("players") / "game.db"
    days = make_store(db)
    with serving(db, *UNLIMITED, workers=2) as port:
        yield port, db, days


def joined(port: int, name: str) -> Client:
    client = Client(port)
    assert client.join(name).status == 201
    return client


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_no_stock_card(state: dict[str, Any], deck: tuple[str, ...]) -> None:
    """Every card code in the answer has been drawn: the table's, or a card already taken."""
    drawn = set(deck[: 10 + 3 * state["turn"]])
    assert [code for code in strings(state) if code in deck and code not in drawn] == []


def test_joining_shows_the_token_once_and_keeps_only_its_hash(game: tuple[int, Path, Days]) -> None:
    port, db, _ = game
    client = Client(port)
    reply = client.join("Ada")
    assert reply.status == 201 and set(reply.body) == {"player", "name", "token"}
    assert reply.body["name"] == "Ada" and len(reply.body["token"]) >= 22  # 128 bits or more, base64
    assert reply.headers["content-type"] == "application/json"
    with sqlite3.connect(db) as store:
        kept = store.execute("SELECT name, token_hash FROM players WHERE id = ?", (reply.body["player"],)).fetchone()
    assert kept == ("Ada", hashlib.sha256(reply.body["token"].encode()).hexdigest())
    assert reply.body["token"].encode() not in b"".join(path.read_bytes() for path in db.parent.glob("game.db*"))
    assert Client(port).join("aDA").body == {"error": "the name 'aDA' is taken"}


@pytest.mark.parametrize(
    ("body", "status", "error"),
    [
        ({"name": "<b>x</b>"}, 400, RULE),
        ({"name": ""}, 400, RULE),
        ({"name": "x" * 25}, 400, RULE),
        ({"name": " Ada"}, 400, RULE),
        ({"name": 7}, 400, RULE),
        ({"nom": "Ada"}, 400, 'expected {"name": NAME}'),
        ([], 400, 'expected {"name": NAME}'),
    ],
    ids=["html", "empty", "too-long", "leading-space", "number", "no-name", "not-an-object"],
)
def test_names_are_checked(game: tuple[int, Path, Days], body: Any, status: int, error: str) -> None:
    reply = Client(game[0]).send("POST", "/players", body)
    assert (reply.status, reply.body) == (status, {"error": error})


def test_names_of_letters_of_any_script_digits_and_dots_are_fine(game: tuple[int, Path, Days]) -> None:
    for name in ("Zoë-2_.x y", "Łukasz", "李小龙", "x" * 24):
        reply = Client(game[0]).join(name)
        assert (reply.status, reply.body["name"]) == (201, name)


def test_invalid_json_and_large_bodies_are_refused(game: tuple[int, Path, Days]) -> None:
    client = Client(game[0])
    reply = client.send("POST", "/players", raw=b'{"name": ')
    assert reply.status == 400 and reply.body["error"].startswith("invalid JSON: ")
    reply = client.send("POST", "/players", raw=b'{"name": "' + b"x" * 5000 + b'"}')
    assert (reply.status, reply.body) == (413, {"error": "request body over 4096 bytes"})


@pytest.mark.parametrize("token", [None, "", "not-a-token"], ids=["missing", "empty", "wrong"])
@pytest.mark.parametrize(("method", "path"), [("POST", "/play"), ("GET", "/play/1"), ("POST", "/play/1")])
def test_play_needs_a_known_token(game: tuple[int, Path, Days], method: str, path: str, token: str | None) -> None:
    client = Client(game[0])
    body = {"move": [0, 2, 5], "turn": 0} if path != "/play" else {}
    if token is None:
        reply = client.send(method, path, body)
        error = "no token: send Authorization: Bearer TOKEN"
    else:
        reply = client.send(method, path, body, token=token or " ")
        error = "unknown token" if token else "no token: send Authorization: Bearer TOKEN"
    assert (reply.status, reply.body, reply.headers["www-authenticate"]) == (401, {"error": error}, "Bearer")


def test_an_attempt_starts_once_and_shows_no_stock_card(game: tuple[int, Path, Days]) -> None:
    port, _, days = game
    client = joined(port, "Starter")
    first = client.send("POST", "/play", {})
    assert first.status == 201
    assert first.body == {
        "attempt": first.body["attempt"],
        "date": day(0),
        "variant": "classic",
        "table": list(days.today.deck[:10]),
        "stock": 42,
        "cleared": 0,
        "over": False,
        "turn": 0,
        "moves": [],
        "rules": {"name": "classic", "slots": 10, "per_move": 3, "target": 20, "deck": "standard",
                  "court": [10, 10, 10], "suits": 4},
    }  # fmt: skip
    again = client.send("POST", "/play")  # no body at all counts as {}
    assert (again.status, again.body) == (200, first.body)
    other = client.send("POST", "/play", {"variant": "sum15"})
    assert other.status == 201 and other.body["variant"] == "sum15" and other.body["attempt"] != first.body["attempt"]
    assert other.body["table"] == list(days.today_sum15.deck[:9])
    assert client.send("POST", "/play", {"variant": "quads"}).body == {
        "error": f"no secret daily deal of quads today ({day(0)})"
    }
    assert client.send("POST", "/play", {"variant": 3}).status == 400
    assert client.send("POST", "/play", {"colour": "red"}).body == {"error": 'expected {} or {"variant": NAME}'}


def test_moves_the_rules_refuse_stale_turns_and_others_attempts(game: tuple[int, Path, Days]) -> None:
    port, _, days = game
    client = joined(port, "Mover")
    state = client.send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    refusals = [
        ({"move": [0, 1, 2], "turn": 0}, 422, "cards sum to 14, need 20"),
        ({"move": [0, 2], "turn": 0}, 422, "pick exactly 3 cards"),
        ({"move": [0, 2, 99], "turn": 0}, 422, "position out of range"),
        ({"move": [0, 2, 5], "turn": 1}, 409, "turn 1 is not the attempt's turn (0): nothing was played"),
        ({"move": [0, 2, 5]}, 400, 'expected {"move": [slots...], "turn": T}'),
        ({"move": [0, 2, 5], "turn": -1}, 400, 'expected {"move": [slots...], "turn": T}'),
        ({"move": [0, 2, 5], "turn": True}, 400, 'expected {"move": [slots...], "turn": T}'),
    ]
    for body, status, error in refusals:
        reply = client.send("POST", path, body)
        assert (reply.status, reply.body) == (status, {"error": error}), body
    assert client.send("GET", path).body == state  # nothing changed
    played = client.send("POST", path, {"move": [5, 2, 0], "turn": 0})
    assert played.status == 200
    assert played.body["table"] == ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"]  # the worked example
    assert (played.body["turn"], played.body["cleared"], played.body["stock"], played.body["moves"]) == (
        1, 3, 39, [[0, 2, 5]]
    )  # fmt: skip
    assert_no_stock_card(played.body, days.today.deck)
    again = client.send("POST", path, {"move": [0, 2, 5], "turn": 0})  # a retry after a lost answer
    assert again.status == 409 and client.send("GET", path).body == played.body
    stranger = joined(port, "Stranger")
    for method, body in (("GET", None), ("POST", {"move": [1, 3, 4], "turn": 1})):
        reply = stranger.send(method, path, body)
        assert (reply.status, reply.body) == (404, {"error": f"no attempt {state['attempt']} of yours"})
    for unknown in ("999999", "abc", "-1", "1" * 30):
        assert stranger.send("GET", f"/play/{unknown}").body == {"error": f"no attempt {unknown} of yours"}


def test_a_whole_game_the_leaderboard_and_the_end_of_the_game(game: tuple[int, Path, Days]) -> None:
    port, _, days = game
    client = joined(port, "Perfect")
    state = client.send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    for turn, move in enumerate(days.today.line):
        assert_no_stock_card(state, days.today.deck)
        reply = client.send("POST", path, {"move": list(move), "turn": turn})
        assert reply.status == 200, reply.body
        state = reply.body
    assert (state["over"], state["cleared"], state["turn"]) == (True, days.today.best, len(days.today.line))
    late = client.send("POST", path, {"move": [0, 1, 2], "turn": state["turn"]})
    assert (late.status, late.body) == (409, {"error": "the attempt is over: no move is left"})
    board = Client(port).send("GET", "/leaderboard/today").body
    assert "best" not in board  # the day has not ended
    assert (board["date"], board["variant"]) == (day(0), "classic")
    assert board["started"] >= board["finished"] >= 1
    entry = next(entry for entry in board["entries"] if entry["name"] == "Perfect")
    assert (entry["cleared"], entry["moves"]) == (days.today.best, len(days.today.line))
    assert entry["rank"] == 1 and isinstance(entry["seconds"], float)
    assert Client(port).send("GET", f"/leaderboard/{day(0)}?variant=sum15").body["entries"] == []


def test_what_daily_shows_while_a_day_lasts_and_once_it_has_ended(game: tuple[int, Path, Days]) -> None:
    port, _, days = game
    client = Client(port)
    live = client.send("GET", "/daily/today").body
    assert live == {"date": day(0), "variant": "classic", "band": "medium", "table": list(days.today.deck[:10])}
    ended = client.send("GET", f"/daily/{day(-1)}").body
    assert ended == {
        "date": day(-1),
        "variant": "classic",
        "band": "easy",
        "table": list(days.yesterday.deck[:10]),
        "deck": list(days.yesterday.deck),
        "best": days.yesterday.best,
        "line": [list(move) for move in days.yesterday.line],
    }
    seeded = client.send("GET", "/daily/today?variant=pairs").body  # a seed day keeps its answer
    assert seeded == {"date": day(0), "variant": "pairs", "seed": 5, "band": "easy", "best": 20,
                      "table": run([["new", "g", 5, "pairs"]])[0]}  # fmt: skip
    for path in (f"/daily/{day(1)}", f"/leaderboard/{day(1)}", "/daily/2999-01-01"):
        reply = client.send("GET", path)
        assert (reply.status, reply.body) == (404, {"error": "not published yet"}), path
    board = client.send("GET", f"/leaderboard/{day(-1)}").body
    assert board == {"date": day(-1), "variant": "classic", "started": 0, "finished": 0,
                     "best": days.yesterday.best, "entries": []}  # fmt: skip
    assert client.send("GET", "/leaderboard/2026-02-30").status == 400


def test_an_ended_day_takes_no_more_moves(game: tuple[int, Path, Days]) -> None:
    port, db, days = game
    client = joined(port, "Latecomer")
    with open_store(str(db)) as store:  # an attempt started yesterday, before midnight
        player = store.player_with_token(hashlib.sha256(str(client.token).encode()).hexdigest())
        assert player is not None
        attempt, _ = store.start_attempt(player.id, days.yesterday.deal, 0)
    reply = client.send("POST", f"/play/{attempt.id}", {"move": list(days.yesterday.line[0]), "turn": 0})
    assert (reply.status, reply.body) == (409, {"error": f"the daily deal of {day(-1)} has ended: no more moves"})
    assert client.send("GET", f"/play/{attempt.id}").body["turn"] == 0


def test_run_cannot_reach_a_secret_deal(game: tuple[int, Path, Days]) -> None:
    port, _, days = game
    reply = Client(port).send("POST", "/run", [["new", "g", days.today.deal], ["new", "h", "today"]])
    assert reply.status == 200 and all(output.startswith("error: ") for output in reply.body)


def raced(port: int, token: str | None, path: str, body: Any, count: int) -> list[int]:
    """The statuses of ``count`` threads sending the same move at once, each on its connection."""
    clients = [Client(port, token) for _ in range(count)]
    statuses: list[int] = []
    go = threading.Barrier(count)

    def send(client: Client) -> None:
        go.wait()
        statuses.append(client.send("POST", path, body).status)

    threads = [threading.Thread(target=send, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for client in clients:
        client.close()
    return statuses


def test_threads_racing_on_one_turn_play_one_move(game: tuple[int, Path, Days]) -> None:
    port, db, days = game
    token = joined(port, "Racer").token
    state = Client(port, token).send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    for turn, move in enumerate(days.today.line[:4]):
        assert sorted(raced(port, token, path, {"move": list(move), "turn": turn}, 8)) == [200] + [409] * 7
    with open_store(str(db)) as store:
        kept = store.moves_of(state["attempt"])
    assert [(move.turn, move.slots) for move in kept] == list(enumerate(days.today.line[:4]))


def test_after_kill_9_and_a_restart_the_attempt_goes_on(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    days = make_store(db)
    server, port = start(db, *UNLIMITED)
    try:
        client = joined(port, "Survivor")
        state = client.send("POST", "/play", {}).body
        path = f"/play/{state['attempt']}"
        for turn, move in enumerate(days.today.line[:3]):
            state = client.send("POST", path, {"move": list(move), "turn": turn}).body
        server.kill()  # SIGKILL: no shutdown of any kind
        server.wait()
        client.close()
        server, port = start(db, *UNLIMITED)
        client = Client(port, client.token)
        assert client.send("GET", path).body == state
        assert client.send("POST", "/play", {}).body == state
        reply = client.send("POST", path, {"move": list(days.today.line[3]), "turn": 3})
        assert reply.status == 200 and reply.body["turn"] == 4
    finally:
        stop(server)


def test_past_the_rates_requests_wait_with_retry_after(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    make_store(db)
    # One new player every half hour after a burst of 2; one request every 100 s for a player.
    with serving(db, "--player-rate", "0.01", "--address-rate", "1000", "--new-players", "2") as port:
        statuses = [Client(port).join(f"N{i}").status for i in range(3)]
        assert statuses == [201, 201, 429]
        refused = Client(port).send("POST", "/players", {"name": "N9"})
        assert refused.body == {"error": f"too many requests: try again in {refused.headers['retry-after']} s"}
        assert 1700 <= int(refused.headers["retry-after"]) <= 1800
        client = Client(port)
        client.token = Client(port).send("POST", "/players", {"name": "N9"}, token="").body.get("token")
        assert client.token is None  # still refused
    # Each limit a burst of 1 and then 1 request every 100 s; addresses as a proxy reports them.
    with serving(db, "--player-rate", "0.01", "--address-rate", "0.01") as port:
        client = Client(port)
        assert client.send("POST", "/players", {"name": "Quick"}, address="10.0.0.1").status == 201
        client.token = client.send("POST", "/players", {"name": "Quick"}, address="10.0.0.1").body.get("token")
        assert client.token is None  # that address has had its request
        client = Client(port)
        client.token = client.send("POST", "/players", {"name": "Quick2"}, address="10.0.0.2").body["token"]
        assert client.send("POST", "/play", {}, address="10.0.0.3").status == 201
        refused = client.send("GET", "/play/1", address="10.0.0.4")  # a new address, the same player
        assert (refused.status, refused.body["error"], refused.headers["retry-after"]) == (
            429, "too many requests: try again in 100 s", "100"
        )  # fmt: skip
        stranger = Client(port).send("POST", "/play", {}, address="10.0.0.3")  # counted before the token
        assert (stranger.status, stranger.headers["retry-after"]) == (429, "100")


def test_an_ended_days_leaderboard_marks_what_the_audit_found(tmp_path: Path) -> None:
    db = tmp_path / "game.db"
    played_day(db)  # yesterday: "Sighted" played the best line, "Blind" high's game, "Going" is not done
    with serving(db) as port:
        client = Client(port)
        board = client.send("GET", f"/leaderboard/{day(-1)}").body
        # No audit yet: the entries have no mark, and the server audits them in the background.
        assert [(e["name"], e["cleared"], "suspect" in e) for e in board["entries"]] == [
            ("Sighted", 42, False),
            ("Blind", 18, False),
        ]
        deadline = time.monotonic() + 60
        while not all("suspect" in entry for entry in board["entries"]):
            assert time.monotonic() < deadline, "the audit did not land"
            time.sleep(0.1)
            board = client.send("GET", f"/leaderboard/{day(-1)}").body
        assert [(e["name"], e["suspect"]) for e in board["entries"]] == [("Sighted", True), ("Blind", False)]
        assert (board["started"], board["finished"], board["best"]) == (3, 2, 42)
    with open_store(str(db)) as store:
        assert sorted(record.verdict for record in store.audits_of("pastclass1").values()) == ["blind", "suspect"]
