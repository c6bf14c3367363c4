"""Shared by the players' game tests: a store with secret days around today, ``triples serve``
over it as a real process, and a small HTTP client that sends what a player's program sends."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from tests.helpers import SEED1
from triples import run
from triples.model.deal import seeded
from triples.model.variants import parse_variant
from triples.store import Deal, SecretDeal, open_store

START_TIMEOUT = 30
UNLIMITED = ["--player-rate", "1e6", "--address-rate", "1e6", "--new-players", "1e8"]


def day(offset: int) -> str:
    return (datetime.now(UTC).date() + timedelta(days=offset)).isoformat()


def secret_of(date: str, variant: str, deal: str, deck: list[str], band: str) -> SecretDeal:
    best, line = (output for output in run([["new", "g", deck, variant], ["solve", "g"]])[1].values())
    rating = run([["new", "g", deck, variant], ["rating", "g"]])[1]
    moves = tuple(tuple(move) for move in line)
    return SecretDeal(date, variant, deal, variant, tuple(deck), band, best, rating["fair"], rating["p_random"], moves)


def seed_deck(seed: int, variant: str = "classic") -> list[str]:
    return [card.code for card in seeded(parse_variant(variant), seed).deck]


@dataclass(frozen=True)
class Days:
    today: SecretDeal  # classic, the deck of seed 1 (the worked examples)
    today_sum15: SecretDeal
    yesterday: SecretDeal


def make_store(path: Path | str) -> Days:
    """``path``: a SQLite file, or a PostgreSQL database's URL."""
    days = Days(
        today=secret_of(day(0), "classic", "todayclass", list(SEED1), "medium"),
        today_sum15=secret_of(day(0), "sum15", "todaysum15", seed_deck(2, "sum15"), "easy"),
        yesterday=secret_of(day(-1), "classic", "yesterdayc", seed_deck(3), "easy"),
    )
    with open_store(str(path)) as store, store.writing() as db:
        store.add_secret_deals(db, [days.today, days.today_sum15, days.yesterday])
        # A seed day of another variant today, and one of classic after today.
        store.add_deals(db, [Deal(day(0), "pairs", 5, "pairs", "easy", 20, 20, 1.0)])
        store.add_deals(db, [Deal(day(1), "classic", 6, "classic", "easy", 30, 30, 0.5)])
    return days


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]


class Client:
    """One keep-alive connection to the server, as a player's program holds."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        raw: bytes | None = None,
        address: str | None = None,
    ) -> Reply:
        """``address``: the client address a proxy in front of the server would report."""
        headers = {"Content-Type": "application/json"}
        if address is not None:
            headers["X-Forwarded-For"] = address  # trusted from 127.0.0.1, as from a proxy there
        token = token if token is not None else self.token
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (None if body is None else orjson.dumps(body))
        try:
            self.connection.request(method, path, body=data, headers=headers)
            response = self.connection.getresponse()
        except (ConnectionError, http.client.HTTPException):
            self.connection.close()  # the server went away: the next request opens a new connection
            raise
        content = response.read()
        answer = orjson.loads(content) if content else None
        return Reply(response.status, answer, {name.lower(): value for name, value in response.getheaders()})

    def join(self, name: str) -> Reply:
        reply = self.send("POST", "/players", {"name": name}, token="")
        if reply.status == 201:
            self.token = reply.body["token"]
        return reply

    def close(self) -> None:
        self.connection.close()


def start(db: Path | str, *options: str, workers: int = 1) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--db", str(db), "--no-access-log",
         "--workers", str(workers), *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "TRIPLES_DB": ""},
    )  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        assert server.poll() is None, server.communicate()[1].decode()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return server, port
        except OSError:
            assert time.monotonic() < deadline, "triples serve did not answer in time"
            time.sleep(0.05)


def stop(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        server.send_signal(signal.SIGINT)
        try:
            server.communicate(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            server.kill()
            server.communicate()


@contextmanager
def serving(db: Path, *options: str, workers: int = 1) -> Iterator[int]:
    server, port = start(db, *options, workers=workers)
    try:
        yield port
    finally:
        stop(server)


def play_through(db: Path | str, deal: SecretDeal, name: str, moves: list[list[int]], now: int) -> int:
    """A player ``name`` who joined and played ``moves`` at ``deal`` straight into the store, from
    ``now`` (milliseconds) one second a move, as the service keeps them; the attempt's id."""
    from triples.model import rules
    from triples.model.deal import explicit_deck
    from triples.model.table import Move, Table

    variant = parse_variant(deal.spec)
    table = Table(variant, explicit_deck(variant, list(deal.deck)))
    with open_store(str(db)) as store:
        player = store.add_player(name, name.casefold(), f"hash of {name}", now)
        assert player is not None
        attempt, _ = store.start_attempt(player.id, deal.deal, now)
        for turn, slots in enumerate(moves):
            table.push(Move(tuple(slots)))
            over = not rules.has_legal_move(table)
            assert store.play_move(attempt.id, turn, slots, table.cleared, over, now + 1000 * (turn + 1))
    return attempt.id


def played_day(db: Path) -> SecretDeal:
    """Yesterday's classic deal (seed 37) with two finished attempts and one still going."""
    deal = secret_of(day(-1), "classic", "pastclass1", seed_deck(37), "hard")
    with open_store(str(db)) as store, store.writing() as connection:
        store.add_secret_deals(connection, [deal])
    best = run([["new", "g", list(deal.deck)], ["solve", "g"]])[1]["moves"]
    high = run([["new", "g", list(deal.deck)], ["autoplay", "g", "high"]])[1]["moves"]
    play_through(db, deal, "Sighted", best, 1_700_000_000_000)
    play_through(db, deal, "Blind", high, 1_700_000_100_000)
    play_through(db, deal, "Going", high[:2], 1_700_000_200_000)
    return deal
