"""``triples serve``: its options, its help, and the start of the server.

The command line finds this module by name when ``serve`` is chosen; it imports nothing of the
web stack itself, so ``serve --help`` and a usage error answer without the serve extra, and the
server (FastAPI, uvicorn) is imported only to serve.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from triples.doors.kit.exits import EXIT_OK, CommandError
from triples.doors.kit.install import needs_extra

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
  GET  /        the deal explorer: play a deal in the browser
  GET  /docs    the OpenAPI page (works offline)

Listens on 127.0.0.1 (this machine only) unless --host says otherwise.
Needs the serve extra: pip install 'triples-solitaire[serve]'."""

EXAMPLE = """\
example:
  triples serve --port 8000
  curl -s localhost:8000/run -d '[["new","g",1],["play","g",[0,2,5]],["status","g"]]'
  then browse to http://127.0.0.1:8000/?variant=classic&seed=1"""


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port: {text!r} (an integer from 0 to 65535)")
    return int(text)


def worker_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid worker count: {text!r} (an integer from 1)")
    return int(text)


def seconds_of(what: str) -> Callable[[str], float]:
    """A reader of a number of seconds above 0, whose refusal names ``what`` it is."""

    def seconds(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = 0.0
        if not 0 < value < 1e9:  # also refuses nan and inf
            raise argparse.ArgumentTypeError(f"invalid {what}: {text!r} (a number of seconds above 0)")
        return value

    return seconds


seconds = seconds_of("time limit")


def count_of(what: str) -> Callable[[str], int]:
    """A reader of a whole number from 1, whose refusal names ``what`` it is."""

    def count(text: str) -> int:
        if not text.isdigit() or not 0 < int(text) < 10**9:
            raise argparse.ArgumentTypeError(f"invalid {what}: {text!r} (an integer from 1)")
        return int(text)

    return count


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--workers", type=worker_count, default=1, help="server processes (default: 1)")
    parser.add_argument(
        "--time-limit",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="a request still running after this long is answered 503 and its work stops (default: 10)",
    )
    parser.add_argument(
        "--header-timeout",
        type=seconds_of("header timeout"),
        default=10.0,
        metavar="SECONDS",
        help="a request whose headers are not all in this long after its first byte is answered 408 (default: 10)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=seconds_of("idle timeout"),
        default=5.0,
        metavar="SECONDS",
        help="a connection that sends nothing for this long, between requests or in a body, is closed (default: 5)",
    )
    parser.add_argument(
        "--max-connections",
        type=count_of("connection count"),
        default=256,
        metavar="N",
        help="connections open at once; one more closes the one idle longest, else gets 503 (default: 256)",
    )
    parser.add_argument(
        "--cache-mib",
        type=count_of("cache size"),
        default=256,
        metavar="MIB",
        help="what the engines' tables and memos may hold in each server process, in MiB (default: 256)",
    )
    parser.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log each request")
    parser.add_argument(
        "--db", metavar="FILE", help="serve GET /daily from the calendar in this store (triples calendar)"
    )


def main(args: argparse.Namespace) -> int:
    try:
        from triples.doors.service.app import MIB, ServiceSettings
        from triples.doors.service.server import CannotListen, serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_PACKAGES:
            raise
        raise CommandError(needs_extra("serve", exc.name)) from None
    if args.db is not None:
        serve_daily_from(args.db)
    settings = ServiceSettings(
        time_limit=args.time_limit,
        header_timeout=args.header_timeout,
        idle_timeout=args.idle_timeout,
        max_connections=args.max_connections,
        cache_bytes=args.cache_mib * MIB,
    )
    try:
        serve(args.host, args.port, args.workers, args.access_log, settings)
    except CannotListen as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def serve_daily_from(db: str) -> None:
    """Check the store of ``serve --db`` now (one line if it cannot be used) and hand it to the
    server's processes, which import the application by name."""
    from triples.store import SERVE_DB_VARIABLE, StoreError, open_store

    try:
        open_store(db).close()  # a missing store is made now
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    os.environ[SERVE_DB_VARIABLE] = os.path.abspath(db)
