"""The pages and the declared routes: what FastAPI answers of the service (the explorer's page and
files, the OpenAPI schema and its page, ``/daily`` and the players' routes, the error shapes),
for the team's service or the public one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import resources
from typing import Any, Protocol

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import Response
from starlette.exceptions import HTTPException

from triples import __version__
from triples.doors.service import daily, players
from triples.doors.service.answers import Refused, read_body
from triples.doors.service.metrics import CONTENT_TYPE, MULTIPROCESS_VARIABLE, ServiceMetrics
from triples.doors.service.settings import ServiceSettings
from triples.interpreter.jsonio import dumps

JSON = "application/json"
log = logging.getLogger("triples.service")
TEAM_DESCRIPTION = "The Triples interpreter over HTTP, and the deal explorer at `/`."
PUBLIC_DESCRIPTION = (
    "The players' daily game: players, attempts, moves, the leaderboard and the day's deal. "
    "The stock of a live day never leaves the server."
)

# The explorer's files: name in the URL -> (file in static/, media type).
STATIC_FILES = {
    "explorer.css": "text/css; charset=utf-8",
    "explorer.js": "text/javascript; charset=utf-8",
    "triples.js": "text/javascript; charset=utf-8",
    "rules.js": "text/javascript; charset=utf-8",
    "pyramid.js": "text/javascript; charset=utf-8",
    "quartets.js": "text/javascript; charset=utf-8",
    "challenge.js": "text/javascript; charset=utf-8",
    "common.js": "text/javascript; charset=utf-8",
}
# What the public service serves of them: the players' page and nothing that reaches the interpreter.
PUBLIC_STATIC = ("explorer.css", "common.js", "challenge.js")
# The OpenAPI page's files, from the fastapi-offline package: served here, never from a CDN.
DOCS_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
RUN_EXAMPLE = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]]


class Served(Protocol):
    """What the pages need of the service they belong to (``app.Service``)."""

    settings: ServiceSettings
    health_body: bytes
    metrics: ServiceMetrics
    players: players.PlayersDoor

    async def outputs(self, body: bytes) -> bytes: ...


def json_response(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    # The same writer as `triples run`: the body of POST /run is byte for byte what it prints.
    return Response(dumps(content), status_code=status, media_type=JSON, headers=headers)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response({"error": message}, status, headers)


def package_file(package: Any, *path: str) -> bytes:
    return resources.files(package).joinpath(*path).read_bytes()


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    if os.environ.get(MULTIPROCESS_VARIABLE):  # this process's live gauges leave the sums
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]


def pages_app(service: Served) -> FastAPI:
    """The FastAPI application: the pages, the OpenAPI schema and its page, the error shapes.

    ``/run`` and ``/health`` are declared here too, for the schema (and for a caller that
    mounts this application alone); ``Service`` answers them before they get here. The public
    service (``--public``) declares and serves only what a player needs: its page at ``/``
    (the players' game alone), that page's files, the players' routes, ``/daily``, ``/health``
    and the OpenAPI page of those; every other path is a 404.
    """
    public = service.settings.public
    app = FastAPI(
        lifespan=lifespan,
        title="Triples" + (": the players' daily game" if public else ""),
        redirect_slashes=False,  # /run/ is another path: a 404, not a redirect to follow
        version=__version__,
        description=PUBLIC_DESCRIPTION
        if public
        else "The Triples interpreter over HTTP, and the deal explorer at `/`.",
        docs_url=None,  # served below, with its scripts from this package instead of a CDN
        redoc_url=None,
    )
    served = PUBLIC_STATIC if public else tuple(STATIC_FILES)
    pages = {"": package_file("triples.doors.service", "static", "public.html" if public else "index.html")}
    pages |= {name: package_file("triples.doors.service", "static", name) for name in served}

    @app.exception_handler(Refused)
    async def rejected(request: Request, exc: Refused) -> Response:
        return error_response(exc.status, exc.message, exc.headers)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        # The framework's own 404 and 405 (and any other HTTP error) in the service's shape.
        message = {404: "not found", 405: "method not allowed"}.get(exc.status_code, str(exc.detail)).lower()
        headers = dict(exc.headers) if exc.headers else None
        return error_response(exc.status_code, f"{message}: {request.method} {request.url.path}", headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
        # The details (which may name files on the server) go to the log, not to the client.
        log.error("internal error answering %s %s", request.method, request.url.path, exc_info=exc)
        return error_response(500, f"internal error ({type(exc).__name__})")

    if not public:
        design_routes(app, service)

    @app.get("/health", summary="Liveness and version")
    async def health() -> Response:
        return Response(service.health_body, media_type=JSON)

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        return Response(pages[""], media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str) -> Response:
        if name not in served:
            raise HTTPException(404)
        return Response(pages[name], media_type=STATIC_FILES[name], headers={"Cache-Control": "no-cache"})

    @app.get("/docs", include_in_schema=False)
    async def docs() -> Response:
        return get_swagger_ui_html(
            # Relative to the page, so that it works behind a proxy at a prefix too.
            openapi_url="openapi.json",
            title="Triples: the HTTP interface",
            swagger_js_url="docs/assets/swagger-ui-bundle.js",
            swagger_css_url="docs/assets/swagger-ui.css",
            swagger_favicon_url="docs/assets/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},  # else it may ask an outside validator
        )

    @app.get("/docs/assets/{name}", include_in_schema=False)
    async def docs_asset(name: str) -> Response:
        if name not in DOCS_ASSETS:
            raise HTTPException(404)
        # Read on request (they are large and rarely asked for); browsers may keep them a day.
        content = package_file(fastapi_offline, "static", name)
        return Response(content, media_type=DOCS_ASSETS[name], headers={"Cache-Control": "max-age=86400"})

    daily.mount(app, service.settings.daily_db)
    app.include_router(players.router(service.players))
    return app


def design_routes(app: FastAPI, service: Served) -> None:
    """The team's own routes, which the public service has none of: the interpreter and the
    counters (``Service`` answers both itself; they are declared here for the schema)."""

    @app.post(
        "/run",
        summary="Apply operations in a fresh session, like run()",
        response_description="The outputs, one per operation: exactly what run() returns",
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {JSON: {"schema": {"type": "array", "items": {}}, "example": RUN_EXAMPLE}},
            }
        },
    )
    async def run_operations(request: Request) -> Response:
        # The same limit as the route Service answers itself: wherever /run is mounted.
        body = await read_body(request.scope, request.receive, service.settings.max_body_bytes)
        return Response(await service.outputs(body), media_type=JSON)

    @app.get("/metrics", summary="Counters in Prometheus's text format")
    async def metrics() -> Response:
        return Response(service.metrics.text(), media_type=CONTENT_TYPE)
