"""The service as an operator runs it, on real server processes: one set of metrics across
workers, a store that goes away, logs a machine reads with request ids, defects logged and
counted, browsers on another site, answers that say how long to keep them."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.test_service import ENV, free_port

ROOT = Path(__file__).resolve().parent.parent
TODAY = datetime.now(UTC).date().isoformat()


class Server:
    """A server process on a port, its stderr read line by line as it comes."""

    def __init__(self, command: list[str], port: int, cwd: Path | None = None) -> None:
        self.port = port
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd or ROOT
        )
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line.rstrip("\n"))

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, "\n".join(self.lines)
            try:
                if self.request("GET", "/health")[0] in (200, 503):
                    return
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer in time"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=5)


@contextmanager
def serving(*options: str, script: list[str] | None = None, cwd: Path | None = None) -> Iterator[Server]:
    port = free_port()
    base = script or [sys.executable, "-m", "triples", "serve"]
    server = Server([*base, "--port", str(port), *options], port, cwd)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def metric(text: bytes, name: str, **labels: str) -> float:
    """The value of one sample of a Prometheus text page (0 when absent)."""
    wanted = ",".join(f'{key}="{value}"' for key, value in sorted(labels.items()))
    for line in text.decode().splitlines():
        sample, _, value = line.rpartition(" ")
        found = re.fullmatch(r"(\w+)(?:\{(.*)\})?", sample)
        if found and found[1] == name and ",".join(sorted((found[2] or "").split(","))) == wanted:
            return float(value)
    return 0.0


@pytest.fixture(scope="module")
def season(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose sum15 calendar runs three days from today."""
    path = tmp_path_factory.mktemp("season") / "season.db"
    command = [sys.executable, "-m", "triples", "calendar", "--variant", "sum15", "--db", str(path)]
    command += ["--start", TODAY, "--days", "3", "--pattern", "easy", "--jobs", "1"]
    subprocess.run(command, check=True, capture_output=True, env=ENV, timeout=120)
    return path


def test_every_scrape_adds_up_all_workers(tmp_path: Path) -> None:
    with serving("--workers", "2", "--no-access-log") as server:
        before = metric(server.request("GET", "/metrics")[2], "triples_requests_total", path="/health", status="200")
        for _ in range(40):  # a new connection each: the two processes share them out
            assert server.request("GET", "/health")[0] == 200
        seen = [
            metric(server.request("GET", "/metrics")[2], "triples_requests_total", path="/health", status="200")
            for _ in range(6)
        ]
    assert seen == [before + 40] * 6


def test_a_store_that_goes_away_is_not_ok_and_is_never_made_anew(season: Path, tmp_path: Path) -> None:
    store = tmp_path / "copy.db"
    store.write_bytes(season.read_bytes())
    with serving("--db", str(store), "--no-access-log") as server:
        assert server.request("GET", "/health")[:1] == (200,)
        assert server.request("GET", "/daily/today")[0] == 200
        for path in tmp_path.glob("copy.db*"):
            path.unlink()
        time.sleep(1.1)  # the health check looks again once a second
        status, _, body = server.request("GET", "/health")
        assert (status, json.loads(body)["ok"], json.loads(body)["store"]) == (503, False, "the store is gone")
        status, _, body = server.request("GET", "/daily/today")
        assert status == 503 and b"copy.db" not in body
        assert not store.exists()
    garbled = tmp_path / "garbled.db"
    garbled.write_bytes(season.read_bytes())
    with serving("--db", str(garbled), "--no-access-log") as server:
        garbled.write_bytes(b"not a store at all" * 100)
        time.sleep(1.1)
        status, _, body = server.request("GET", "/health")
        assert status == 503 and json.loads(body)["ok"] is False


def test_paths_worth_alerting_on_have_their_labels_and_the_calendar_its_gauge(season: Path) -> None:
    with serving("--db", str(season), "--no-access-log") as server:
        server.request("GET", "/daily/today")
        server.request("GET", "/leaderboard/today")
        server.request("POST", "/players", b'{"name": "<b>x</b>"}')
        server.request("POST", "/play", b"{}")
        server.request("GET", "/play/12")
        text = server.request("GET", "/metrics")[2]
    assert metric(text, "triples_requests_total", path="/daily/*", status="200") == 1
    assert metric(text, "triples_requests_total", path="/leaderboard/*", status="404") == 1  # no secret day
    assert metric(text, "triples_requests_total", path="/players", status="400") == 1
    assert metric(text, "triples_requests_total", path="/play", status="401") == 1
    assert metric(text, "triples_requests_total", path="/play/*", status="401") == 1
    assert metric(text, "triples_calendar_days_ahead", calendar="seed", variant="sum15") == 2
    assert b"triples_internal_errors_total 0.0" in text


def test_json_logs_carry_the_request_id_the_answer_sends_back() -> None:
    with serving("--log-format", "json") as server:
        status, headers, _ = server.request("GET", "/health", headers={"X-Request-ID": "probe-1"})
        assert (status, headers["x-request-id"]) == (200, "probe-1")
        status, headers, _ = server.request("POST", "/run", b'[["new","g",1],["status","g"]]')
        made = headers["x-request-id"]
        assert status == 200 and re.fullmatch(r"[0-9a-f]{16}", made)
        time.sleep(0.3)
    lines = [json.loads(line) for line in server.lines if line.startswith("{")]
    assert len(lines) == len(server.lines)  # every line a JSON object
    access = {line["request_id"]: line for line in lines if line["logger"] == "triples.access"}
    assert set(access["probe-1"]) == {
        "time", "level", "logger", "message", "request_id", "method", "path", "status", "duration_ms"
    }  # fmt: skip
    assert (access["probe-1"]["method"], access["probe-1"]["path"], access["probe-1"]["status"]) == (
        "GET",
        "/health",
        200,
    )
    assert (access[made]["path"], access[made]["status"]) == ("/run", 200)
    assert any(line["logger"].startswith("uvicorn") for line in lines)  # the server's own lines too


def test_a_defect_is_logged_with_its_traceback_counted_and_never_shown() -> None:
    script = [sys.executable, str(ROOT / "tests" / "defect_server.py")]
    with serving("--log-format", "json", "--no-access-log", script=script) as server:
        status, headers, body = server.request("POST", "/run", b'[["new","g",1],["status","g"]]')
        request_id = headers["x-request-id"]
        metrics = server.request("GET", "/metrics")[2]
        time.sleep(0.3)
    assert status == 200
    assert json.loads(body)[1] == "error: internal error (ZeroDivisionError)"
    assert b"Traceback" not in body and b"planted" not in body
    errors = [json.loads(line) for line in server.lines if '"level": "error"' in line]
    assert [(line["logger"], line["request_id"]) for line in errors] == [("triples.interpreter", request_id)]
    assert "ZeroDivisionError: a defect planted by the test" in errors[0]["traceback"]
    assert metric(metrics, "triples_internal_errors_total") == 1


def test_pages_of_another_site_may_call_the_service_when_it_is_named() -> None:
    with serving("--cors-origin", "https://games.example", "--no-access-log") as server:
        _, headers, _ = server.request("GET", "/health", headers={"Origin": "https://games.example"})
        assert headers["access-control-allow-origin"] == "https://games.example"
        _, headers, _ = server.request("GET", "/health", headers={"Origin": "https://elsewhere.example"})
        assert "access-control-allow-origin" not in headers
        status, headers, _ = server.request(
            "OPTIONS",
            "/play",
            headers={
                "Origin": "https://games.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert status == 200 and "POST" in headers["access-control-allow-methods"]
        assert "authorization" in headers["access-control-allow-headers"].lower()


def test_answers_say_how_long_they_may_be_kept(season: Path) -> None:
    with serving("--db", str(season), "--no-access-log") as server:
        _, today, _ = server.request("GET", "/daily/today")
        _, ahead, _ = server.request("GET", "/daily/2999-01-01")
        _, page, _ = server.request("GET", "/")
        _, script, _ = server.request("GET", "/static/explorer.js")
    seconds = int(re.fullmatch(r"public, max-age=(\d+)", today["cache-control"])[1])  # type: ignore[index]
    midnight = 86400 - (datetime.now(UTC) - datetime.now(UTC).replace(hour=0, minute=0, second=0)).seconds
    assert abs(seconds - midnight) <= 5
    assert ahead["cache-control"] == "no-cache"
    assert page["cache-control"] == script["cache-control"] == "no-cache"


def test_the_frameworks_own_run_route_keeps_the_body_limit() -> None:
    from fastapi.testclient import TestClient

    from triples.doors.service import ServiceSettings, create_app

    service = create_app(ServiceSettings(max_body_bytes=100))
    with TestClient(service.fastapi) as alone:  # the FastAPI application mounted on its own
        response = alone.post("/run", content=b"[" + b" " * 200 + b"]")
        assert (response.status_code, response.json()) == (413, {"error": "request body over 100 bytes"})
        assert alone.post("/run", content=b'[["new","g",1]]').json()[0][0] == "9D"
