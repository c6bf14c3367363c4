"""The players' routes: ``POST /players``, ``POST /play``, ``GET`` and ``POST /play/{attempt}``,
``GET /leaderboard/{date|today}``.

``PlayersDoor`` answers them from plain request parts (method, path, query, headers, client
address, body), with no web framework in the way: the full service (``app.Service``) hands it
these paths straight from the server, as it does ``POST /run``, since a move must cost little
more than the game's own work. ``router(door)`` is the same routes as a FastAPI ``APIRouter``:
the service includes it for its OpenAPI schema, and an application of these routes alone (for
a public address) can be made from it. The game (``game.Game``) holds the state; here are the
HTTP shapes: the token in ``Authorization: Bearer``, small JSON bodies, the rate limits
(``limits``), and every refusal as ``{"error"}`` with its status.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import parse_qs

import orjson
from fastapi import APIRouter, Request
from fastapi.responses import Response

from triples.doors.service.daily import day_of, today
from triples.doors.service.game import Game, Refused
from triples.doors.service.limits import Limiter, PlayLimits
from triples.store import Player
from triples.support.errors import TriplesError

MAX_BODY_BYTES = 4096
NOT_ENABLED = "no players' game here: start the service with a store, triples serve --db FILE"
# Every answer is JSON for a program: nosniff keeps a browser from reading one as a page, and
# no cache keeps a state or a token.
HEADERS = {"x-content-type-options": "nosniff", "cache-control": "no-store"}
PREFIXES = ("/play", "/leaderboard/")
BEARER = {"www-authenticate": "Bearer"}

Answer = tuple[int, Any, dict[str, str]]  # status, JSON content, extra headers


def too_many(wait: int) -> Refused:
    return Refused(429, f"too many requests: try again in {wait} s", {"retry-after": str(wait)})


def json_body(body: bytes) -> Any:
    """The request's JSON body (``{}`` when empty), or ``Refused`` 400."""
    if not body.strip():
        return {}
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise Refused(400, f"invalid JSON: {exc}") from None


def bearer_token(headers: Mapping[str, str]) -> str:
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "no token: send Authorization: Bearer TOKEN", BEARER)
    return token.strip()


class PlayersDoor:
    """The players' routes of one server process over the store at ``db`` (None: they say how
    to enable them)."""

    def __init__(self, db: str | None, limits: PlayLimits) -> None:
        self.game = None if db is None else Game(db)
        self.limiter = Limiter(limits)

    @staticmethod
    def answers(method: str, path: str) -> bool:
        """Whether this is one of the routes (another method on their paths is the framework's 405)."""
        if method == "POST":
            return path in ("/players", "/play") or (path.startswith("/play/") and path.count("/") == 2)
        return method == "GET" and path.count("/") == 2 and path.startswith(("/play/", "/leaderboard/"))

    async def answer(
        self, method: str, path: str, query: str, headers: Mapping[str, str], client: str, body: bytes
    ) -> Answer:
        """The answer to one request of ``answers``: status, content and extra headers."""
        try:
            if self.game is None:
                raise Refused(404, NOT_ENABLED)
            if path.startswith("/leaderboard/"):
                variant = parse_qs(query).get("variant", [None])[-1]
                return 200, await self.leaderboard(self.game, path.removeprefix("/leaderboard/"), variant), {}
            wait = self.limiter.per_address.take(client)
            if wait:
                raise too_many(wait)
            if path == "/players":
                return 201, await self.new_player(self.game, client, body), {}
            player = await self.player(self.game, bearer_token(headers))
            if path == "/play":
                state, started = await self.start(self.game, player, body)
                return 201 if started else 200, state, {}
            attempt = path.removeprefix("/play/")
            if method == "GET":
                return 200, await self.game.call(self.game.state, player, attempt), {}
            return 200, await self.move(self.game, player, attempt, body), {}
        except Refused as refused:
            return refused.status, {"error": refused.message}, refused.headers
        except TriplesError as exc:  # the store cannot be used: one line, no traceback
            return 503, {"error": str(exc)}, {}

    async def player(self, game: Game, token: str) -> Player:
        # Known players are remembered in the process: only a new token costs a trip to the store.
        player = game.known_player(token)
        if player is None:
            player = await game.call(game.player, token)
        wait = self.limiter.per_player.take(str(player.id))
        if wait:
            raise too_many(wait)
        return player

    async def new_player(self, game: Game, client: str, body: bytes) -> Any:
        wait = self.limiter.new_players.take(client)
        if wait:
            raise too_many(wait)
        content = json_body(body)
        if not isinstance(content, dict) or set(content) != {"name"}:
            raise Refused(400, 'expected {"name": NAME}')
        return await game.call(game.new_player, content["name"])

    async def start(self, game: Game, player: Player, body: bytes) -> tuple[dict[str, Any], bool]:
        content = json_body(body)
        variant = content.get("variant") if isinstance(content, dict) else None
        if not isinstance(content, dict) or not set(content) <= {"variant"} or not isinstance(variant, str | None):
            raise Refused(400, 'expected {} or {"variant": NAME}')
        return await game.call(game.start, player, variant)

    async def move(self, game: Game, player: Player, attempt: str, body: bytes) -> Any:
        content = json_body(body)
        turn = content.get("turn") if isinstance(content, dict) else None
        if not isinstance(content, dict) or set(content) != {"move", "turn"} or type(turn) is not int or turn < 0:
            raise Refused(400, 'expected {"move": [slots...], "turn": T}')
        return await game.call(game.move, player, attempt, content["move"], turn)

    async def leaderboard(self, game: Game, day: str, variant: str | None) -> Any:
        iso = day_of(day)
        if iso is None:
            raise Refused(400, f"bad date '{day}': expected YYYY-MM-DD or today")
        if iso > today():
            raise Refused(404, "not published yet")
        return await game.call(game.leaderboard, iso, variant)


def encoded(answer: Answer) -> tuple[int, bytes, dict[str, str]]:
    status, content, headers = answer
    return status, orjson.dumps(content) + b"\n", HEADERS | headers


async def read_small_body(request: Request) -> bytes:
    declared = request.headers.get("content-length", "")
    too_large = Refused(413, f"request body over {MAX_BODY_BYTES} bytes")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise too_large
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise too_large
    return body


def router(door: PlayersDoor) -> APIRouter:
    """The routes as a FastAPI router (the service answers them through ``door`` directly)."""
    routes = APIRouter()

    async def answered(request: Request) -> Response:
        try:
            body = await read_small_body(request)
        except Refused as refused:
            return Response(orjson.dumps({"error": refused.message}), refused.status, HEADERS, "application/json")
        client = request.client.host if request.client is not None else "unknown"
        answer = await door.answer(request.method, request.url.path, request.url.query, request.headers, client, body)
        status, content, headers = encoded(answer)
        return Response(content, status, headers, "application/json")

    def route(method: str, path: str, summary: str, status: int = 200) -> Callable[..., Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await answered(request)

        routes.add_api_route(path, endpoint, methods=[method], summary=summary, status_code=status)
        return endpoint

    route("POST", "/players", 'Join: {"name"} -> a new player and its token (shown once)', 201)
    route("POST", "/play", "Start (or get again) your one attempt at today's secret deal")
    route("GET", "/play/{attempt}", "Your attempt's state: never a card of the stock")
    route("POST", "/play/{attempt}", 'Play {"move": [slots...], "turn": T} at the attempt\'s turn')
    route("GET", "/leaderboard/{day}", "A day's finished attempts, best first (YYYY-MM-DD or today; ?variant=)")
    return routes
