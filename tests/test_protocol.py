"""The service's connections, against a real ``triples serve``: idle and half-sent connections
are closed, a trickle of headers cannot hold one, at most so many are open at once (under a
low open-file limit too), and whatever the HTTP parser cannot read is answered in JSON."""

from __future__ import annotations

import contextlib
import json
import select
import socket
import time
import urllib.request
from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.processes import serving
from triples.doors.service.protocol import MAX_HEADER_BYTES

SHORT = ("--header-timeout", "1", "--idle-timeout", "1")
CLOSED_FOR_NEWER = "closed for a newer connection: this one sent no complete request"


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    with serving(*SHORT) as (port, _):
        yield port


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30)


def received(connection: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """Everything the server sends until it closes: its status, headers and body."""
    data = b""
    while chunk := connection.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def one_answer(connection: socket.socket) -> tuple[int, bytes]:
    """One response on a connection that stays open: its status and body."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += connection.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(next(line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")).split()[1])
    while len(body) < length:
        body += connection.recv(65536)
    return int(head.split()[1]), body


def error_of(answer: tuple[int, dict[str, str], bytes]) -> tuple[int, str]:
    status, headers, body = answer
    assert (headers["content-type"], headers["connection"]) == ("application/json", "close")
    return status, json.loads(body)["error"]


def healthy(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as response:
        return bool(response.status == 200)


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost x\r\n\r\n",
        b"POST /run HTTP/1.1\r\nContent-Length: x\r\n\r\n",
    ],
    ids=["no-method", "header-without-colon", "bad-length"],
)
def test_malformed_http_is_answered_in_json(server: int, request_bytes: bytes) -> None:
    with connect(server) as connection:
        connection.sendall(request_bytes)
        assert error_of(received(connection)) == (400, "malformed HTTP request")


def test_a_connection_that_sends_nothing_is_closed(server: int) -> None:
    with connect(server) as connection:
        assert connection.recv(1) == b""  # closed, with nothing said: nothing was asked


def test_headers_that_never_end_are_answered_408(server: int) -> None:
    with connect(server) as connection:
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        assert error_of(received(connection)) == (408, "request headers not complete within 1 s")


def test_headers_over_their_limit_are_answered_431(server: int) -> None:
    with connect(server) as connection:
        with contextlib.suppress(ConnectionError):  # closed while this was still sending: the answer is below
            connection.sendall(b"GET /health HTTP/1.1\r\nX-Big: " + b"a" * (MAX_HEADER_BYTES + 10) + b"\r\n\r\n")
        assert error_of(received(connection)) == (431, "request line and headers over 64 KiB")


def test_a_body_that_stops_arriving_closes_its_connection(server: int) -> None:
    with connect(server) as connection:
        connection.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[")
        assert error_of(received(connection)) == (408, "request body stopped arriving for 1 s")
    assert healthy(server)


def test_a_keep_alive_connection_is_served_then_closed_when_idle(server: int) -> None:
    with connect(server) as connection:
        for _ in range(3):
            connection.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
            assert one_answer(connection)[0] == 200
        assert connection.recv(1) == b""


def test_connections_past_the_cap_close_the_longest_waiting_one_under_a_low_file_limit() -> None:
    with serving("--max-connections", "8", files=64) as (port, _):
        silent = [connect(port) for _ in range(8)]
        # Many more than the open-file limit allows: each arrival closes the oldest silent one.
        more = [connect(port) for _ in range(100)]
        assert healthy(port)
        assert error_of(received(silent[0])) == (
            408,
            "closed for a newer connection: this one sent no complete request",
        )
        # Eight connections each in the middle of a request's body: busy, none is closed for another.
        busy = [connect(port) for _ in range(8)]
        for connection in busy:
            connection.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\n[")
        time.sleep(0.3)  # for the server to read them
        with connect(port) as newcomer:
            assert error_of(received(newcomer)) == (503, "the service has too many connections open; try again shortly")
        for connection in busy:  # the body ends: each request is answered
            connection.sendall(b" ]")
            assert one_answer(connection) == (200, b"[]\n")
        for connection in [*silent, *more, *busy]:
            connection.close()
        assert healthy(port)


def test_a_body_slower_than_headers_may_be_is_closed_for_a_newer_connection() -> None:
    with serving("--max-connections", "4", "--header-timeout", "1", "--idle-timeout", "30") as (port, _):
        slow = [connect(port) for _ in range(4)]
        for connection in slow:
            connection.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n[")
        time.sleep(1.5)  # longer than headers may take: these bodies trickle
        assert healthy(port)
        # One of them (the one waiting longest: on a loaded machine the server may have taken
        # them in another order than they were opened) was closed for the newcomer.
        closed = select.select(slow, [], [], 5)[0]
        assert len(closed) == 1 and select.select([c for c in slow if c not in closed], [], [], 0.2)[0] == []
        assert error_of(received(closed[0])) == (408, CLOSED_FOR_NEWER)
        for connection in slow:
            connection.close()
