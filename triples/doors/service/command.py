"""``triples serve``: its options, its help, and the start of the server.

The command line finds this module by name when ``serve`` is chosen; it imports nothing of the
web stack itself, so ``serve --help`` and a usage error answer without the serve extra, and the
server (FastAPI, uvicorn) is imported only to serve.
"""

from __future__ import annotations

import argparse
import os

import orjson

from triples.doors.kit import options
from triples.doors.kit.exits import EXIT_OK, CommandError
from triples.doors.kit.install import needs_extra
from triples.doors.service.limits import LIMITS_VARIABLE, PlayLimits

# The packages of the serve extra: a missing one is a hint to install it, any other a defect.
SERVE_PACKAGES = frozenset({"fastapi", "starlette", "uvicorn", "anyio", "h11", "prometheus_client", "fastapi_offline"})

DESCRIPTION = """\
Serve the interpreter over HTTP (docs/service.md) until Ctrl-C:

  POST /run     a JSON array of operations -> the JSON array of outputs,
                exactly what run() (and `triples run`) gives, one fresh
                session per request; bad requests get {"error": ...}
                with a 4xx status (400 invalid JSON or not an array,
                413 body over 1 MiB or more than 10,000 operations);
                503 past the time limit, or when too many requests wait
                (with Retry-After)
  GET  /health  {"ok": true, "version": ...}
  GET  /metrics counters in Prometheus's text format
  GET  /daily/{YYYY-MM-DD}, /daily/today
                the deal of the day from the calendar in --db FILE
  POST /players, POST /play, GET and POST /play/{attempt},
  GET  /leaderboard/{YYYY-MM-DD}, /leaderboard/today
                the players' game: today's secret deal (triples
                calendar --secret), played move by move on the server,
                with a token; 429 with Retry-After past the rate limits
  GET  /        the deal explorer: play a deal in the browser
  GET  /docs    the OpenAPI page (works offline)

Listens on 127.0.0.1 (this machine only) unless --host says otherwise.
Needs the serve extra: pip install 'triples-solitaire[serve]'."""

EXAMPLE = """\
example:
  triples serve --port 8000
  curl -s localhost:8000/run -d '[["new","g",1],["play","g",[0,2,5]],["status","g"]]'
  then browse to http://127.0.0.1:8000/?variant=classic&seed=1"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=options.port, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--workers", type=options.jobs, default=1, help="server processes (default: 1)")
    parser.add_argument(
        "--time-limit",
        type=options.positive_seconds,
        default=10.0,
        metavar="SECONDS",
        help="a request still running after this long is answered 503 and its work stops (default: 10)",
    )
    parser.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log each request")
    parser.add_argument(
        "--db",
        metavar="DB",
        help="serve GET /daily from the calendars in this store (triples calendar), and the players' game: "
        "a SQLite file, or a postgresql:// URL for several hosts",
    )
    defaults = PlayLimits()
    parser.add_argument(
        "--player-rate",
        type=options.positive_rate,
        default=defaults.player_rate,
        metavar="R",
        help=f"requests a second one player may make to /play (default: {defaults.player_rate:g})",
    )
    parser.add_argument(
        "--address-rate",
        type=options.positive_rate,
        default=defaults.address_rate,
        metavar="R",
        help=f"requests a second one client address may make to /play and /players (default: "
        f"{defaults.address_rate:g})",
    )
    parser.add_argument(
        "--new-players",
        type=options.positive_rate,
        default=defaults.new_players_per_hour,
        metavar="N",
        help=f"players one client address may make an hour (default: {defaults.new_players_per_hour:g})",
    )


def main(args: argparse.Namespace) -> int:
    try:
        from triples.doors.service.server import CannotListen, serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_PACKAGES:
            raise
        raise CommandError(needs_extra("serve", exc.name)) from None
    if args.db is not None:
        serve_daily_from(args.db)
    limits = PlayLimits(
        player_rate=args.player_rate, address_rate=args.address_rate, new_players_per_hour=args.new_players
    )
    os.environ[LIMITS_VARIABLE] = orjson.dumps(limits.model_dump()).decode()  # the workers inherit it
    try:
        serve(args.host, args.port, args.workers, args.access_log, args.time_limit)
    except CannotListen as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def serve_daily_from(db: str) -> None:
    """Check the store of ``serve --db`` now (one line if it cannot be used) and hand it to the
    server's processes, which import the application by name."""
    from triples.store import SERVE_DB_VARIABLE, StoreError, db_for_processes, open_store

    try:
        open_store(db).close()  # a missing store is made now
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    os.environ[SERVE_DB_VARIABLE] = db_for_processes(db)
