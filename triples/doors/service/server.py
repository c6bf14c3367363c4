"""Starting the service: what ``triples serve`` runs, with uvicorn as the server."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn

from triples.doors.service import logs
from triples.doors.service.factory import tune_service_process
from triples.doors.service.metrics import MULTIPROCESS_VARIABLE
from triples.doors.service.protocol import Protocol
from triples.doors.service.settings import ServiceSettings, variables

APP_FACTORY = "triples.doors.service.factory:default_app"  # by name: uvicorn's workers import it themselves
# Seconds a stopping server waits for the requests under way before it stops them (their work
# ends at its next look at the clock), so that SIGTERM or Ctrl-C ends it within a few seconds.
SHUTDOWN_GRACE = 2.0


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


def serve(
    host: str, port: int, workers: int, settings: ServiceSettings | None = None, forwarded_allow_ips: str = "127.0.0.1"
) -> None:
    """Serve until interrupted; Ctrl-C or SIGTERM shuts down gracefully (within
    ``SHUTDOWN_GRACE`` seconds of waiting for the requests under way), then returns or raises
    KeyboardInterrupt.

    uvicorn uses uvloop and httptools (the serve extra has them: about a third less CPU per
    request than the pure-Python loop and parser), with the service's own connection limits
    (``protocol.Protocol``). The settings reach every worker process through the environment.
    """
    settings = settings or ServiceSettings()
    check_address(host, port)
    os.environ.update(variables(settings))
    tune_service_process()
    with shared_metrics(workers):
        uvicorn.run(
            APP_FACTORY,
            factory=True,
            host=host,
            port=port,
            workers=workers,
            access_log=False,  # the service writes its own access lines, with the request id
            log_config=logs.log_config(settings.log_format, settings.access_log),
            server_header=False,
            root_path=settings.root_path,
            proxy_headers=True,
            forwarded_allow_ips=forwarded_allow_ips,
            http=Protocol,
            timeout_keep_alive=round(settings.idle_timeout) or 1,
            timeout_graceful_shutdown=round(SHUTDOWN_GRACE),
        )


@contextmanager
def shared_metrics(workers: int) -> Iterator[None]:
    """With several server processes, a folder where each writes its counters, so that every
    scrape of ``/metrics``, whichever process answers it, adds up all of them (prometheus-client's
    multiprocess mode, which reads ``PROMETHEUS_MULTIPROC_DIR`` when the workers load it)."""
    if workers == 1:
        yield
        return
    with tempfile.TemporaryDirectory(prefix="triples-metrics-") as folder:
        os.environ[MULTIPROCESS_VARIABLE] = folder
        try:
            yield
        finally:
            os.environ.pop(MULTIPROCESS_VARIABLE, None)
