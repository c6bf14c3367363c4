"""The ASGI application: ``POST /run``, ``GET /health`` and the explorer page at ``GET /``.

``create_app(settings)`` builds an independent application from its settings; nothing here is
module state, so tests can build apps with other limits side by side. ``default_app`` is the
zero-argument factory uvicorn imports by name (it needs a name to start several workers).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect

from triples import __version__
from triples.api import run
from triples.cli import json_kind, load_json
from triples.service import daily

MIB = 1024 * 1024
JSON = "application/json"

# The explorer's files: name in the URL -> (file in static/, media type).
STATIC_FILES = {
    "explorer.css": "text/css; charset=utf-8",
    "explorer.js": "text/javascript; charset=utf-8",
}
# Requests run in the event loop when they are surely quick: handing one to a worker thread
# costs about twice what a small game costs. Longer ones, and any search, go to a thread so
# that one slow request cannot stall every other connection.
INLINE_OPERATIONS = 8
SEARCHING_OPERATIONS = frozenset({"best", "solve", "autoplay"})
RUN_EXAMPLE = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]]


class ServiceSettings(BaseModel):
    """The limits a request must keep within (the defaults are the documented ones, docs/service.md)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    max_body_bytes: int = Field(default=MIB, ge=1)
    max_operations: int = Field(default=10_000, ge=0)
    daily_db: str | None = None  # the store whose calendar GET /daily serves (triples serve --db)


class RequestRejected(Exception):
    """A request the service answers with a 4xx status and ``{"error": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_response(content: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    # The same writer as `triples run`: the body of POST /run is byte for byte what it prints.
    return Response(orjson.dumps(content) + b"\n", status_code=status, media_type=JSON, headers=headers)


def error_response(status: int, message: str, headers: Mapping[str, str] | None = None) -> Response:
    return json_response({"error": message}, status, headers)


def size_limit_text(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit} bytes"


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, refused as soon as it is known to pass ``limit`` bytes.

    A declared length over the limit is refused before any of the body is read; otherwise the
    body is read chunk by chunk and reading stops at the first byte past the limit, so a huge
    or endless upload never sits in memory.
    """
    too_large = RequestRejected(413, f"request body over {size_limit_text(limit)}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise too_large
            chunks.append(chunk)
    except ClientDisconnect:
        raise RequestRejected(400, "client disconnected before the body was complete") from None
    return b"".join(chunks)


def parse_operations(body: bytes, max_operations: int) -> list[Any]:
    try:
        operations = load_json(body)
    except orjson.JSONDecodeError as exc:
        raise RequestRejected(400, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    if not isinstance(operations, list):
        raise RequestRejected(400, f"expected a JSON array of operations, got {json_kind(operations)}")
    if len(operations) > max_operations:
        raise RequestRejected(413, f"more than {max_operations} operations ({len(operations)})")
    return operations


def quick(operations: list[Any]) -> bool:
    """Whether ``operations`` surely run in well under a millisecond or so."""
    if len(operations) > INLINE_OPERATIONS:
        return False
    return not any(
        isinstance(op, list) and op and isinstance(op[0], str) and op[0] in SEARCHING_OPERATIONS for op in operations
    )


def static_text(name: str) -> bytes:
    return resources.files("triples.service").joinpath("static", name).read_bytes()


def create_app(settings: ServiceSettings) -> FastAPI:
    """A new application serving the interpreter within ``settings``' limits."""
    app = FastAPI(
        title="Triples",
        redirect_slashes=False,  # /run/ is another path: a 404, not a redirect to follow
        version=__version__,
        description="The Triples interpreter over HTTP and the deal explorer at `/`.",
    )
    pages = {"": static_text("index.html"), **{name: static_text(name) for name in STATIC_FILES}}

    @app.exception_handler(RequestRejected)
    async def rejected(request: Request, exc: RequestRejected) -> Response:
        return error_response(exc.status, exc.message)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        # The framework's own 404 and 405 (and any other HTTP error) in the service's shape.
        message = {404: "not found", 405: "method not allowed"}.get(exc.status_code, str(exc.detail)).lower()
        return error_response(exc.status_code, f"{message}: {request.method} {request.url.path}", exc.headers)

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception) -> Response:
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
        operations = parse_operations(await read_body(request, settings.max_body_bytes), settings.max_operations)
        outputs = run(operations) if quick(operations) else await run_in_threadpool(run, operations)
        return json_response(outputs)

    daily.mount(app, settings.daily_db)

    @app.get("/health", summary="Liveness and version")
    async def health() -> Response:
        return json_response({"ok": True, "version": __version__})

    @app.get("/", include_in_schema=False)
    async def explorer() -> Response:
        return Response(pages[""], media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-cache"})

    @app.get("/static/{name}", include_in_schema=False)
    async def static_file(name: str) -> Response:
        if name not in STATIC_FILES:
            raise HTTPException(404)
        return Response(pages[name], media_type=STATIC_FILES[name], headers={"Cache-Control": "no-cache"})

    return app


def default_app() -> FastAPI:
    """The application with the default limits, for ``uvicorn triples.service.app:default_app --factory``."""
    return create_app(ServiceSettings(daily_db=daily.db_from_environment()))
