"""Starting the service: what ``triples serve`` runs, with uvicorn as the server."""

from __future__ import annotations

import os
import socket
import sys

import uvicorn

from triples.doors.kit.process import tune_for_the_engines

APP_FACTORY = "triples.doors.service.app:default_app"  # by name: uvicorn's workers import it themselves
SWITCH_INTERVAL = 0.0005  # seconds
TIME_LIMIT_VARIABLE = "TRIPLES_TIME_LIMIT"  # how the workers learn the time limit: they inherit it


class CannotListen(Exception):
    """The address cannot be listened on (taken, not local, not a host name)."""


def check_address(host: str, port: int) -> None:
    """Bind the address once and let it go, so a taken port is one clear line, not a log dump."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds it
            probe.bind(address)
    except OSError as exc:
        raise CannotListen(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def tune_service_process() -> None:
    """The service's process settings, applied by the parent and by every worker it starts.

    A search in a worker thread holds the GIL until the interpreter asks it to let go, every
    switch interval (5 ms by default); the event loop needs the GIL for every step of every
    request, so a shorter interval is what keeps quick requests quick beside a long search.
    """
    sys.setswitchinterval(SWITCH_INTERVAL)
    tune_for_the_engines()


def serve(host: str, port: int, workers: int, access_log: bool, time_limit: float = 10.0) -> None:
    """Serve until interrupted; Ctrl-C shuts down gracefully, then raises KeyboardInterrupt.

    uvicorn picks uvloop and httptools when they are installed (the serve extra has them):
    about a third less CPU per request than the pure-Python loop and parser.
    """
    check_address(host, port)
    os.environ[TIME_LIMIT_VARIABLE] = repr(time_limit)
    tune_service_process()
    uvicorn.run(
        APP_FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        access_log=access_log,
        log_level="info",
        server_header=False,
    )
