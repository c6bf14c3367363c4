"""``GET /daily/{YYYY-MM-DD}`` and ``GET /daily/today``: the deal of a day from the calendar.

The calendar is the one ``triples calendar`` keeps in the store (``triples serve --db FILE``).
The answer is ``{"date", "variant", "seed", "band", "best", "table"}``, where ``table`` is what
``["new", id, seed, variant]`` deals. ``today`` is the date in UTC. A store may hold calendars of
several variants: ``?variant=NAME`` chooses one; without it the day's classic deal is served, or
when there is none, the deal of the first variant by name that has one.

The store is opened afresh for each request (in a worker thread: SQLite is blocking), so the
service sees dates added while it runs; a date without a deal is a 404 with the usual JSON error.
Without ``--db`` these paths say how to enable them.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import UTC, date, datetime
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from triples.api import run
from triples.model.variants import DEFAULT_VARIANT
from triples.store import SERVE_DB_VARIABLE, Deal, StoreError, open_store

TODAY = "today"
NOT_ENABLED = "no daily calendar here: start the service with a store, triples serve --db FILE"
STORE_UNREADABLE = "the daily calendar's store cannot be read (the server's log says why)"
log = logging.getLogger("triples.service")


def db_from_environment() -> str | None:
    return os.environ.get(SERVE_DB_VARIABLE) or None


def answer(content: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(content) + b"\n", status_code=status, media_type="application/json")


def day_of(text: str) -> str | None:
    """The ISO date ``text`` names (``today``: in UTC); None when it names none."""
    if text == TODAY:
        return datetime.now(UTC).date().isoformat()
    if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return None
    try:
        return date.fromisoformat(text).isoformat()
    except ValueError:
        return None


def chosen(deals: list[Deal], variant: str | None) -> Deal | None:
    """The deal to serve among a date's deals (sorted by variant name)."""
    if variant is not None:
        return next((deal for deal in deals if deal.variant == variant), None)
    return next((deal for deal in deals if deal.variant == DEFAULT_VARIANT), deals[0] if deals else None)


def deal_answer(deal: Deal) -> dict[str, Any]:
    table = run([["new", "daily", deal.seed, deal.spec]])[0]
    return {
        "date": deal.date,
        "variant": deal.variant,
        "seed": deal.seed,
        "band": deal.band,
        "best": deal.best,
        "table": table,
    }


def lookup(db: str, day: str, variant: str | None) -> Response:
    try:
        with open_store(db) as store:
            deal = chosen(store.deals_on(day), variant)
    except StoreError as exc:
        # What is wrong names the store's file on the server: for its log, not for a client.
        log.error("GET /daily: %s", exc)
        return answer({"error": STORE_UNREADABLE}, 500)
    if deal is None:
        of = f" of {variant}" if variant is not None else ""
        return answer({"error": f"no daily deal{of} for {day}"}, 404)
    return answer(deal_answer(deal))


def mount(app: FastAPI, db: str | None) -> None:
    """Add the daily paths to ``app``, serving the calendar of the store at ``db`` (None: none)."""
    router = APIRouter()

    @router.get(
        "/daily/{day}",
        summary="The deal of a day (YYYY-MM-DD, or today in UTC) from the daily calendar",
        response_description='{"date", "variant", "seed", "band", "best", "table"}; 404 for a date without a deal',
    )
    async def daily(day: str, variant: str | None = None) -> Response:
        if db is None:
            return answer({"error": NOT_ENABLED}, 404)
        iso = day_of(day)
        if iso is None:
            return answer({"error": f"bad date '{day}': expected YYYY-MM-DD or {TODAY}"}, 400)
        return await run_in_threadpool(lookup, db, iso, variant)

    app.include_router(router)
