"""The ASGI application: ``POST /run``, ``GET /health``, ``GET /metrics``, the explorer page at
``GET /`` and the OpenAPI page at ``GET /docs``.

``create_app(settings)`` builds an independent application from its settings; nothing here is
module state, so tests can build apps with other limits side by side. ``factory.default_app``
is the zero-argument factory uvicorn imports by name (it needs a name to start several workers).

The three routes a client calls all the time (``/run``, ``/health``, ``/metrics``) are answered
by ``Service`` straight from the ASGI messages; FastAPI answers the rest (pages, the OpenAPI
schema and its page, 404 and 405), which keeps a request's cost close to the interpreter's own.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import math
import os
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import resources
from time import perf_counter
from typing import Any

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException

from triples import __version__
from triples.doors.service import daily, logs, players
from triples.doors.service.answers import (
    QUICK_BODY_BYTES,
    Answering,
    Receive,
    Refused,
    Scope,
    Stopped,
    declared_length,
    discard,
    in_a_worker,
    on_the_event_loop,
    read_body,
)
from triples.doors.service.gate import Gate, Overloaded
from triples.doors.service.metrics import CONTENT_TYPE, MULTIPROCESS_VARIABLE, ServiceMetrics
from triples.doors.service.settings import ServiceSettings
from triples.interpreter.jsonio import dumps
from triples.interpreter.session import OPERATIONS
from triples.store import readable
from triples.support import caches
from triples.support.deadline import Deadline

JSON = "application/json"
STOPPING = "the service is stopping: its work was stopped"
INTERNAL_ERROR = b'"error: internal error ('  # how a defect's answer begins, written as JSON
STORE_CHECK_SECONDS = 1.0
log = logging.getLogger("triples.service")

# The explorer's files: name in the URL -> (file in static/, media type).
STATIC_FILES = {
    "explorer.css": "text/css; charset=utf-8",
    "explorer.js": "text/javascript; charset=utf-8",
    "triples.js": "text/javascript; charset=utf-8",
    "rules.js": "text/javascript; charset=utf-8",
    "pyramid.js": "text/javascript; charset=utf-8",
    "quartets.js": "text/javascript; charset=utf-8",
    "challenge.js": "text/javascript; charset=utf-8",
}
# The OpenAPI page's files, from the fastapi-offline package: served here, never from a CDN.
DOCS_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon.png": "image/png",
}
RUN_EXAMPLE = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]]

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]


def json_response(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    # The same writer as `triples run`: the body of POST /run is byte for byte what it prints.
    return Response(dumps(content), status_code=status, media_type=JSON, headers=headers)


def error_response(status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    return json_response({"error": message}, status, headers)


def package_file(package: Any, *path: str) -> bytes:
    return resources.files(package).joinpath(*path).read_bytes()


class Service:
    """The application: the frequent routes answered here, everything else by ``fastapi``."""

    def __init__(self, settings: ServiceSettings) -> None:
        self.settings = settings
        self.gate = Gate(settings.max_running, settings.max_waiting, settings.max_wait)
        # The threads that compute: as many as may run at once, so an admitted request starts at once.
        self.workers = ThreadPoolExecutor(settings.max_running, thread_name_prefix="triples-run")
        self.metrics = ServiceMetrics(OPERATIONS, settings.daily_db)
        self.store_checked: tuple[float, str | None] = (-math.inf, None)
        self.players = players.PlayersDoor(settings.daily_db, settings.limits)
        self.fastapi = pages_app(self)
        self.health_body = dumps({"ok": True, "version": __version__})
        caches.set_budget(settings.cache_bytes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.fastapi(scope, receive, send)  # lifespan
            return
        started = perf_counter()
        path, method = route_path(scope), scope["method"]
        status = 500
        metrics = self.metrics
        metrics.in_flight.inc()
        request_id = logs.request_id_of(scope["headers"])
        token = logs.begin_request(request_id)
        id_header = (logs.REQUEST_ID_HEADER.encode(), request_id.encode())

        async def send_noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), id_header]
            await send(message)

        try:
            if path == "/run" and method == "POST":
                await self.answer_run(scope, receive, send_noting_status)
            elif path == "/health" and method == "GET":
                await self.answer_health(send_noting_status)
            elif path == "/metrics" and method == "GET":
                await respond(send_noting_status, 200, metrics.text(), CONTENT_TYPE.encode())
            elif path.startswith(players.PREFIXES) and self.players.answers(method, path):
                await self.answer_players(scope, receive, send_noting_status, path)
            else:
                await self.fastapi(scope, receive, send_noting_status)
        finally:
            seconds = perf_counter() - started
            metrics.in_flight.dec()
            metrics.observe(path, status, seconds)
            if status >= 500 and status != 503:
                metrics.internal_errors.inc()
            if logs.ACCESS.isEnabledFor(logging.INFO):
                logs.log_access(method, path, status, seconds, request_id)
            logs.end_request(token)

    async def answer_health(self, send: Send) -> None:
        """``{"ok": true, "version"}``, or with a store that cannot be read now, ``503``
        ``{"ok": false, "version", "store": why}``: a load balancer stops sending players to it."""
        db = self.settings.daily_db
        problem = None if db is None or "://" in db else await self.store_problem(db)
        if problem is None:
            await respond(send, 200, self.health_body)
        else:
            await respond(send, 503, dumps({"ok": False, "version": __version__, "store": problem}))

    async def store_problem(self, db: str) -> str | None:
        """Why the store cannot be read, looked at once a second at most (health checks come often)."""
        now = perf_counter()
        checked, problem = self.store_checked
        if now - checked >= STORE_CHECK_SECONDS:
            problem = await run_in_threadpool(readable, db)
            self.store_checked = (now, problem)
        return problem

    async def answer_run(self, scope: Scope, receive: Receive, send: Send) -> None:
        length = declared_length(scope) or 0
        try:
            if self.gate.full() and length > QUICK_BODY_BYTES:
                # Refused before it is read as JSON; its body is read and dropped all the same
                # (up to a bound) so that the client hears the answer.
                raise await discard(scope, receive, 0, self.busy(self.gate.retry_after))
            body = await self.outputs(await read_body(scope, receive, self.settings.max_body_bytes))
        except Refused as exc:
            await respond(send, exc.status, dumps({"error": exc.message}), extra=exc.headers)
            return
        except Exception as exc:  # a defect: still a JSON answer, never a traceback
            log.exception("internal error answering POST /run")
            await respond(send, 500, dumps({"error": f"internal error ({type(exc).__name__})"}))
            return
        await respond(send, 200, body)

    async def answer_players(self, scope: Scope, receive: Receive, send: Send, path: str) -> None:
        try:
            body = await read_body(scope, receive, players.MAX_BODY_BYTES)
        except Refused as exc:
            await respond(send, exc.status, dumps({"error": exc.message}), extra={**players.HEADERS, **exc.headers})
            return
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        client = (scope.get("client") or ("unknown", 0))[0]
        query = scope["query_string"].decode("latin-1")
        answer = await self.players.answer(scope["method"], path, query, headers, client, body)
        status, content, extra = players.encoded(answer)
        await respond(send, status, content, extra=extra)

    async def outputs(self, body: bytes) -> bytes:
        """The answer to a ``POST /run`` body, or ``Refused``."""
        settings = self.settings
        answering = on_the_event_loop(body, settings.max_operations)
        if answering.done:
            self.count(answering)
            return answering.body()
        if answering.operations is None and self.gate.full():
            raise self.busy(self.gate.retry_after)
        try:
            async with self.gate.admitted():
                limit = Deadline(settings.time_limit)
                work = asyncio.get_running_loop().run_in_executor(
                    self.workers,
                    contextvars.copy_context().run,  # what the work logs carries the request's id
                    in_a_worker,
                    answering,
                    body,
                    limit,
                    settings.time_limit,
                    settings.max_operations,
                    settings.max_answer_bytes,
                )
                try:
                    await work
                except asyncio.CancelledError:  # the server is stopping: so does the work
                    limit.expire()
                    raise Refused(503, STOPPING) from None
        except Overloaded as exc:
            raise self.busy(exc.retry_after) from None
        except Stopped as exc:
            self.metrics.time_limit_hits.inc()
            raise Refused(503, str(exc)) from None
        finally:
            self.count(answering)
        return answering.body()

    def count(self, answering: Answering) -> None:
        """Count the operations that ran (or began to): a refused request, or the operations a
        time limit left undone, count nothing; and the defects among their answers (each logged
        with its traceback by the interpreter)."""
        if answering.operations is not None and answering.started:
            self.metrics.count_operations(answering.operations[: answering.started])
        defects = sum(part.startswith(INTERNAL_ERROR) for part in answering.parts)
        if defects:
            self.metrics.internal_errors.inc(defects)

    def busy(self, retry_after: int) -> Refused:
        self.metrics.overloaded.inc()
        return Refused(503, str(Overloaded(retry_after)), {"retry-after": str(retry_after)})


def route_path(scope: Scope) -> str:
    """The request's path within the service: behind a proxy at a prefix (``--root-path
    /triples``), the server's path holds the prefix, which the routes do not."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        return path[len(root) :] or "/"
    return path


async def respond(
    send: Send, status: int, body: bytes, content_type: bytes = JSON.encode(), extra: dict[str, str] | None = None
) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    headers += [(name.encode(), value.encode()) for name, value in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    if os.environ.get(MULTIPROCESS_VARIABLE):  # this process's live gauges leave the sums
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]


def pages_app(service: Service) -> FastAPI:
    """The FastAPI application: the pages, the OpenAPI schema and its page, the error shapes.

    ``/run`` and ``/health`` are declared here too, for the schema (and for a caller that
    mounts this application alone); ``Service`` answers them before they get here.
    """
    app = FastAPI(
        lifespan=lifespan,
        title="Triples",
        redirect_slashes=False,  # /run/ is another path: a 404, not a redirect to follow
        version=__version__,
        description="The Triples interpreter over HTTP, and the deal explorer at `/`.",
        docs_url=None,  # served below, with its scripts from this package instead of a CDN
        redoc_url=None,
    )
    pages = {"": package_file("triples.doors.service", "static", "index.html")}
    pages |= {name: package_file("triples.doors.service", "static", name) for name in STATIC_FILES}

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

    @app.get("/health", summary="Liveness and version")
    async def health() -> Response:
        return Response(service.health_body, media_type=JSON)

    @app.get("/metrics", summary="Counters in Prometheus's text format")
    async def metrics() -> Response:
        return Response(service.metrics.text(), media_type=CONTENT_TYPE)

    @app.get("/", include_in_schema=False)
    async def explorer() -> Response:
        return Response(pages[""], media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str) -> Response:
        if name not in STATIC_FILES:
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


def create_app(settings: ServiceSettings) -> Service:
    """A new application serving the interpreter within ``settings``' limits."""
    return Service(settings)
