"""The service's logs: plain lines for a person at a terminal, or JSON lines for a machine.

Every request is logged once when it is answered (``triples.access``): method, path, status,
duration and the request's id, which the answer also carries in its ``X-Request-ID`` header. A
client may send its own id (up to 64 letters, digits, ``.``, ``_`` or ``-``); otherwise one is
made. Errors are logged with their traceback (never sent to the client) and the same request
id, whichever logger writes them: the id lives in a context variable that follows the request
into the thread that computes it.

``log_config(fmt)`` is the logging configuration ``uvicorn.run`` takes, so that uvicorn's own
lines (startup, shutdown, its errors) come out in the same format.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

FORMATS = ("text", "json")
ACCESS = logging.getLogger("triples.access")
ERRORS = logging.getLogger("triples.errors")
REQUEST_ID_HEADER = "x-request-id"
_SANE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
_request_id: ContextVar[str | None] = ContextVar("triples_request_id", default=None)
# What an access record carries beyond its message, in this order in a JSON line.
REQUEST_FIELDS = ("request_id", "method", "path", "status", "duration_ms")


def request_id_of(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's own request id when it sent a sane one, else a new one."""
    for name, value in headers:
        if name == b"x-request-id":
            text = value.decode("latin-1")
            if _SANE_ID.fullmatch(text):
                return text
    return secrets.token_hex(8)


def begin_request(request_id: str) -> object:
    """Mark this context (and the threads it hands work to) as the request's; the token undoes it."""
    return _request_id.set(request_id)


def end_request(token: object) -> None:
    _request_id.reset(token)  # type: ignore[arg-type]


def current_request_id() -> str | None:
    return _request_id.get()


def log_access(method: str, path: str, status: int, seconds: float, request_id: str) -> None:
    duration = round(seconds * 1000, 3)
    ACCESS.info(
        "%s %s %d %.1f ms",
        method,
        path,
        status,
        duration,
        extra={"request_id": request_id, "method": method, "path": path, "status": status, "duration_ms": duration},
    )


class RequestIdFilter(logging.Filter):
    """Give every record the id of the request it was written for (None outside requests)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = _request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, the request's
    fields when there are any, and the traceback of an error."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for field in REQUEST_FIELDS:
            value = getattr(record, field, None)
            if value is not None:
                line[field] = value
        if record.exc_info:
            line["traceback"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False)


class TextFormatter(logging.Formatter):
    """``time level [request id] message``, the traceback below an error."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")
        request = getattr(record, "request_id", None)
        text = f"{stamp} {record.levelname:<7} " + (f"[{request}] " if request else "") + record.getMessage()
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def log_config(fmt: str, access_log: bool = True) -> dict[str, Any]:
    """The ``logging.config.dictConfig`` of the service in ``fmt`` (``text`` or ``json``): our
    loggers and uvicorn's to stderr through one formatter; uvicorn's own access lines off (the
    service writes its own, with the request id)."""
    formatter = f"{__name__}.JsonFormatter" if fmt == "json" else f"{__name__}.TextFormatter"
    handler = {"class": "logging.StreamHandler", "formatter": "service", "filters": ["request_id"]}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": f"{__name__}.RequestIdFilter"}},
        "formatters": {"service": {"()": formatter}},
        "handlers": {"stderr": {**handler, "stream": "ext://sys.stderr"}},
        "loggers": {
            "triples": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            "triples.access": {"level": "INFO" if access_log else "WARNING"},
            "uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
