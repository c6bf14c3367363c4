"""The service's HTTP/1.1 connections: uvicorn's protocol (httptools), with the service's limits
on the connections themselves, and its errors in JSON like every other.

- A connection that sends nothing for ``idle_timeout`` seconds is closed: before its first
  request (uvicorn only times the wait between requests), between requests, and in the middle
  of a request's body.
- A request whose line and headers have not all arrived ``header_timeout`` seconds after its
  first byte is answered ``408`` and closed, and so is one whose headers pass
  ``MAX_HEADER_BYTES`` (``431``): a client that trickles its headers cannot hold a connection.
- At most ``max_connections`` are open at once. One more arriving closes, in its favour, the
  connection that has waited longest without a complete request (an idle keep-alive, one in
  its headers, or one whose body has taken longer than ``header_timeout``: a trickler); when
  every one is busy with a request, the newcomer is answered ``503`` and closed.
- What the parser cannot read is answered ``400`` with ``{"error": ...}``, not plain text.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

MAX_HEADER_BYTES = 64 * 1024  # a request's line and headers together


def settings_of(app: Any) -> Any:
    """The ``ServiceSettings`` of the application uvicorn serves (under its middleware), or the
    defaults when it is some other application."""
    from triples.doors.service.settings import ServiceSettings

    for _ in range(10):
        settings = getattr(app, "settings", None)
        if isinstance(settings, ServiceSettings):
            return settings
        app = getattr(app, "app", None)
    return ServiceSettings()


def error_bytes(status: int, message: str) -> bytes:
    """A whole response: ``{"error": message}`` with ``status``, and the connection closing."""
    body = orjson.dumps({"error": message}) + b"\n"
    return b"".join(
        [
            STATUS_LINE[status],
            b"content-type: application/json\r\n",
            b"content-length: " + str(len(body)).encode() + b"\r\n",
            b"connection: close\r\n\r\n",
            body,
        ]
    )


class Protocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the limits above (``triples serve`` uses it)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = settings_of(self.app)
        self.header_timeout: float = settings.header_timeout
        self.idle_timeout: float = settings.idle_timeout
        self.timeout_keep_alive = settings.idle_timeout  # uvicorn's wait between requests
        self.max_connections: int = settings.max_connections
        self.waiting_since: float | None = None  # since when it has waited without a complete request
        self.header_bytes = 0
        self.header_timer: asyncio.TimerHandle | None = None
        self.in_body = False
        self.body_since = 0.0  # when the body being read began
        self.last_data = 0.0
        self.body_timer: asyncio.TimerHandle | None = None

    # ------------------------------------------------------------ connections

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        room = self.make_room()
        super().connection_made(transport)
        if not room:
            self.refuse(503, "the service has too many connections open; try again shortly")
            return
        self.waiting_since = self.loop.time()
        self.timeout_keep_alive_task = self.loop.call_later(self.idle_timeout, self.timeout_keep_alive_handler)

    def make_room(self) -> bool:
        """Whether a new connection may stay: below the cap, or once the connection that has
        waited longest without a complete request is closed for it."""
        if len(self.connections) < self.max_connections:
            return True
        waiting = [
            (since, other)
            for other in self.connections
            if isinstance(other, Protocol) and (since := other.waiting_for_request()) is not None
        ]
        if not waiting:
            return False
        _, oldest = min(waiting, key=lambda pair: pair[0])
        oldest.refuse(408, "closed for a newer connection: this one sent no complete request")
        self.connections.discard(oldest)
        return True

    def waiting_for_request(self) -> float | None:
        """Since when this connection has waited without a complete request, if it has: idle,
        in its headers, or in a body that has taken longer than headers may (a trickler)."""
        if self.waiting_since is not None:
            return self.waiting_since
        if self.in_body and self.loop.time() - self.body_since > self.header_timeout:
            return self.body_since
        return None

    def refuse(self, status: int, message: str) -> None:
        """Answer ``{"error": message}`` with ``status`` and close, unless a response is under way."""
        self.stop_timers()
        self.waiting_since = None
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started or self.cycle.response_complete:
            # Nothing of a response is out (the application, if any, waits for the body: it
            # hears the client has gone, and its answer goes nowhere).
            transport.write(error_bytes(status, message))
        transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.stop_timers()
        self.waiting_since = None
        super().connection_lost(exc)

    def stop_timers(self) -> None:
        for timer in (self.header_timer, self.body_timer):
            if timer is not None:
                timer.cancel()
        self.header_timer = self.body_timer = None

    def send_400_response(self, msg: str) -> None:
        self.refuse(400, "malformed HTTP request")

    # ------------------------------------------------------------ a request arriving

    def data_received(self, data: bytes) -> None:
        self.last_data = self.loop.time()
        if self.header_timer is None and not self.in_body and (self.cycle is None or self.cycle.response_complete):
            # The first byte of a request (or of blank lines before one): its headers are timed.
            self.header_timer = self.loop.call_later(self.header_timeout, self.headers_too_slow)
        super().data_received(data)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.header_bytes = 0

    def on_url(self, url: bytes) -> None:
        self.count_header_bytes(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self.count_header_bytes(len(name) + len(value) + 4)
        super().on_header(name, value)

    def count_header_bytes(self, size: int) -> None:
        self.header_bytes += size
        if self.header_bytes > MAX_HEADER_BYTES:
            self.refuse(431, f"request line and headers over {MAX_HEADER_BYTES // 1024} KiB")

    def headers_too_slow(self) -> None:
        self.header_timer = None
        self.refuse(408, f"request headers not complete within {self.header_timeout:g} s")

    def on_headers_complete(self) -> None:
        if self.header_timer is not None:
            self.header_timer.cancel()
            self.header_timer = None
        if self.transport.is_closing():
            return
        self.waiting_since = None
        self.in_body = True
        self.body_since = self.loop.time()
        self.body_timer = self.loop.call_later(self.idle_timeout, self.body_idle)
        super().on_headers_complete()

    def body_idle(self) -> None:
        """Close a request whose body has stopped arriving (the application sees a disconnect)."""
        self.body_timer = None
        if not self.in_body:
            return
        silent = self.loop.time() - self.last_data
        if silent < self.idle_timeout:
            self.body_timer = self.loop.call_later(self.idle_timeout - silent, self.body_idle)
            return
        self.refuse(408, f"request body stopped arriving for {self.idle_timeout:g} s")

    def on_message_complete(self) -> None:
        self.in_body = False
        if self.body_timer is not None:
            self.body_timer.cancel()
            self.body_timer = None
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self.waiting_since = self.loop.time()
