"""Starting the service: what ``triples serve`` runs, with uvicorn as the server."""

from __future__ import annotations

import socket

import uvicorn

APP_FACTORY = "triples.service.app:default_app"  # by name: uvicorn's workers import it themselves


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


def serve(host: str, port: int, workers: int, access_log: bool) -> None:
    """Serve until interrupted; Ctrl-C shuts down gracefully, then raises KeyboardInterrupt."""
    check_address(host, port)
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
