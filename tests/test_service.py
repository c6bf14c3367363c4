"""The HTTP service, through FastAPI's test client: POST /run answers exactly what run() does,
byte for byte; every bad request gets ``{"error": ...}`` and its status; the explorer's files
are served from the package. A few checks run ``triples serve`` itself in a subprocess."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from fastapi.testclient import TestClient

from tests.helpers import SEED1, SEED1_TABLE
from triples import __version__, run
from triples.doors import cli
from triples.doors.service import ServiceSettings, answers, create_app
from triples.doors.service import app as service_app
from triples.doors.service import pages as service_pages
from triples.interpreter.operations import OPERATIONS, Args, Operation

MIB = 1024 * 1024
TIMEOUT = 30
ENV = {**os.environ, "COLUMNS": "80"}


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(ServiceSettings())) as test_client:
        yield test_client


def written(outputs: Any) -> bytes:
    """How `triples run` writes run()'s outputs (cli.run_command)."""
    return orjson.dumps(outputs) + b"\n"


def padded(operations: list[Any], size: int) -> bytes:
    """``operations`` as a JSON body of exactly ``size`` bytes (JSON whitespace fills it)."""
    text = orjson.dumps(operations)
    return text[:-1] + b" " * (size - len(text)) + b"]"


# ---------------------------------------------------------------- POST /run is run()

RUN_CASES = {
    "spec-seed1": [["new", "g", 1], ["play", "g", [5, 0, 2]], ["table", "g"], ["status", "g"], ["history", "g"]],
    "spec-errors": [["new", "g", 1], ["play", "g", [0, 0, 6]], ["play", "g", [-1, 0, 1]], ["moves", "g"]],
    "spec-autoplay-best": [["new", "g", 1], ["autoplay", "g"], ["status", "g"], ["new", "g", 1], ["best", "g"]],
    "spec-pairs": [["new", "p", 2, "pairs"], ["moves", "p"], ["solve", "p"]],
    "explicit-deck": [["new", 7, SEED1], ["play", 7, [0, 2, 5]], ["undo", 7], ["undo", 7], ["table", 7]],
    "every-error": [
        [],
        [1],
        ["nope"],
        ["play", "x", [0, 1, 2]],
        ["new", "g", 1, "poker"],
        ["new", "g", True],
        ["new", "g", [1]],
        ["autoplay", "g", "random"],
        "new",
        None,
    ],
    "integers-past-64-bits": [["new", "g", 18446744073709551616], ["new", "g", -1], ["new", "g", 18446744073709551615]],
    "unicode-names": [["nöpe"], ["new", "g", 1, "clässic"], ["new", "g", ["A♠"]]],
    "strategies": [["new", "g", 3, "quads"], ["autoplay", "g", "lookahead"], ["history", "g"], ["best", "g"]],
    "unhashable-names": [[["best"], "g"], [{"solve": 1}, "g"], [None]],
    "lone-surrogates": [["\udc00"], ["new", "\ud800", 1], ["status", "\ud800"]],
    "400-digit-seed": [["new", "g", 10**399 + 7], ["new", "h", (10**399 + 7) % 2**32], ["table", "g"], ["table", "h"]],
    "empty": [],
}


@pytest.mark.parametrize("operations", RUN_CASES.values(), ids=RUN_CASES.keys())
def test_run_answers_exactly_what_run_gives(client: TestClient, operations: list[Any]) -> None:
    # The standard library writes the request: orjson refuses integers past 64 bits.
    response = client.post("/run", content=json.dumps(operations).encode())
    assert (response.status_code, response.headers["content-type"]) == (200, "application/json")
    assert response.content == written(run(operations))


def test_spec_example_over_http(client: TestClient) -> None:
    response = client.post("/run", content=b'[["new","g",1],["play","g",[5,0,2]],["table","g"],["status","g"]]')
    assert response.json() == [
        SEED1_TABLE,
        "ok",
        ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
        {"cleared": 3, "stock": 39, "over": False},
    ]


def test_each_request_is_a_fresh_session(client: TestClient) -> None:
    assert client.post("/run", content=b'[["new","g",1]]').status_code == 200
    assert client.post("/run", content=b'[["table","g"]]').content == b'["error: unknown game"]\n'


def test_the_body_is_what_triples_run_prints(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    body = b'[["new","g",18446744073709551616],["new","g",1],["moves","g"],["nope"]]'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    assert cli.main(["run"]) == 0
    assert client.post("/run", content=body).content == capsysbinary.readouterr().out


def test_the_content_type_of_the_request_does_not_matter(client: TestClient) -> None:
    # curl -d sends application/x-www-form-urlencoded: the body is still read as JSON.
    headers = {"content-type": "application/x-www-form-urlencoded"}
    response = client.post("/run", content=b'[["new","g",1]]', headers=headers)
    assert response.content == written([SEED1_TABLE])


# ---------------------------------------------------------------- integers of any size


def big_integer_batch(digits: int) -> tuple[list[bytes], list[Any]]:
    """Operations naming an integer of ``digits`` digits as a seed, a game id, a deck value and
    a rule, and the outputs they must get: written from the digits' text, since str() stops at
    4300 digits. No operation answers with an input's integer; a deck value comes back inside
    its error message, exactly."""
    text = "1" + "0" * (digits - 2) + "7"
    seed = 10 ** (digits - 1) + 7
    operations = [
        f'["new","g",{text}]',
        f'["new",{text},2]',
        f'["table",{text}]',
        f'["new","n",[{text},1],"sum15"]',
        f'["new","v",1,"classic(target={text})"]',
    ]
    second = run([["new", "h", 2]])[0]
    outputs = [
        run([["new", "g", seed % 2**32]])[0],  # a seed counts modulo 2**32
        second,
        second,
        f"error: unknown value {text} for variant 'sum15'",
        "error: bad variant: target must be an integer from 1 to 999",
    ]
    return [line.encode() for line in operations], outputs


@pytest.mark.parametrize("digits", [400, 5000])
def test_integers_of_any_size_through_the_command_line_and_http(client: TestClient, digits: int) -> None:
    operations, outputs = big_integer_batch(digits)
    body = b"[" + b",".join(operations) + b"]"
    command = [sys.executable, "-m", "triples", "run"]
    done = subprocess.run(command, input=body, capture_output=True, timeout=TIMEOUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, written(outputs), b"")
    done = subprocess.run([*command, "--jsonl"], input=b"\n".join(operations), capture_output=True, timeout=TIMEOUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"".join(written(o) for o in outputs), b"")
    response = client.post("/run", content=body)
    assert (response.status_code, response.content) == (200, written(outputs))


def test_an_output_integer_of_any_size_is_written_exactly(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # No operation answers with an integer past 64 bits today; one that did would be written
    # exactly by both doors. An operation echoing its game id stands in for it.

    echo = Operation("echo", Args, lambda session, args: [args.id, -args.id], "cheap")
    text = "9" * 5000
    body = f'[["echo",{text}],["echo",18446744073709551616],["echo",1]]'.encode()
    expected = f"[[{text},-{text}],[18446744073709551616,-18446744073709551616],[1,-1]]\n".encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
    with OPERATIONS.replaced(echo):
        assert cli.main(["run"]) == 0
        assert capsysbinary.readouterr().out == expected
        response = client.post("/run", content=body)
    assert (response.status_code, response.content) == (200, expected)
    assert "echo" not in OPERATIONS


# ---------------------------------------------------------------- bad requests


def chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """A body of ``total`` bytes sent chunked (no Content-Length): a JSON array of spaces."""
    yield b"["
    left = total - 2
    while left > 0:
        yield b" " * min(size, left)
        left -= size
    yield b"]"


BAD_JSON = "invalid JSON at line 1, column "
NOT_ARRAY = "expected a JSON array of operations, got "
ERROR_CASES: dict[str, tuple[str, str, Any, int, str]] = {
    "invalid-json": (
        "POST",
        "/run",
        b'[["new","g",1]',
        400,
        BAD_JSON + "15: the input ends before the JSON value does",
    ),
    "trailing-garbage": ("POST", "/run", b"[] x", 400, BAD_JSON + "4: more text after the JSON value"),
    "empty-body": ("POST", "/run", b"", 400, "empty input: expected a JSON array of operations"),
    "blank-body": ("POST", "/run", b" \r\n", 400, "empty input: expected a JSON array of operations"),
    "not-utf8": ("POST", "/run", b'["\xff"]', 400, "input is not UTF-8 text"),
    "form-body": ("POST", "/run", b"-d", 400, BAD_JSON + "2: a '-' with no digit after it"),
    "nan": ("POST", "/run", b"[NaN]", 400, BAD_JSON + "2: unexpected character where a JSON value should start"),
    "object": ("POST", "/run", b'{"ops": []}', 400, NOT_ARRAY + "an object"),
    "string": ("POST", "/run", b'"new"', 400, NOT_ARRAY + "a string"),
    "number": ("POST", "/run", b"3", 400, NOT_ARRAY + "a number"),
    "boolean": ("POST", "/run", b"true", 400, NOT_ARRAY + "a boolean"),
    "null": ("POST", "/run", b"null", 400, NOT_ARRAY + "null"),
    "body-over-1-mib": ("POST", "/run", padded([], MIB + 1), 413, "request body over 1 MiB"),
    "chunked-body-over-1-mib": ("POST", "/run", "chunked", 413, "request body over 1 MiB"),
    "10001-operations": (
        "POST",
        "/run",
        orjson.dumps([["status", "g"]] * 10_001),
        413,
        "more than 10000 operations (10001)",
    ),
    "get-run": ("GET", "/run", None, 405, "method not allowed: GET /run"),
    "put-run": ("PUT", "/run", b"[]", 405, "method not allowed: PUT /run"),
    "post-health": ("POST", "/health", b"[]", 405, "method not allowed: POST /health"),
    "delete-root": ("DELETE", "/", None, 405, "method not allowed: DELETE /"),
    "unknown-path": ("GET", "/nope", None, 404, "not found: GET /nope"),
    "post-unknown-path": ("POST", "/run/", b"[]", 404, "not found: POST /run/"),
    "unknown-static-file": ("GET", "/static/app.js", None, 404, "not found: GET /static/app.js"),
}


@pytest.mark.parametrize(("method", "path", "body", "status", "message"), ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_bad_requests_get_a_json_error_and_status(
    client: TestClient, method: str, path: str, body: Any, status: int, message: str
) -> None:
    content = chunks(MIB + 100) if body == "chunked" else body
    response = client.request(method, path, content=content)
    assert (response.status_code, response.headers["content-type"]) == (status, "application/json")
    assert response.content == written({"error": message})


def test_405_says_which_methods_are_allowed(client: TestClient) -> None:
    assert client.get("/run").headers["allow"] == "POST"


@pytest.mark.parametrize(
    "body",
    [padded([["new", "g", 1], ["status", "g"]], MIB), b"[" + b" " * (MIB - 2) + b"]"],
    ids=["operations", "only-spaces"],
)
def test_a_body_of_exactly_1_mib_is_accepted(client: TestClient, body: bytes) -> None:
    assert len(body) == MIB
    response = client.post("/run", content=body)
    assert (response.status_code, response.content) == (200, written(run(orjson.loads(body))))


def test_a_chunked_body_within_the_limit_is_read_whole(client: TestClient) -> None:
    response = client.post("/run", content=chunks(MIB))
    assert (response.status_code, response.content) == (200, b"[]\n")


def test_10000_operations_are_accepted(client: TestClient) -> None:
    operations = [["new", "g", 1], *[["status", "g"]] * 9_999]
    response = client.post("/run", content=orjson.dumps(operations))
    assert (response.status_code, response.content) == (200, written(run(operations)))


def test_a_defect_is_a_json_500_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(body: bytes, max_operations: int) -> answers.Answering:
        raise RuntimeError("boom in /secret/path/store.db")

    monkeypatch.setattr(service_app, "on_the_event_loop", broken)
    with TestClient(create_app(ServiceSettings()), raise_server_exceptions=False) as test_client:
        response = test_client.post("/run", content=b"[]")
    assert (response.status_code, response.json()) == (500, {"error": "internal error (RuntimeError)"})


# ---------------------------------------------------------------- settings are the app's own


def test_limits_come_from_the_settings_of_each_app() -> None:
    small = TestClient(create_app(ServiceSettings(max_body_bytes=60, max_operations=2)))
    default = TestClient(create_app(ServiceSettings()))
    three = orjson.dumps([["new", "g", 1], ["status", "g"], ["best", "g"]])
    assert small.post("/run", content=three).json() == {"error": "more than 2 operations (3)"}
    assert small.post("/run", content=padded([], 61)).json() == {"error": "request body over 60 bytes"}
    assert default.post("/run", content=three).content == written(run(orjson.loads(three)))


def test_settings_are_strict_and_frozen() -> None:
    with pytest.raises(ValueError, match="max_body_bytes"):
        ServiceSettings(max_body_bytes=0)
    with pytest.raises(ValueError, match="frozen"):
        ServiceSettings().max_operations = 5  # type: ignore[misc]


# ---------------------------------------------------------------- health, docs, the explorer's files


def test_health(client: TestClient) -> None:
    response = client.get("/health")
    assert (response.status_code, response.content) == (200, written({"ok": True, "version": __version__}))


def test_the_openapi_page_describes_run(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert set(schema["paths"]) == {
        "/run", "/health", "/metrics", "/daily/{day}", "/players", "/play", "/play/{attempt}", "/leaderboard/{day}"
    }  # fmt: skip
    assert schema["paths"]["/run"]["post"]["requestBody"]["required"] is True


@pytest.mark.parametrize(
    ("path", "media_type", "marker"),
    [
        ("/", "text/html; charset=utf-8", b'<script src="static/explorer.js" defer></script>'),
        ("/static/explorer.css", "text/css; charset=utf-8", b".card"),
        ("/static/explorer.js", "text/javascript; charset=utf-8", b'fetch("run"'),
    ],
    ids=["page", "css", "script"],
)
def test_the_explorer_files_are_served_from_the_package(
    client: TestClient, path: str, media_type: str, marker: bytes
) -> None:
    response = client.get(path)
    assert (response.status_code, response.headers["content-type"]) == (200, media_type)
    assert marker in response.content
    name = "index.html" if path == "/" else path.rsplit("/", 1)[1]
    assert response.content == (Path(service_app.__file__).parent / "static" / name).read_bytes()


def test_the_explorer_needs_nothing_from_outside() -> None:
    static = Path(service_app.__file__).parent / "static"
    for path in static.iterdir():
        text = path.read_text()
        # The only URL in the files is the SVG namespace of the inline favicon, never fetched.
        assert text.replace("http://www.w3.org/2000/svg", "").count("http") == 0, path.name
        assert "@import" not in text and "//cdn" not in text, path.name
    # The scripts reach the service only through two doors: explorer.js's POST run (the
    # explorer's own views), and common.js's requests to a path of the service itself (the daily
    # deal, the players' game), every one relative to the page, so the explorer works wherever
    # it is served (behind a proxy at /triples/, say).
    scripts = {path.name: path.read_text() for path in static.glob("*.js")}
    assert sorted(name for name, text in scripts.items() if "fetch(" in text) == ["common.js", "explorer.js"]
    assert re.findall(r"fetch\(([^,)]*)", scripts["explorer.js"]) == ['"run"']
    assert re.findall(r"fetch\(([^,)]*)", scripts["common.js"]) == ["path"]
    page = (static / "index.html").read_text()
    assert re.findall(r'(?:src|href)="(/[^"]*)"', page) == []  # no absolute address in the page
    paths = [path for text in scripts.values() for path in re.findall(r"getJSON\(([^)]*)\)", text)]
    # and sendJSON for the players' game: a path of the service, written out or built from its parts
    paths += [path for text in scripts.values() for path in re.findall(r'sendJSON\(\s*"[A-Z]+",\s*([^,)]*)', text)]
    assert paths and all(re.fullmatch(r'"[a-z][a-z/]*"|`[a-z]+/\$\{[^`]*`?|path', path) for path in paths), paths


# ---------------------------------------------------------------- triples serve


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def wait_for_health(port: int, server: subprocess.Popen[bytes]) -> bytes:
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        assert server.poll() is None, server.communicate()[1].decode()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as response:
                body: bytes = response.read()
                return body
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server did not answer in time")


def test_serve_answers_then_stops_cleanly_on_ctrl_c() -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        assert wait_for_health(port, server) == written({"ok": True, "version": __version__})
        request = urllib.request.Request(f"http://127.0.0.1:{port}/run", data=b'[["new","g",1]]', method="POST")
        with urllib.request.urlopen(request, timeout=5) as response:
            assert response.read() == written([SEED1_TABLE])
        server.send_signal(signal.SIGINT)
        _, stderr = server.communicate(timeout=TIMEOUT)
    finally:
        server.kill() if server.poll() is None else None
    assert server.returncode in (0, 130), stderr.decode()
    assert "Traceback" not in stderr.decode()
    assert f"Uvicorn running on http://127.0.0.1:{port}" in stderr.decode()


def test_serve_refuses_a_taken_port_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = cli.main(["serve", "--port", str(port)])
    assert (status, capsys.readouterr()) == (
        2,
        ("", f"triples serve: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"),
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "65536"], "argument --port: 65536: expected a port number from 0 to 65535"),
        (["--port", "http"], "argument --port: http: expected a port number from 0 to 65535"),
        (["--workers", "0"], "argument --workers: 0: expected a positive integer"),
        (["--threads", "2"], "unrecognized arguments: --threads 2"),
        (
            ["--header-timeout", "0"],
            "argument --header-timeout: 0: expected a positive number of seconds",
        ),
        (["--idle-timeout", "x"], "argument --idle-timeout: x: expected a positive number of seconds"),
        (
            ["--max-connections", "0"],
            "argument --max-connections: 0: expected a positive integer",
        ),
        (["--cache-mib", "-1"], "argument --cache-mib: -1: expected a positive integer"),
    ],
    ids=[
        "port-too-high",
        "port-not-a-number",
        "no-workers",
        "unknown-option",
        "header-timeout",
        "idle-timeout",
        "max-connections",
        "cache-mib",
    ],
)
def test_serve_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert cli.main(["serve", *args]) == 2
    out, err = capsys.readouterr()
    assert (out, err.splitlines()[-1]) == ("", f"triples serve: error: {message}")


def test_serve_help_has_an_example(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["serve", "--help"]) == 0
    text = capsys.readouterr().out
    assert "--host HOST" in text and "--workers WORKERS" in text and "(default: 127.0.0.1" in text
    assert "example:\n  triples serve --port 8000\n  curl -s localhost:8000/run -d" in text


def test_serve_without_the_extra_says_how_to_install_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "triples.doors.service.server", raising=False)
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # as if not installed
    assert cli.main(["serve"]) == 2
    assert capsys.readouterr() == (
        "",
        "triples serve: error: needs the serve extra (no module uvicorn): pip install 'triples-solitaire[serve]'\n",
    )


def test_triples_run_does_not_import_the_web_stack(tmp_path: Path) -> None:
    (tmp_path / "ops.json").write_bytes(b'[["new","g",1]]')
    probe = (
        "import sys\nfrom triples.doors.cli import main\nmain(['run', 'ops.json'])\n"
        "print(sorted(m for m in ('fastapi', 'starlette', 'uvicorn', 'triples.doors.service') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=TIMEOUT, cwd=tmp_path)
    assert done.stdout.decode().splitlines()[-1] == "[]"


# ---------------------------------------------------------------- metrics


def test_metrics_count_requests_operations_and_latency() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    with TestClient(create_app(ServiceSettings())) as fresh:
        fresh.post("/run", content=b'[["new","g",1],["status","g"],["status","g"],["frob"],[]]')
        fresh.post("/run", content=b"[")
        fresh.get("/health")
        fresh.get("/nope/1")
        fresh.get("/nope/2")
        response = fresh.get("/metrics")
    assert (response.status_code, response.headers["content-type"]) == (
        200,
        "text/plain; version=1.0.0; charset=utf-8",
    )
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }
    assert samples[("triples_requests_total", (("path", "/run"), ("status", "200")))] == 1
    assert samples[("triples_requests_total", (("path", "/run"), ("status", "400")))] == 1
    assert samples[("triples_requests_total", (("path", "/health"), ("status", "200")))] == 1
    assert samples[("triples_requests_total", (("path", "other"), ("status", "404")))] == 2
    assert samples[("triples_operations_total", (("operation", "new"),))] == 1
    assert samples[("triples_operations_total", (("operation", "status"),))] == 2
    assert samples[("triples_operations_total", (("operation", "unknown"),))] == 1
    assert samples[("triples_operations_total", (("operation", "malformed"),))] == 1
    assert samples[("triples_request_seconds_count", (("path", "/run"),))] == 2
    assert samples[("triples_requests_in_flight", ())] == 1  # the /metrics request itself
    assert samples[("triples_time_limit_hits_total", ())] == 0


def test_metrics_count_only_the_operations_that_ran() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    def counted(client: TestClient) -> dict[str, float]:
        text = client.get("/metrics").text
        return {
            sample.labels["operation"]: sample.value
            for family in text_string_to_metric_families(text)
            for sample in family.samples
            if sample.name == "triples_operations_total"
        }

    searches = [op for seed in range(1000) for op in (["new", "g", seed, "grid100"], ["best", "g"])]
    with TestClient(create_app(ServiceSettings(time_limit=0.3, max_operations=3000))) as fresh:
        stopped = fresh.post("/run", json=searches)
        index = int(stopped.json()["error"].rsplit(" ", 1)[1])
        assert stopped.status_code == 503 and 0 < index < len(searches)
        ran = counted(fresh)
        # Those before the one stopped, and that one if it had begun; none after it.
        assert sum(ran.values()) in (index, index + 1)
        assert ran["new"] - ran.get("best", 0) in (0, 1)
        fresh.post("/run", json=[["status", "g"]] * 3001)  # refused: more than 3000
        fresh.post("/run", content=b"[" + b" " * MIB + b"]")  # refused: over 1 MiB
        assert counted(fresh) == ran


# ---------------------------------------------------------------- /docs, with nothing from outside


def test_the_docs_page_and_its_assets_are_served_from_packages(client: TestClient) -> None:
    page = client.get("/docs")
    assert page.status_code == 200
    assert "http" not in page.text.replace("http-equiv", "")  # every URL on the page is this service's
    for name, media_type in service_pages.DOCS_ASSETS.items():
        asset = client.get(f"/docs/assets/{name}")
        assert (asset.status_code, asset.headers["content-type"]) == (200, media_type)
        assert f'"docs/assets/{name}"' in page.text  # relative to the page: it works at a prefix too
    assert client.get("/docs/assets/redoc.standalone.js").status_code == 404


def test_the_docs_page_works_in_a_browser_with_no_other_host() -> None:
    from tests.test_explorer import CHROMIUM, CHROMIUM_ARGS, skip_or_fail

    skip_or_fail()
    from playwright.sync_api import sync_playwright

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--no-access-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    outside: list[str] = []
    try:
        wait_for_health(port, server)
        base = f"http://127.0.0.1:{port}"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page()

            def only_this_service(route: Any) -> None:
                if route.request.url.startswith(base + "/"):
                    route.continue_()
                else:
                    outside.append(route.request.url)
                    route.abort()

            page.route("**/*", only_this_service)
            page.goto(f"{base}/docs")
            page.locator(".opblock-summary-path", has_text="/run").first.wait_for(timeout=15_000)
            paths = page.locator(".opblock-summary-path").all_inner_texts()
            browser.close()
    finally:
        server.kill()
        server.communicate()
    assert outside == []
    assert {"/run", "/health", "/metrics"} <= {path.strip() for path in paths}
