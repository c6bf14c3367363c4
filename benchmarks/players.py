"""The players' game under load: N synthetic players at once through the real HTTP API.

For each worker count of --workers (1 and 2), a fresh copy of one secret calendar's store
(today's deal made by `triples calendar --secret`) is served by `triples serve --db
--workers W` on a free loopback port, with the rate limits raised out of the way. With --db
URL (a PostgreSQL database), the same runs follow on PostgreSQL with --hosts server processes
(2 by default, one worker each, as hosts behind a load balancer), each run on a fresh copy of
the calendar in a schema of its own in that database (made and dropped by the script): each
player's first connection goes to one host and its second to the next, so its raced moves
race across hosts. Then --players synthetic players join (POST /players), start their attempt
(two POST /play at once, as a double-clicking client: both must name the same attempt) and
play to the end, each on keep-alive connections of a minimal HTTP/1.1 client written on asyncio streams (a client
library would cost more CPU than the server, on the same two cores). Each move is a random
move of the table the last answer showed (the highest cards, as a greedy player would take
them); a share of them (--race) is sent twice at once
on two connections, as a client that retries at once would: exactly one must be played.

Printed per run: moves/s over the play phase, p50/p99 move latency, the CPU the server's
processes used a move (and PostgreSQL's, when its server runs on this machine), and what the
store holds afterwards against what the answers said: lost moves (answered, not in the store),
duplicated moves (in the store, answered to no one, or a turn played twice) and double attempts
(a player with two attempts at the day's deal, or two POST /play naming different ones). The
goal on the project's 2-core machine: 200 players at once, at least 1,000 moves/s, p99 at
most 50 ms; the three counts must be 0.

    python benchmarks/players.py [--players N] [--workers 1,2] [--race F] [--db URL [--hosts N]]

Exit status 1 when a requirement is not met. Other figures on the same stores can be added as
more reports: see ``REPORTS``.

    python benchmarks/players.py --populations [--days N] [--players-per-population M] [--variants V,...]

is another mode: populations of synthetic players of known skill play a secret calendar of many
past days through the same API, and the audit and calibration are measured on their games
(``players_populations.py`` says how; ``--populations --help`` gives its options).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import orjson
from processes import descendants
from serve import HOST, Connection, cpu_seconds, free_port, healthy, stop_server

from triples.model.variants import parse_variant
from triples.store import open_store, shown

START_TIMEOUT = 60
GOAL_PLAYERS = 200
GOAL_MOVES_PER_SECOND = 1000
GOAL_P99_MS = 50
UNLIMITED = ("--player-rate", "1e6", "--address-rate", "1e6", "--new-players", "1e8")


# ---------------------------------------------------------------- the store and the server


def make_calendar(directory: Path, variant: str) -> Path:
    """A store with today's secret deal of ``variant``: an easy one where the greedy players
    clear at least three quarters of the deck, so that each plays a long game."""
    store = directory / "calendar.db"
    today = time.strftime("%Y-%m-%d", time.gmtime())
    long_game = str(3 * parse_variant(variant).deck_size // 4)
    done = subprocess.run(
        [sys.executable, "-m", "triples", "calendar", "--secret", "--db", str(store), "--variant", variant,
         "--start", today, "--days", "1", "--pattern", "easy", "--min-best", long_game, "--jobs", "1"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"triples calendar --secret failed: {done.stderr}")
    return store


def copy_store(source: Path, target: Path) -> Path:
    """A copy made with SQLite's online backup, as an operator backs up a live store."""
    with sqlite3.connect(source) as origin, sqlite3.connect(target) as copy:
        origin.backup(copy)
    return target


def copy_to_postgres(source: Path, url: str, schema: str) -> str:
    """A copy of the calendar in a new schema of the PostgreSQL database at ``url``: the URL of
    the store in it (the schema first on its search path)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
    store_url = url + ("&" if "?" in url else "?") + f"options=-csearch_path%3D{schema}"
    with open_store(str(source)) as calendar, open_store(store_url) as store, store.writing() as db:
        today = time.strftime("%Y-%m-%d", time.gmtime())
        store.add_secret_deals(db, calendar.secret_deals_on(today))
    return store_url


def drop_schemas(url: str, schemas: list[str]) -> None:
    import psycopg

    from triples.store import close_pools

    close_pools()  # this process's connections to the stores
    with psycopg.connect(url, autocommit=True) as connection:
        for schema in schemas:
            connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def database_pids(url: str) -> set[int]:
    """The processes of the PostgreSQL server at ``url`` when it runs on this machine (its
    postmaster and every child), to count their CPU; empty otherwise."""
    import psycopg

    with psycopg.connect(url) as connection:
        row = connection.execute("SELECT pg_backend_pid()").fetchone()
    try:
        stat = Path(f"/proc/{row[0] if row else 0}/stat").read_text()
    except OSError:
        return set()
    postmaster = int(stat.rsplit(")", 1)[1].split()[1])
    return {postmaster, *descendants(postmaster)}


def start_server(
    store: str, port: int, workers: int, launcher: Sequence[str] = ("-m", "triples")
) -> subprocess.Popen[bytes]:
    """``triples serve`` on ``store`` (``launcher``: how Python starts the command), once healthy."""
    server = subprocess.Popen(
        [sys.executable, *launcher, "serve", "--host", HOST, "--port", str(port), "--db", store,
         "--workers", str(workers), "--no-access-log", *UNLIMITED],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + START_TIMEOUT
    while not healthy(port):
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: {server.communicate()[1].decode()}")
        time.sleep(0.05)
    return server


# ---------------------------------------------------------------- a player


def request(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> bytes:
    data = b"" if body is None else orjson.dumps(body)
    head = f"{method} {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Length: {len(data)}\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    return (head + "\r\n").encode() + data


class Rules:
    """What a player needs to pick a legal move from the table it is shown."""

    def __init__(self, variant_name: str) -> None:
        variant = parse_variant(variant_name)
        self.per_move, self.target = variant.per_move, variant.target
        self.value = {card.code: variant.card_values[card] for card in variant.cards}

    def high(self, table: list[str | None], rng: random.Random) -> list[int]:
        """A move as a greedy player picks it, seeing only the table: the highest cards it can
        take (ties at random). Games last longer than with random moves: more moves to time."""
        moves = self.moves(table)
        rng.shuffle(moves)
        return max(moves, key=lambda move: sorted((self.value[str(table[slot])] for slot in move), reverse=True))

    def moves(self, table: list[str | None]) -> list[list[int]]:
        filled = [(slot, self.value[code]) for slot, code in enumerate(table) if code is not None]
        return [
            [slot for slot, _ in combo]
            for combo in combinations(filled, self.per_move)
            if sum(value for _, value in combo) == self.target
        ]


@dataclass
class Played:
    """What the answers told one player."""

    player: int = 0
    attempt: int = 0
    attempts_named: set[int] = field(default_factory=set)
    answered: list[list[int]] = field(default_factory=list)  # the moves answered 200, in turn order
    latencies: list[float] = field(default_factory=list)  # seconds, each move request
    doubly_played: int = 0  # a raced turn answered 200 twice
    errors: list[str] = field(default_factory=list)


async def play(
    ports: tuple[int, int], rules: Rules, name: str, race: float, rng: random.Random, ready: Barrier, interval: float
) -> Played:
    """One player's game, its two connections to ``ports`` (one host twice, or two hosts);
    ``interval``: seconds from one move to the next (0: at once)."""
    played = Played()
    port = ports[0]
    first, second = await Connection.open(ports[0]), await Connection.open(ports[1])
    try:
        joined = await first.send(request(port, "POST", "/players", {"name": name}))
        player = orjson.loads(joined.body)
        played.player, token = player["player"], player["token"]
        starts = await asyncio.gather(
            first.send(request(port, "POST", "/play", {}, token)),
            second.send(request(port, "POST", "/play", {}, token)),
        )
        states = [orjson.loads(answer.body) for answer in starts]
        played.attempts_named = {state["attempt"] for state in states}
        state = states[0]
        played.attempt = state["attempt"]
        path = f"/play/{played.attempt}"
        await ready.wait()  # every player has joined and started: the moves are timed from here
        due = time.perf_counter() + rng.uniform(0, interval)  # spread out, not all on one beat
        while not state["over"]:
            if interval:
                await asyncio.sleep(max(0.0, due - time.perf_counter()))
                due += interval * rng.uniform(0.5, 1.5)
            move = rules.high(state["table"], rng)
            data = request(port, "POST", path, {"move": move, "turn": state["turn"]}, token)
            started = time.perf_counter()
            if rng.random() < race:
                answers = list(await asyncio.gather(first.send(data), second.send(data)))
            else:
                answers = [await first.send(data)]
            played.latencies.append(time.perf_counter() - started)
            good = [answer for answer in answers if answer.status == 200]
            refused = [answer for answer in answers if answer.status != 200]
            if len(good) > 1:
                played.doubly_played += 1
            if not good or any(answer.status != 409 for answer in refused):
                played.errors.append(f"{[a.status for a in answers]}: {answers[0].body.decode()[:200]}")
                return played
            state = orjson.loads(good[0].body)
            played.answered.append(sorted(move))
    finally:
        first.close()
        second.close()
    return played


def server_cpu(pids: set[int]) -> float:
    """CPU seconds used so far by the servers ``pids`` and their worker processes."""
    total = 0.0
    for process in {*pids, *(child for pid in pids for child in descendants(pid))}:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # gone meanwhile
            total += cpu_seconds(process)
    return total


class Barrier:
    """Released when ``count`` players wait at it; ``released`` is when, ``cpu`` the CPU seconds
    of the servers (and of the database's processes) then."""

    def __init__(self, count: int, servers: set[int], database: set[int]) -> None:
        self.count = count
        self.servers = servers
        self.database = database
        self.event = asyncio.Event()
        self.released = 0.0
        self.cpu = (0.0, 0.0)

    def cpu_now(self) -> tuple[float, float]:
        return server_cpu(self.servers), server_cpu(self.database) if self.database else 0.0

    async def wait(self) -> None:
        self.count -= 1
        if self.count == 0:
            self.released = time.perf_counter()
            self.cpu = self.cpu_now()
            self.event.set()
        await self.event.wait()


async def play_all(
    ports: list[int],
    processes: tuple[set[int], set[int]],
    rules: Rules,
    players: int,
    race: float,
    seed: int,
    pace: float | None,
) -> tuple[list[Played], float, tuple[float, float]]:
    """Every player at once, player i on host i and i + 1 (of ``ports``), all moves offered
    together at ``pace`` moves/s (None: each player moves as soon as its last move is answered);
    the seconds from the first move to the last answer, and the CPU seconds the servers and the
    database (``processes``) used meanwhile."""
    rng = random.Random(seed)
    ready = Barrier(players, *processes)
    interval = 0.0 if pace is None else players / pace
    results = await asyncio.gather(
        *(
            play(
                (ports[i % len(ports)], ports[(i + 1) % len(ports)]), rules, f"p{seed}-{i}", race,
                random.Random(rng.random()), ready, interval,
            )
            for i in range(players)
        )
    )  # fmt: skip
    cpu = ready.cpu_now()
    return list(results), time.perf_counter() - ready.released, (cpu[0] - ready.cpu[0], cpu[1] - ready.cpu[1])


# ---------------------------------------------------------------- what the store says


@dataclass(frozen=True)
class Setup:
    """Where a run's store is and how many server processes serve it."""

    backend: str  # sqlite or postgresql
    hosts: int
    workers: int  # a host


@dataclass
class Figures:
    setup: Setup
    pace: float | None
    players: int
    moves: int
    seconds: float
    cpu_seconds: float  # the servers', all their processes
    database_cpu_seconds: float  # PostgreSQL's processes (on this machine); 0 on SQLite
    p50_ms: float
    p99_ms: float
    lost: int
    duplicated: int
    double_attempts: int
    errors: list[str]

    @property
    def per_second(self) -> float:
        return self.moves / self.seconds


def checked(
    store_path: str, results: list[Played], setup: Setup, pace: float | None, seconds: float, cpu: tuple[float, float]
) -> Figures:
    latencies = sorted(latency for played in results for latency in played.latencies)
    lost = duplicated = double = 0
    with open_store(store_path) as store:
        today = time.strftime("%Y-%m-%d", time.gmtime())
        deal = store.secret_deals_on(today)[0]
        attempts = store.attempts_of(deal.deal)
        by_player: dict[int, list[int]] = {}
        for attempt in attempts:
            by_player.setdefault(attempt.player, []).append(attempt.id)
        double = sum(len(ids) - 1 for ids in by_player.values())
        for played in results:
            double += len(played.attempts_named) - 1
            kept = [list(move.slots) for move in store.moves_of(played.attempt)]
            turns = [move.turn for move in store.moves_of(played.attempt)]
            lost += sum(1 for turn, move in enumerate(played.answered) if turn >= len(kept) or kept[turn] != move)
            duplicated += max(0, len(kept) - len(played.answered)) + played.doubly_played
            duplicated += len(turns) - len(set(turns))
    moves = sum(len(played.answered) for played in results)
    errors = [error for played in results for error in played.errors]
    p50 = statistics.median(latencies) * 1000 if latencies else 0.0
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000 if latencies else 0.0
    return Figures(setup, pace, len(results), moves, seconds, *cpu, p50, p99, lost, duplicated, double, errors)


@dataclass
class Place:
    """Where the runs' stores go: a folder for SQLite files and, with --db, a PostgreSQL database."""

    directory: Path
    database: str | None
    schemas: list[str] = field(default_factory=list)  # made in it, dropped at the end

    def store(self, calendar: Path, setup: Setup, pace: float | None) -> str:
        """A fresh copy of the calendar for a run."""
        name = f"{setup.backend}_{setup.hosts}x{setup.workers}_{'flat' if pace is None else int(pace)}"
        if setup.backend == "sqlite":
            return str(copy_store(calendar, self.directory / f"{name}.db"))
        assert self.database is not None
        schema = f"players_bench_{os.getpid()}_{name}"
        self.schemas.append(schema)
        return copy_to_postgres(calendar, self.database, schema)


def run_once(
    calendar: Path, place: Place, setup: Setup, players: int, race: float, variant: str, pace: float | None
) -> Figures:
    store = place.store(calendar, setup, pace)
    servers = []
    try:
        for _ in range(setup.hosts):
            port = free_port()
            servers.append((start_server(store, port, setup.workers), port))
        processes = (
            {server.pid for server, _ in servers},
            database_pids(store) if setup.backend != "sqlite" else set(),
        )
        ports = [port for _, port in servers]
        results, seconds, cpu = asyncio.run(
            play_all(ports, processes, Rules(variant), players, race, setup.workers, pace)
        )
    finally:
        for server, _ in servers:
            stop_server(server)
    return checked(store, results, setup, pace, seconds, cpu)


def label(figures: Figures) -> str:
    how = "flat out" if figures.pace is None else f"paced at {figures.pace:,.0f} moves/s"
    setup = figures.setup
    hosts = f"{setup.hosts} hosts x " if setup.hosts > 1 else ""
    return f"{setup.backend}, {hosts}workers {setup.workers}, {how}"


# Reports on each run's figures, in order; a later measure (on the same stores) adds its own.
REPORTS: list[Callable[[Figures], str]] = [
    lambda f: (
        f"{label(f)}: {f.players} players, {f.moves} moves in {f.seconds:.2f} s: "
        f"{f.per_second:,.0f} moves/s, move latency p50 {f.p50_ms:.1f} ms, p99 {f.p99_ms:.1f} ms, "
        f"server CPU {1000 * f.cpu_seconds / max(1, f.moves):.2f} ms a move"
        + (
            f", PostgreSQL CPU {1000 * f.database_cpu_seconds / max(1, f.moves):.2f} ms a move"
            if f.setup.backend == "postgresql"
            else ""
        )
    ),
    lambda f: (
        f"{label(f)}: lost moves {f.lost}, duplicated moves {f.duplicated}, "
        f"double attempts {f.double_attempts}, failed requests {len(f.errors)}"
        + (f" (first: {f.errors[0]})" if f.errors else "")
    ),
]


def failures(figures: Figures) -> list[str]:
    """What the run misses: any lost, duplicated or refused move or doubled attempt; with the
    goal's number of players, flat out under the goal's moves/s, or paced at the goal's moves/s
    a p99 over the goal's (flat out, every player waits on its last answer, so latency is the
    line of 200 requests and says nothing of a player's wait at a given load)."""
    failed = []
    if figures.lost or figures.duplicated or figures.double_attempts or figures.errors:
        failed.append(f"{label(figures)}: moves lost, duplicated or refused, or attempts doubled")
    if figures.players < GOAL_PLAYERS:
        return failed
    if figures.pace is None and figures.per_second < GOAL_MOVES_PER_SECOND:
        failed.append(f"{label(figures)}: {figures.per_second:,.0f} moves/s, goal {GOAL_MOVES_PER_SECOND:,}")
    if figures.pace is not None and figures.p99_ms > GOAL_P99_MS:
        failed.append(f"{label(figures)}: p99 {figures.p99_ms:.1f} ms, goal {GOAL_P99_MS} ms")
    return failed


def main() -> int:
    if "--populations" in sys.argv[1:]:  # populations of known skill over many days: a mode of its own
        from players_populations import main as populations

        return populations(sys.argv[1:])
    with contextlib.suppress(ImportError):  # the serve extra's event loop: the players cost less CPU on it
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=GOAL_PLAYERS, help="players at once (default 200)")
    parser.add_argument(
        "--workers", default="1,2", help="server processes on SQLite, a comma list (default 1,2; '': no SQLite run)"
    )
    parser.add_argument("--race", type=float, default=0.1, help="share of moves sent twice at once (default 0.1)")
    parser.add_argument("--variant", default="classic", help="the deal's variant (default classic)")
    parser.add_argument(
        "--pace",
        type=float,
        default=GOAL_MOVES_PER_SECOND,
        help=f"moves/s offered by all players together in the paced runs (default {GOAL_MOVES_PER_SECOND})",
    )
    parser.add_argument(
        "--db", metavar="URL", help="a PostgreSQL database (postgresql://...) to run on too, beside SQLite"
    )
    parser.add_argument("--hosts", type=int, default=2, help="server hosts on PostgreSQL, one worker each (default 2)")
    parser.add_argument(
        "--populations", action="store_true", help="the populations mode instead (its options: --populations --help)"
    )
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="players-bench-"))
    place = Place(directory, args.db)
    setups = [Setup("sqlite", 1, int(part)) for part in args.workers.split(",") if part]  # "": none
    if args.db is not None:
        setups.append(Setup("postgresql", args.hosts, 1))
        print(f"PostgreSQL: {shown(args.db)}", flush=True)
    failed: list[str] = []
    # Other work on the machine takes cores from the server and the players alike: say how much.
    print(f"load average before the runs: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    try:
        calendar = make_calendar(directory, args.variant)
        for setup in setups:
            for pace in (None, args.pace):
                figures = run_once(calendar, place, setup, args.players, args.race, args.variant, pace)
                for report in REPORTS:
                    print(report(figures), flush=True)
                failed += failures(figures)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        if args.db is not None and place.schemas:
            drop_schemas(args.db, place.schemas)
    goal = (
        f"goal: {GOAL_PLAYERS} players, >= {GOAL_MOVES_PER_SECOND:,} moves/s flat out, "
        f"p99 <= {GOAL_P99_MS} ms paced at {GOAL_MOVES_PER_SECOND:,} moves/s, 0 lost"
    )
    print(f"{goal}: " + ("all requirements met" if not failed else "not met: " + "; ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
