"""``triples serve``: its options, its help, and the start of the server.

The command line finds this module by name when ``serve`` is chosen; it imports nothing of the
web stack itself, so ``serve --help`` and a usage error answer without the serve extra, and the
server (FastAPI, uvicorn) is imported only to serve.
"""

from __future__ import annotations

import argparse
import os

from triples.doors.kit import options
from triples.doors.kit.exits import EXIT_OK, CommandError
from triples.doors.kit.install import needs_extra
from triples.doors.service.settings import SettingsError, add_options, settings_of

# The packages of the serve extra: a missing one is a hint to install it, any other a defect.
SERVE_PACKAGES = frozenset(
    {"fastapi", "starlette", "uvicorn", "anyio", "h11", "httptools", "prometheus_client", "fastapi_offline"}
)

DESCRIPTION = """\
Serve the interpreter over HTTP (docs/service.md) until Ctrl-C:

  POST /run     a JSON array of operations -> the JSON array of outputs,
                exactly what run() (and `triples run`) gives, one fresh
                session per request; bad requests get {"error": ...}
                with a 4xx status (400 invalid JSON or not an array,
                413 body over 1 MiB, more than 10,000 operations, or an
                answer over 32 MiB); 503 past the time limit, or when too
                many requests wait (with Retry-After)
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
        "--forwarded-allow-ips",
        metavar="ADDRESSES",
        default=None,
        help="comma list of proxy addresses (or *) whose X-Forwarded-For and X-Forwarded-Proto headers are "
        "trusted for the client's address (default: 127.0.0.1; or FORWARDED_ALLOW_IPS)",
    )
    parser.add_argument(
        "--no-access-log", dest="access_log", action="store_false", default=None, help="do not log each request"
    )
    add_options(parser)


def main(args: argparse.Namespace) -> int:
    try:
        settings = settings_of(args, os.environ)
    except SettingsError as exc:
        raise CommandError(str(exc)) from None
    if args.access_log is False:
        settings = settings.model_copy(update={"access_log": False})
    try:
        from triples.doors.service.server import CannotListen, serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_PACKAGES:
            raise
        raise CommandError(needs_extra("serve", exc.name)) from None
    if settings.daily_db is not None:
        check_store(settings.daily_db)
    forwarded = args.forwarded_allow_ips or os.environ.get("FORWARDED_ALLOW_IPS") or "127.0.0.1"
    try:
        serve(args.host, args.port, args.workers, settings, forwarded)
    except CannotListen as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def check_store(db: str) -> None:
    """Open the store of ``serve --db`` now (one line if it cannot be used; a store of an older
    schema is upgraded here, once, before the server's processes start). It exists: the setting
    refused a missing one, and the service never makes a store."""
    from triples.store import StoreError, open_store

    try:
        open_store(db).close()
    except StoreError as exc:
        raise CommandError(str(exc)) from None
