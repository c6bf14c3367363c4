"""Two hosts, one PostgreSQL store: two ``triples serve`` processes on different ports over one
database of a private PostgreSQL server (tests/postgres_server.py), as two hosts behind a load
balancer. A player made on one plays on the other; a turn raced on both hosts at once is played
once; ``kill -9`` of a host in the middle of a game loses no answered move, and the other host
goes on from there; the leaderboard is the same from both. Without a server these tests skip
(or fail with TRIPLES_REQUIRE_POSTGRES=1)."""

from __future__ import annotations

import http.client
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.players_server import START_TIMEOUT, UNLIMITED, Client, Days, free_port, make_store, start, stop
from triples.store import open_store

if TYPE_CHECKING:
    from tests.postgres_server import Cluster


@dataclass
class Hosts:
    db: str
    days: Days
    ports: list[int]
    servers: list[subprocess.Popen[bytes]]


@pytest.fixture(scope="module")
def hosts(postgres: Cluster) -> Iterator[Hosts]:
    db = postgres.new_database()
    days = make_store(db)
    started = [start(db, *UNLIMITED) for _ in range(2)]
    try:
        yield Hosts(db, days, [port for _, port in started], [server for server, _ in started])
    finally:
        for server, _ in started:
            stop(server)


def joined(port: int, name: str) -> Client:
    client = Client(port)
    reply = client.join(name)
    assert reply.status == 201, reply.body
    return client


def test_a_player_made_on_one_host_plays_on_the_other(hosts: Hosts) -> None:
    one, other = hosts.ports
    token = joined(one, "Traveller").token
    assert joined(other, "Homebody").send("POST", "/players", {"name": "traveller"}, token="").status == 409
    on_other = Client(other, token)
    state = on_other.send("POST", "/play", {}).body
    on_one = Client(one, token)
    assert on_one.send("POST", "/play", {}).body == state  # one attempt, whichever host is asked
    line = hosts.days.today.line
    moved = on_one.send("POST", f"/play/{state['attempt']}", {"move": list(line[0]), "turn": 0})
    assert moved.status == 200
    assert on_other.send("GET", f"/play/{state['attempt']}").body == moved.body
    again = on_other.send("POST", f"/play/{state['attempt']}", {"move": list(line[0]), "turn": 0})
    assert (again.status, again.body) == (409, {"error": "turn 0 is not the attempt's turn (1): nothing was played"})


def raced(ports: list[int], token: str | None, path: str, body: Any, each: int) -> list[int]:
    """The statuses of ``each`` threads a host sending the same move at once, each on its connection."""
    clients = [Client(port, token) for port in ports for _ in range(each)]
    statuses: list[int] = []
    go = threading.Barrier(len(clients))

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


def test_a_turn_raced_on_both_hosts_is_played_once(hosts: Hosts) -> None:
    token = joined(hosts.ports[0], "Racer").token
    state = Client(hosts.ports[1], token).send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    line = hosts.days.today.line[:4]
    for turn, move in enumerate(line):
        assert sorted(raced(hosts.ports, token, path, {"move": list(move), "turn": turn}, 4)) == [200] + [409] * 7
    with open_store(hosts.db) as store:
        kept = store.moves_of(state["attempt"])
    assert [(move.turn, move.slots) for move in kept] == list(enumerate(line))


def test_kill_9_of_a_host_mid_game_loses_no_answered_move(hosts: Hosts) -> None:
    # A player plays on a host of its own, as fast as answers come; that host is killed with
    # SIGKILL while moves are in flight, and the player goes on on the other host.
    doomed, port = start(hosts.db, *UNLIMITED)
    client = joined(port, "Survivor")
    state = client.send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    line = hosts.days.today.line
    answered: list[dict[str, Any]] = []
    killed = threading.Event()

    def play() -> None:
        for turn, move in enumerate(line):
            try:
                reply = client.send("POST", path, {"move": list(move), "turn": turn})
            except (OSError, http.client.HTTPException):  # the host is gone
                return
            assert reply.status == 200, reply.body
            answered.append(reply.body)
            if turn == 5:
                killed.set()  # moves are still going when the kill lands

    player = threading.Thread(target=play)
    player.start()
    try:
        assert killed.wait(30)
        doomed.kill()
        doomed.wait()
    finally:
        player.join()
        stop(doomed)
    assert len(answered) >= 6
    survivor = Client(hosts.ports[1], client.token)
    kept = survivor.send("GET", path).body
    # Every answered move is kept; one more may be, committed before its answer could leave.
    assert kept["turn"] in (len(answered), len(answered) + 1)
    assert kept["moves"][: len(answered)] == answered[-1]["moves"]
    for turn in range(kept["turn"], len(line)):  # the game goes on on the other host
        reply = survivor.send("POST", path, {"move": list(line[turn]), "turn": turn})
        assert reply.status == 200, reply.body
    final = survivor.send("GET", path).body
    assert (final["over"], final["cleared"], final["moves"]) == (True, hosts.days.today.best, [list(m) for m in line])


def test_the_leaderboard_is_the_same_from_both_hosts(hosts: Hosts) -> None:
    line = hosts.days.today.line
    for n, name in enumerate(["Fast", "Slow", "Short"]):
        client = joined(hosts.ports[n % 2], name)
        path = f"/play/{client.send('POST', '/play', {}).body['attempt']}"
        moves = line if name != "Short" else line[:3]
        for turn, move in enumerate(moves):  # the moves alternate between the hosts
            mover = Client(hosts.ports[turn % 2], client.token)
            assert mover.send("POST", path, {"move": list(move), "turn": turn}).status == 200
            mover.close()
    boards = [Client(port).send("GET", "/leaderboard/today") for port in hosts.ports]
    assert [board.status for board in boards] == [200, 200]
    assert boards[0].body == boards[1].body
    names = [entry["name"] for entry in boards[0].body["entries"]]
    assert {"Fast", "Slow"} <= set(names) and "Short" not in names  # Short has not finished
    assert {entry["cleared"] for entry in boards[0].body["entries"]} == {hosts.days.today.best}


def test_serve_refuses_a_database_it_cannot_use_in_one_line(postgres: Cluster) -> None:
    db = postgres.url("nosuchdb")
    done = subprocess.run(
        [sys.executable, "-m", "triples", "serve", "--port", str(free_port()), "--db", db],
        capture_output=True, text=True, timeout=START_TIMEOUT,
    )  # fmt: skip
    socket = f"{postgres.folder}/.s.PGSQL.5432"
    reason = f'connection to server on socket "{socket}" failed: FATAL: database "nosuchdb" does not exist'
    assert (done.returncode, done.stdout, done.stderr) == (
        2, "", f"triples serve: error: argument --db: {db}: cannot open: connection failed: {reason}\n"
    )  # fmt: skip


def test_a_host_whose_connection_was_cut_answers_503_once_then_goes_on(hosts: Hosts, postgres: Cluster) -> None:
    # Last in the module: every host's connections are cut, as a restart of the server cuts them.
    client = joined(hosts.ports[0], "Cut")
    state = client.send("POST", "/play", {}).body
    path = f"/play/{state['attempt']}"
    cut = "SELECT count(pg_terminate_backend(pid)) > 0 FROM pg_stat_activity"
    assert postgres.psql(f"{cut} WHERE datname = current_database() AND pid <> pg_backend_pid()", hosts.db) == "t\n"
    for port in hosts.ports:
        on_host = Client(port, client.token)
        first = on_host.send("GET", path)
        assert first.status == 503 and first.body["error"].startswith(f"--db {hosts.db}: "), first.body
        assert "\n" not in first.body["error"]
        assert on_host.send("GET", path).body == state  # a fresh connection
