"""The application as ``triples serve``'s processes make it: ``default_app``, the factory uvicorn
imports by name (it needs a name to start several workers), with its settings from the
environment, the service's process settings applied in each process, and CORS when asked for.
"""

from __future__ import annotations

import gc
import sys
from typing import Any

from triples.doors.kit.process import tune_for_the_engines
from triples.doors.service import logs
from triples.doors.service.app import Service, create_app
from triples.doors.service.settings import SettingsError, from_environment

SWITCH_INTERVAL = 0.0005  # seconds


def tune_service_process() -> None:
    """The service's process settings, applied by the parent and by every worker it starts.

    A search in a worker thread holds the GIL until the interpreter asks it to let go, every
    switch interval (5 ms by default); the event loop needs the GIL for every step of every
    request, so a shorter interval is what keeps quick requests quick beside a long search.
    """
    sys.setswitchinterval(SWITCH_INTERVAL)
    tune_for_the_engines()


def with_cors(service: Service, origins: tuple[str, ...]) -> Any:
    """``service`` answering browsers on the pages of ``origins`` too (``--cors-origin``): their
    requests get the CORS headers, their preflights an answer; other origins get neither."""
    if not origins:
        return service
    from starlette.middleware.cors import CORSMiddleware

    return CORSMiddleware(
        service,
        allow_origins=list(origins),
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type", logs.REQUEST_ID_HEADER],
        expose_headers=[logs.REQUEST_ID_HEADER, "Retry-After"],
        max_age=600,
    )


def default_app() -> Any:
    """The application with its settings from the environment (``settings.from_environment``:
    ``triples serve`` sets the variables), for ``uvicorn triples.doors.service.factory:default_app --factory``."""
    tune_service_process()  # each worker process applies the service's own settings
    try:
        settings = from_environment()
    except SettingsError as exc:  # triples serve checks them first: this is uvicorn started by hand
        raise SystemExit(f"triples: error: {exc}") from None
    app = with_cors(create_app(settings), settings.cors_origins)
    # What start-up made (modules, the application) lives as long as the process: out of the
    # garbage collector's way, its full collections (which hold the interpreter's lock, and so
    # the event loop) walk only what requests made.
    gc.freeze()
    return app
