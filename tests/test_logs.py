"""The service's log lines: JSON a machine reads and text a person reads, both carrying the
request's id, errors with their traceback."""

from __future__ import annotations

import json
import logging
import logging.config
import re

import pytest

from triples.doors.service import logs


def record(message: str, **extra: object) -> logging.LogRecord:
    made = logging.LogRecord("triples.access", logging.INFO, __file__, 1, message, (), None)
    for name, value in extra.items():
        setattr(made, name, value)
    return made


def test_a_json_line_has_the_time_level_and_the_requests_fields() -> None:
    made = record("GET /health 200 0.4 ms", request_id="abc", method="GET", path="/health", status=200, duration_ms=0.4)
    made.created = 1_764_892_800.25  # 2025-12-05 00:00:00.250 UTC
    line = json.loads(logs.JsonFormatter().format(made))
    assert line == {
        "time": "2025-12-05T00:00:00.250+00:00",
        "level": "info",
        "logger": "triples.access",
        "message": "GET /health 200 0.4 ms",
        "request_id": "abc",
        "method": "GET",
        "path": "/health",
        "status": 200,
        "duration_ms": 0.4,
    }


def test_an_error_line_carries_its_traceback_in_json_and_in_text() -> None:
    try:
        raise ZeroDivisionError("defect")
    except ZeroDivisionError:
        made = logging.LogRecord("triples.interpreter", logging.ERROR, __file__, 1, "internal error", (), True)
        import sys

        made.exc_info = sys.exc_info()
    made.request_id = "r1"  # type: ignore[attr-defined]
    line = json.loads(logs.JsonFormatter().format(made))
    assert line["level"] == "error" and line["request_id"] == "r1"
    assert "ZeroDivisionError: defect" in line["traceback"]
    text = logs.TextFormatter().format(made)
    assert re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 ERROR   \[r1\] internal error\nTraceback", text)


@pytest.mark.parametrize(
    ("headers", "kept"),
    [
        ([(b"x-request-id", b"client-id.42_x")], True),
        ([(b"x-request-id", b"a b")], False),
        ([(b"x-request-id", b"x" * 65)], False),
        ([], False),
    ],
    ids=["sane", "space", "too-long", "none"],
)
def test_a_client_may_name_its_request_and_otherwise_one_is_made(
    headers: list[tuple[bytes, bytes]], kept: bool
) -> None:
    made = logs.request_id_of(headers)
    if kept:
        assert made == headers[0][1].decode()
    else:
        assert re.fullmatch(r"[0-9a-f]{16}", made)


def test_the_request_id_follows_the_context_into_every_record(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("triples.test-logs")
    logger.addFilter(logs.RequestIdFilter())
    token = logs.begin_request("req-7")
    try:
        with caplog.at_level(logging.INFO, logger="triples.test-logs"):
            logger.info("inside")
    finally:
        logs.end_request(token)
    logger.info("outside")
    assert [(r.getMessage(), r.request_id) for r in caplog.records] == [("inside", "req-7")]  # type: ignore[attr-defined]
    assert logs.current_request_id() is None


@pytest.mark.parametrize("fmt", logs.FORMATS)
def test_the_configuration_is_one_dictconfig_logging_accepts(fmt: str) -> None:
    config = logs.log_config(fmt)
    logging.config.dictConfig(config)
    try:
        formatter = logging.getLogger("triples").handlers[0].formatter
        assert type(formatter).__name__ == ("JsonFormatter" if fmt == "json" else "TextFormatter")
        assert logging.getLogger("uvicorn.access").level == logging.WARNING
    finally:
        logging.getLogger("triples").handlers.clear()
        logging.getLogger("uvicorn").handlers.clear()
        logging.getLogger("triples").propagate = True
        logging.getLogger("uvicorn").propagate = True
