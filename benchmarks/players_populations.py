"""The players' game played by populations of known skill: ``python benchmarks/players.py --populations``.

A secret calendar of --days past days per variant (``triples calendar --secret``, bands
easy, medium, hard in turn) is played day after day through the real HTTP API (POST /players,
POST /play, POST /play/{attempt}) by --players-per-population synthetic players of each
population of ``triples.engines.populations`` (random, high, lookahead, fair, high-slips,
fair-slips, mixed) and by a sighted population that plays the deal's best line: one attempt per
player per day and variant. The service only plays today's deal, so each server runs
``triples serve`` with the date it sees (the players' routes' ``today``) read from a file the
benchmark sets to each day in turn; nothing else of the service is changed.

- Blind players see only what the service answers: the table and the moves, from which they
  rebuild the cards dealt so far (``populations.seen_table``); their stock is never read.
- The sighted player is the simplest honest cheater: it knows the deck (the benchmark reads it
  from the store, as a second account that had played the deal first would have learned it)
  and plays the line ``solve`` finds on it.
- The random players play in a store of their own (a copy of the same calendar), so that
  ``triples calibrate`` sees a population whose true map is known: a uniformly random player
  reaches best with probability ``p_random``, so the fitted map must be intercept 0, slope 1.

Then, per day, ``triples audit --format jsonl`` on both stores, and ``triples calibrate
--format jsonl``. Printed: per population and variant the games and the share called
``suspect``, overall and on the deals where the fair player falls short of best (false
positives for the blind populations, detection for the sighted one), and the deals on which
blind games were called suspect; the random players' fitted map with its standard errors and
whether 0 and 1 lie in its 95% intervals; the error of a deal's share learned from half its
attempts, against the share of the other half and against the true chance (``p_random``),
seeded by the engines' estimate and from a flat start (``triples.engines.calibration``, on the
attempts read back from the store); the map fitted to the other populations together (the
sighted one too), for a look.

Exit status 1 when a blind population's games are called suspect in more than 1% of them, a
request fails, or the random players' map misses 0 or 1 (its coefficients checked all at once:
intervals that together hold the truth 95% of the time); detection is printed, not required
(the audit's own figures over 1,000 games a population come from ``benchmarks/audit.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import players
from players import request
from population_figures import FALSE_POSITIVE_GOAL, NAMES, SIGHTED, Tally, audit_report, fit_lines, rating_errors
from serve import Connection, free_port, stop_server

from triples.engines import populations
from triples.model.deal import explicit_deck
from triples.model.table import Table
from triples.model.variants import parse_variant
from triples.store import open_store

DAYS = 80
PLAYERS = 8
RANDOM_FIT = "calibration of the random players (true map: intercept 0, slope 1)"
CROWD_FIT = "calibration of the other populations together, sighted too (for a look)"
# ``triples serve`` seeing the date in the file named first: the players' routes ask ``today``.
FIXED_CLOCK = """\
import sys
from pathlib import Path
from triples.doors.service import daily, game, players
clock = Path(sys.argv.pop(1))
def today() -> str:
    return clock.read_text().strip()
daily.today = game.today = players.today = today
from triples.__main__ import main
sys.exit(main())
"""


def triples(*arguments: str) -> str:
    done = subprocess.run([sys.executable, "-m", "triples", *arguments], capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"triples {arguments[0]} failed: {done.stderr.strip()}")
    return done.stdout


def jsonl(text: str) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in text.splitlines() if line.strip()]


def make_calendar(store: Path, variants: list[str], days: list[str]) -> dict[tuple[str, str], dict[str, Any]]:
    """The secret calendar of ``days`` for each variant in ``store``: each deal's row, by (date, variant)."""
    deals: dict[tuple[str, str], dict[str, Any]] = {}
    for variant in variants:
        span = ("--start", days[0], "--days", str(len(days)), "--pattern", "easy,medium,hard")
        rows = triples("calendar", "--secret", "--db", str(store), "--variant", variant, *span, "--format", "jsonl")
        deals |= {(row["date"], row["variant"]): row for row in jsonl(rows)}
    return deals


def start_server(store: Path, clock: Path, port: int) -> subprocess.Popen[bytes]:
    """The service on ``store``, its players' routes seeing the date written in ``clock``."""
    return players.start_server(str(store), port, 1, ("-c", FIXED_CLOCK, str(clock)))


# ---------------------------------------------------------------- a player


@dataclass
class Player:
    population: str
    name: str
    rng: random.Random
    port: int = 0
    token: str = ""
    games: int = 0
    errors: list[str] = field(default_factory=list)


async def answer(connection: Connection, data: bytes, status: int) -> Any:
    got = await connection.send(data)
    if got.status != status:
        raise RuntimeError(f"{got.status}: {got.body.decode()[:200]}")
    return orjson.loads(got.body)


async def play_day(player: Player, variants: list[str], decks: dict[str, list[str]]) -> None:
    """The player's attempt at each variant's deal of the day the server sees (joining first,
    on its first day); ``decks``: each variant's deck, which only the sighted player reads."""
    connection = await Connection.open(player.port)
    try:
        if not player.token:
            joined = await answer(connection, request(player.port, "POST", "/players", {"name": player.name}), 201)
            player.token = joined["token"]
        for variant in variants:
            state = await answer(
                connection, request(player.port, "POST", "/play", {"variant": variant}, player.token), 201
            )
            await play_attempt(player, connection, state, decks[variant])
            player.games += 1
    except RuntimeError as exc:
        player.errors.append(str(exc))
    finally:
        connection.close()


async def play_attempt(player: Player, connection: Connection, state: dict[str, Any], deck: list[str]) -> None:
    variant = parse_variant(state["variant"])
    card = {c.code: c for c in variant.cards}
    dealt = [card[code] for code in state["table"] if code is not None]
    moves: list[list[int]] = []
    choose: populations.Chooser
    if player.population == SIGHTED:
        line = iter(populations.play(populations.POPULATIONS["solve"], Table(variant, explicit_deck(variant, deck)),
                                     player.rng))  # fmt: skip
        choose = lambda seen: next(line, None)  # noqa: E731
    else:
        choose = populations.POPULATIONS[player.population].player(
            populations.seen_table(variant, dealt, []), player.rng
        )
    path = f"/play/{state['attempt']}"
    while not state["over"]:
        seen = populations.seen_table(variant, dealt, moves)
        if seen.codes() != state["table"]:
            raise RuntimeError(f"{player.name}: the table rebuilt from what was seen is not the table shown")
        move = choose(seen)
        if move is None:
            raise RuntimeError(f"{player.name}: no move, but the game is not over")
        body = {"move": list(move), "turn": state["turn"]}
        state = await answer(connection, request(player.port, "POST", path, body, player.token), 200)
        moves.append(list(move))
        dealt += [card[code] for slot in sorted(move) if (code := state["table"][slot]) is not None]


# ---------------------------------------------------------------- the run


@dataclass(frozen=True)
class Calendar:
    """The run's two stores (the crowd's, and the random players' own), their days and deals."""

    crowd: Path
    alone: Path
    days: list[str]
    deals: dict[tuple[str, str], dict[str, Any]]  # the calendar's row of each (date, variant)


def play_calendar(calendar: Calendar, variants: list[str], players: list[Player], clock: Path) -> None:
    """Every player plays every day, the servers seeing each day in turn."""
    clock.write_text(calendar.days[0])
    ports = {calendar.crowd: free_port(), calendar.alone: free_port()}
    for player in players:
        player.port = ports[calendar.alone if player.population == "random" else calendar.crowd]
    servers = []
    try:
        for store, port in ports.items():
            servers.append(start_server(store, clock, port))
        for day in calendar.days:
            clock.write_text(day)
            with open_store(str(calendar.crowd)) as opened:
                decks = {deal.variant: list(deal.deck) for deal in opened.secret_deals_on(day)}
            asyncio.run(everyone(players, variants, decks))
    finally:
        for server in servers:
            stop_server(server)


async def everyone(players: list[Player], variants: list[str], decks: dict[str, list[str]]) -> None:
    await asyncio.gather(*(play_day(player, variants, decks) for player in players))


def audited(calendar: Calendar) -> tuple[dict[tuple[str, str], Tally], dict[tuple[str, str], list[str]]]:
    """``triples audit`` of every day of both stores: per population and variant the tally, and
    per deal (date, variant) the blind games called suspect (population and p)."""
    tallies: dict[tuple[str, str], Tally] = {}
    blind_suspects: dict[tuple[str, str], list[str]] = {}
    for store in (calendar.crowd, calendar.alone):
        for day in calendar.days:
            for row in jsonl(triples("audit", "--db", str(store), "--date", day, "--format", "jsonl")):
                deal = calendar.deals[(row["date"], row["variant"])]
                population = row["name"].rsplit("-", 1)[0]
                suspect = row["verdict"] == "suspect"
                tallies.setdefault((population, row["variant"]), Tally()).add(suspect, deal["fair"] < deal["best"])
                if suspect and population != SIGHTED:
                    blind_suspects.setdefault((row["date"], row["variant"]), []).append(
                        f"{population} p {row['p']:.4f}"
                    )
    return tallies, blind_suspects


def suspect_lines(calendar: Calendar, blind_suspects: dict[tuple[str, str], list[str]]) -> list[str]:
    """The deals on which blind games were called suspect: false positives gather on a few deals."""
    lines = []
    for key, found in sorted(blind_suspects.items()):
        deal = calendar.deals[key]
        lines.append(
            f"blind games called suspect on {key[0]} {key[1]} ({deal['band']}, best {deal['best']}, fair "
            f"{deal['fair']}, p_random {deal['p_random']:.4f}): {', '.join(found)}"
        )
    return lines


def calibrated(calendar: Calendar, variants: list[str]) -> tuple[list[str], list[str]]:
    """The random players' map (checked), their ratings' errors, and the other populations' map."""
    fits = [row for row in jsonl(triples("calibrate", "--db", str(calendar.alone), "--format", "jsonl"))]
    lines, failed = fit_lines([row for row in fits if row["kind"] == "fit"], RANDOM_FIT, True)
    for variant in variants:
        errors = rating_errors(calendar.alone, variant)
        lines.append(
            f"rating error of the random players, {variant}: "
            + (
                "no fit on half the attempts"
                if errors is None
                else f"{errors[0]} deals, share learned from half the attempts: mean absolute error against the "
                f"other half's share seeded {errors[1]:.3f}, flat start {errors[2]:.3f}; against the true chance "
                f"seeded {errors[3]:.3f}, flat start {errors[4]:.3f}"
            )
        )
    fits = [row for row in jsonl(triples("calibrate", "--db", str(calendar.crowd), "--format", "jsonl"))]
    lines += fit_lines([row for row in fits if row["kind"] == "fit"], CROWD_FIT, False)[0]
    return lines, failed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="players.py --populations", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--populations", action="store_true", help="this mode")
    parser.add_argument("--days", type=int, default=DAYS, help=f"past days per variant (default {DAYS})")
    parser.add_argument(
        "--players-per-population", type=int, default=PLAYERS, help=f"players of each population (default {PLAYERS})"
    )
    parser.add_argument("--variants", default="classic,sum15,quads", help="comma list (default classic,sum15,quads)")
    parser.add_argument("--seed", type=int, default=1, help="the players' chances (default 1)")
    args = parser.parse_args(argv)
    variants = [part for part in args.variants.split(",") if part]
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    days = [(yesterday - timedelta(days=args.days - 1 - i)).isoformat() for i in range(args.days)]
    directory = Path(tempfile.mkdtemp(prefix="players-populations-"))
    rng = random.Random(args.seed)
    players = [
        Player(name, f"{name}-{i}", random.Random(rng.random()))
        for name in NAMES
        for i in range(args.players_per_population)
    ]
    try:
        crowd, alone = directory / "crowd.db", directory / "random.db"
        calendar = Calendar(crowd, alone, days, make_calendar(crowd, variants, days))
        shutil.copyfile(crowd, alone)
        play_calendar(calendar, variants, players, directory / "today")
        errors = [error for player in players for error in player.errors]
        print(
            f"{len(players)} players ({args.players_per_population} of each of {len(NAMES)} populations), "
            f"{len(days)} days from {days[0]} to {days[-1]}, variants {', '.join(variants)}: "
            f"{sum(p.games for p in players)} games played through the HTTP API, failed requests {len(errors)}"
            + (f" (first: {errors[0]})" if errors else ""),
            flush=True,
        )
        failed = ["requests failed"] if errors else []
        tallies, blind_suspects = audited(calendar)
        lines, missed = audit_report(tallies, variants)
        print("\n".join(lines + suspect_lines(calendar, blind_suspects)), flush=True)
        more_lines, more_missed = calibrated(calendar, variants)
        print("\n".join(more_lines), flush=True)
        failed += missed + more_missed
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    goal = f"goal: blind populations suspect in <= {100 * FALSE_POSITIVE_GOAL:.0f}% of games, random's map recovered"
    print(f"{goal}: " + ("all requirements met" if not failed else "not met: " + "; ".join(failed)))
    return 1 if failed else 0
