"""The players' routes: ``POST /players``, ``POST /play``, ``GET`` and ``POST /play/{attempt}``,
``GET /leaderboard/{date|today}``.

``router(db, limits)`` is an ``APIRouter`` of its own: the full service includes it, and an
application of these routes alone (for a public address) can be made from it. The game itself
(``game.Game``) holds the state; here are the HTTP shapes: the token in ``Authorization:
Bearer``, small JSON bodies, the rate limits (``limits``), and every refusal as ``{"error"}``
with its status.
"""

from __future__ import annotations

from typing import Any

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from triples.doors.service.daily import day_of, today
from triples.doors.service.game import Game, Refused
from triples.doors.service.limits import Limiter, PlayLimits
from triples.support.errors import TriplesError

MAX_BODY_BYTES = 4096
NOT_ENABLED = "no players' game here: start the service with a store, triples serve --db FILE"
MOVE_BODY = 'expected {"move": [slots...], "turn": T}'
# Every answer is JSON for a program; nosniff keeps a browser from reading one as a page.
HEADERS = {"x-content-type-options": "nosniff", "cache-control": "no-store"}


def answer(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        orjson.dumps(content) + b"\n",
        status_code=status,
        media_type="application/json",
        headers=HEADERS | (headers or {}),
    )


async def small_body(request: Request) -> Any:
    """The request's JSON body (``{}`` when empty), or ``Refused`` 400 or 413."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise Refused(413, f"request body over {MAX_BODY_BYTES} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise Refused(413, f"request body over {MAX_BODY_BYTES} bytes")
    if not body.strip():
        return {}
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Refused(400, f"invalid JSON: {exc}") from None


def address_of(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def bearer_token(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "no token: send Authorization: Bearer TOKEN", {"www-authenticate": "Bearer"})
    return token.strip()


def too_many(wait: int) -> Refused:
    return Refused(429, f"too many requests: try again in {wait} s", {"retry-after": str(wait)})


def router(db: str | None, limits: PlayLimits) -> APIRouter:
    """The players' routes over the store at ``db`` (None: they say how to enable them)."""
    routes = APIRouter()
    game = None if db is None else Game(db)
    limiter = Limiter(limits)

    async def answered(request: Request, work: Any, *, player: bool, status: int = 200) -> Response:
        """``work(game, player)`` as the answer, after the limits and the token; refusals as JSON."""
        try:
            if game is None:
                raise Refused(404, NOT_ENABLED)
            wait = limiter.per_address.take(address_of(request))
            if wait:
                raise too_many(wait)
            who = None
            if player:
                who = await game.call(game.player, bearer_token(request))
                wait = limiter.per_player.take(str(who.id))
                if wait:
                    raise too_many(wait)
            content = await work(game, who)
        except Refused as refused:
            return answer({"error": refused.message}, refused.status, refused.headers)
        except TriplesError as exc:  # the store cannot be used: one line, no traceback
            return answer({"error": str(exc)}, 503)
        if isinstance(content, tuple):  # (state, whether it was made now)
            content, made = content
            status = 201 if made else 200
        return answer(content, status)

    @routes.post("/players", status_code=201, summary="Join: a new player, and its token (shown once)")
    async def new_player(request: Request) -> Response:
        async def work(game: Game, _: Any) -> Any:
            wait = limiter.new_players.take(address_of(request))
            if wait:
                raise too_many(wait)
            body = await small_body(request)
            if not isinstance(body, dict) or set(body) != {"name"}:
                raise Refused(400, 'expected {"name": NAME}')
            return await game.call(game.new_player, body["name"])

        return await answered(request, work, player=False, status=201)

    @routes.post("/play", summary="Start (or get again) your one attempt at today's secret deal")
    async def start(request: Request) -> Response:
        async def work(game: Game, player: Any) -> Any:
            body = await small_body(request)
            variant = body.get("variant") if isinstance(body, dict) else None
            if not isinstance(body, dict) or not set(body) <= {"variant"} or not isinstance(variant, str | None):
                raise Refused(400, 'expected {} or {"variant": NAME}')
            return await game.call(game.start, player, variant)

        return await answered(request, work, player=True)

    @routes.get("/play/{attempt}", summary="Your attempt's state")
    async def state(request: Request, attempt: str) -> Response:
        async def work(game: Game, player: Any) -> Any:
            return await game.call(game.state, player, attempt)

        return await answered(request, work, player=True)

    @routes.post("/play/{attempt}", summary="Play a move of your attempt at its turn")
    async def move(request: Request, attempt: str) -> Response:
        async def work(game: Game, player: Any) -> Any:
            body = await small_body(request)
            turn = body.get("turn") if isinstance(body, dict) else None
            if not isinstance(body, dict) or set(body) != {"move", "turn"} or type(turn) is not int or turn < 0:
                raise Refused(400, MOVE_BODY)
            return await game.call(game.move, player, attempt, body["move"], turn)

        return await answered(request, work, player=True)

    @routes.get("/leaderboard/{day}", summary="A day's finished attempts, best first (YYYY-MM-DD or today)")
    async def leaderboard(day: str, variant: str | None = None) -> Response:
        try:
            if game is None:
                raise Refused(404, NOT_ENABLED)
            iso = day_of(day)
            if iso is None:
                raise Refused(400, f"bad date '{day}': expected YYYY-MM-DD or today")
            if iso > today():
                raise Refused(404, "not published yet")
            return answer(await game.call(game.leaderboard, iso, variant))
        except Refused as refused:
            return answer({"error": refused.message}, refused.status, refused.headers)
        except TriplesError as exc:
            return answer({"error": str(exc)}, 503)

    return routes
