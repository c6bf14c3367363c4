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
import hmac
import logging
import math
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from time import perf_counter
from typing import Any

from starlette.concurrency import run_in_threadpool

from triples import __version__
from triples.doors.service import logs, players
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
from triples.doors.service.metrics import CONTENT_TYPE, ServiceMetrics
from triples.doors.service.pages import pages_app
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
METRICS_TOKEN_NEEDED = "GET /metrics needs Authorization: Bearer TOKEN (triples serve --metrics-token)"
log = logging.getLogger("triples.service")

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]


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
            if path == "/run" and method == "POST" and not self.settings.public:
                await self.answer_run(scope, receive, send_noting_status)
            elif path == "/health" and method == "GET":
                await self.answer_health(send_noting_status)
            elif path == "/metrics" and method == "GET" and self.metrics_allowed:
                await self.answer_metrics(scope, send_noting_status)
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

    @property
    def metrics_allowed(self) -> bool:
        """The team's service always has ``/metrics``; the public one only behind a token."""
        return not self.settings.public or self.settings.metrics_token is not None

    async def answer_metrics(self, scope: Scope, send: Send) -> None:
        token = self.settings.metrics_token
        if token is not None:
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, b"Bearer " + token.encode()):
                message = dumps(
                    {"error": "GET /metrics needs Authorization: Bearer TOKEN (triples serve --metrics-token)"}
                )
                await respond(send, 401, message, extra={"www-authenticate": "Bearer"})
                return
        await respond(send, 200, self.metrics.text(), CONTENT_TYPE.encode())

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


def create_app(settings: ServiceSettings) -> Service:
    """A new application serving the interpreter within ``settings``' limits."""
    return Service(settings)
