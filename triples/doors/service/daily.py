"""``GET /daily/{YYYY-MM-DD}`` and ``GET /daily/today``: the deal of a day from the calendar.

The calendars are those ``triples calendar`` keeps in the store (``triples serve --db FILE``).
``today`` is the date in UTC, and a later date is ``404`` "not published yet", whatever the
calendar. A seed day's answer is ``{"date", "variant", "seed", "band", "best", "table"}``, where
``table`` is what ``["new", id, seed, variant]`` deals. A secret day (``triples calendar
--secret``, the players' game) shows only ``{"date", "variant", "band", "table"}`` while it
lasts, and once it has ended also its ``deck`` (top first), ``best`` and a best ``line``, so
that anyone can replay it and check the leaderboard. A variant with both kinds on one date is
served its secret day: that is the deal its players play. A store may hold calendars of
several variants: ``?variant=NAME`` chooses one; without it the day's classic deal is served,
or when there is none, the deal of the first variant by name that has one.

The store is opened afresh for each request (in a worker thread: SQLite is blocking), so the
service sees dates added while it runs; a date without a deal is a 404 with the usual JSON error.
Without ``--db`` these paths say how to enable them.
"""

from __future__ import annotations

import logging
import os
import re
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import orjson
from fastapi import APIRouter, FastAPI
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from triples.api import run
from triples.model.variants import DEFAULT_VARIANT
from triples.store import Deal, SecretDeal, StoreError, open_store

TODAY = "today"
NOT_ENABLED = "no daily calendar here: start the service with a store, triples serve --db FILE"
STORE_UNREADABLE = "the daily calendar's store cannot be read (the server's log says why)"
log = logging.getLogger("triples.service")


def answer(content: Any, status: int = 200, cache: str = "no-cache") -> Response:
    headers = {"Cache-Control": cache}
    return Response(orjson.dumps(content) + b"\n", status_code=status, media_type="application/json", headers=headers)


def cache_for(day: str) -> str:
    """How long a day's answer may be kept: today's until the day ends (then a secret deal shows
    its deck), a past day's for a day (a published day never changes)."""
    if day < today():
        return "public, max-age=86400"
    now = datetime.now(UTC)
    midnight = datetime.combine(now.date() + timedelta(days=1), time(0), UTC)
    return f"public, max-age={max(1, int((midnight - now).total_seconds()))}"


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


def today() -> str:
    return datetime.now(UTC).date().isoformat()


def chosen(deals: list[Deal | SecretDeal], variant: str | None) -> Deal | SecretDeal | None:
    """The deal to serve among a date's deals (sorted by variant name)."""
    if variant is not None:
        return next((deal for deal in deals if deal.variant == variant), None)
    return next((deal for deal in deals if deal.variant == DEFAULT_VARIANT), deals[0] if deals else None)


def secret_answer(deal: SecretDeal) -> dict[str, Any]:
    table = run([["new", "daily", list(deal.deck), deal.spec]])[0]
    answer = {"date": deal.date, "variant": deal.variant, "band": deal.band, "table": table}
    if deal.date < today():  # the day has ended: its deal is no secret any more
        answer |= {"deck": list(deal.deck), "best": deal.best, "line": [list(move) for move in deal.line]}
    return answer


def deal_answer(deal: Deal | SecretDeal) -> dict[str, Any]:
    if isinstance(deal, SecretDeal):
        return secret_answer(deal)
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
    if day > today():
        return answer({"error": "not published yet"}, 404)
    if "://" not in db and not os.path.exists(db):  # a store deleted under the service is not made anew
        log.error("GET /daily: the store %s is gone", db)
        return answer({"error": STORE_UNREADABLE}, 503)
    try:
        with open_store(db) as store:
            secret = {deal.variant: deal for deal in store.secret_deals_on(day)}
            seeded = [deal for deal in store.deals_on(day) if deal.variant not in secret]
            deal = chosen(sorted([*secret.values(), *seeded], key=lambda deal: deal.variant), variant)
    except StoreError as exc:
        # What is wrong names the store's file on the server: for its log, not for a client.
        log.error("GET /daily: %s", exc)
        return answer({"error": STORE_UNREADABLE}, 500)
    if deal is None:
        of = f" of {variant}" if variant is not None else ""
        return answer({"error": f"no daily deal{of} for {day}"}, 404)
    return answer(deal_answer(deal), cache=cache_for(day))


def mount(app: FastAPI, db: str | None) -> None:
    """Add the daily paths to ``app``, serving the calendar of the store at ``db`` (None: none)."""
    router = APIRouter()

    @router.get(
        "/daily/{day}",
        summary="The deal of a day (YYYY-MM-DD, or today in UTC) from the daily calendar",
        response_description='{"date", "variant", "seed", "band", "best", "table"} for a seed day; a secret day '
        'shows {"date", "variant", "band", "table"}, and once ended also "deck", "best", "line"; '
        "404 for a date without a deal or after today",
    )
    async def daily(day: str, variant: str | None = None) -> Response:
        if db is None:
            return answer({"error": NOT_ENABLED}, 404)
        iso = day_of(day)
        if iso is None:
            return answer({"error": f"bad date '{day}': expected YYYY-MM-DD or {TODAY}"}, 400)
        return await run_in_threadpool(lookup, db, iso, variant)

    app.include_router(router)
