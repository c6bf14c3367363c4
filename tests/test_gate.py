"""The service's time limit and its gate: a request past the limit is answered 503 and its work
stops; a flood of slow requests gets 503s with Retry-After while quick requests keep answering."""

from __future__ import annotations

import http.client
import itertools
import json
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from fastapi.testclient import TestClient

import triples
from tests.test_service import ENV, free_port, wait_for_health, written
from triples import run
from triples.api import OperationTimedOut
from triples.doors.service import ServiceSettings, create_app

SEEDS_PER_REQUEST = 5_000
_next_seed = itertools.count(10_000, SEEDS_PER_REQUEST)


def minutes_of_search() -> list[Any]:
    """About 8 ms of search per grid100 deal here, so 5,000 deals run for most of a minute (and
    for minutes on a slower machine). The searches keep what they learn about a deal, so each
    call has deals of its own."""
    first = next(_next_seed)
    seeds = range(first, first + SEEDS_PER_REQUEST)
    return [op for seed in seeds for op in (["new", "g", seed, "grid100"], ["best", "g"])]


SMALL_GAME = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]]
TIME_LIMIT = re.compile(r"time limit of 0\.5 s exceeded at operation (\d+)")


PACKAGE = Path(triples.__file__).resolve().parent
SERVICE = PACKAGE / "doors" / "service"


def runs_the_interpreter(filename: str) -> bool:
    """Whether code of this file is the interpreter's or the engines': a file of the triples
    package (wherever the clone lives, whatever its folder is named) outside the service."""
    path = Path(filename).resolve()
    return path.is_relative_to(PACKAGE) and not path.is_relative_to(SERVICE)


def test_only_the_packages_own_files_count_as_the_interpreter(tmp_path: Path) -> None:
    # Judged by the package's own folder, never by a name in the path: a clone in a folder named
    # triples (git's default) keeps its venv beside the package, and the web stack's files there
    # are not the interpreter.
    site = Path("lib") / "python3.11" / "site-packages" / "anyio" / "to_thread.py"
    assert not runs_the_interpreter(str(tmp_path / "triples" / ".venv" / site))
    assert not runs_the_interpreter(str(PACKAGE.parent / ".venv" / site))
    assert not runs_the_interpreter(str(PACKAGE.parent / "triples.venv" / site))
    assert not runs_the_interpreter(str(SERVICE / "app.py"))
    assert runs_the_interpreter(str(PACKAGE / "engines" / "search" / "engine.py"))


def busy_in_triples() -> list[str]:
    """The threads (other than this one) now running the interpreter's code."""
    busy = []
    for thread_id, frame in sys._current_frames().items():
        if thread_id == threading.get_ident():
            continue
        current: Any = frame
        while current is not None:
            if runs_the_interpreter(current.f_code.co_filename):
                busy.append(f"{thread_id}: {current.f_code.co_filename}:{current.f_code.co_name}")
                break
            current = current.f_back
    return busy


def test_run_without_a_limit_is_unchanged_and_with_one_stops_at_an_operation() -> None:
    assert run(SMALL_GAME, time_limit=None) == run(SMALL_GAME)
    assert run(SMALL_GAME, time_limit=60) == run(SMALL_GAME)
    started = time.monotonic()
    with pytest.raises(OperationTimedOut) as stopped:
        run(minutes_of_search(), time_limit=0.5)
    assert time.monotonic() - started < 10  # the limit is 0.5 s: generous for a shared machine
    assert TIME_LIMIT.fullmatch(str(stopped.value))
    assert 0 < stopped.value.index < 2 * SEEDS_PER_REQUEST


def test_a_request_past_the_time_limit_gets_503_and_its_work_stops() -> None:
    settings = ServiceSettings(time_limit=0.5)
    with TestClient(create_app(settings)) as client:
        started = time.monotonic()
        response = client.post("/run", content=orjson.dumps(minutes_of_search()))
        took = time.monotonic() - started
        assert response.status_code == 503
        match = TIME_LIMIT.fullmatch(response.json()["error"])
        assert match is not None, response.json()
        assert 0 < int(match[1]) < 2 * SEEDS_PER_REQUEST
        assert 0.5 <= took < 10
        assert busy_in_triples() == []  # no worker thread goes on searching for the answered request
        # A request after it is answered at once, from the same worker threads.
        started = time.monotonic()
        quick_search = [["new", "g", 2, "pairs"], ["best", "g"]]
        response = client.post("/run", content=orjson.dumps(quick_search))
        assert (response.status_code, response.content) == (200, written(run(quick_search)))
        assert time.monotonic() - started < 5


def test_serve_refuses_a_time_limit_that_is_not_a_positive_number(capsys: pytest.CaptureFixture[str]) -> None:
    from triples.doors import cli

    for text in ("0", "-1", "abc", "nan"):
        assert cli.main(["serve", "--time-limit", text]) == 2
        assert capsys.readouterr() == (
            "",
            f"triples serve: error: argument --time-limit: {text}: expected a positive number of seconds\n",
        )


# ---------------------------------------------------------------- a flood of slow requests

FLOOD = 64


def post(connection: http.client.HTTPConnection, path: str, body: bytes | None) -> tuple[int, bytes, dict[str, str]]:
    connection.request("POST" if body is not None else "GET", path, body=body)
    response = connection.getresponse()
    return response.status, response.read(), dict(response.getheaders())


@pytest.fixture
def server() -> Iterator[int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--port", str(port), "--time-limit", "2", "--no-access-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        wait_for_health(port, process)
        yield port
    finally:
        process.kill()
        process.communicate()


# The flood runs in a process of its own, so that its threads do not slow this one's requests.
FLOOD_SCRIPT = """
import http.client, json, sys, threading, time
port, connections, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
answers, lock, stop_at = [], threading.Lock(), time.monotonic() + seconds
def flood(index):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    first = 10_000 + index * 100_000
    while time.monotonic() < stop_at:
        deals = range(first, first + 5000)
        body = json.dumps([op for seed in deals for op in (["new", "g", seed, "grid100"], ["best", "g"])])
        first += 5000
        connection.request("POST", "/run", body=body)
        response = connection.getresponse()
        answer = (response.status, json.loads(response.read())["error"], response.getheader("retry-after"))
        with lock:
            answers.append(answer)
        time.sleep(float(answer[2] or 0))  # a polite client: waits as Retry-After says
threads = [threading.Thread(target=flood, args=(index,)) for index in range(connections)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(answers))
"""


def test_quick_requests_keep_answering_while_slow_ones_flood_in(server: int) -> None:
    flood = subprocess.Popen(
        [sys.executable, "-c", FLOOD_SCRIPT, str(server), str(FLOOD), "4"], stdout=subprocess.PIPE, env=ENV
    )
    time.sleep(1)  # let the flood arrive first
    connection = http.client.HTTPConnection("127.0.0.1", server, timeout=60)
    latencies = []
    small_game = orjson.dumps(SMALL_GAME)
    for index in range(60):
        started = time.monotonic()
        if index % 2:
            assert post(connection, "/run", small_game)[:2] == (200, written(run(SMALL_GAME)))
        else:
            assert post(connection, "/health", None)[0] == 200
        latencies.append(time.monotonic() - started)
        time.sleep(0.03)
    slow_answers = json.loads(flood.communicate(timeout=60)[0])
    # Bounds generous for a shared machine (benchmarks/serve.py --flood measures the figures):
    # a quick request that waited its turn behind the slow ones would take seconds, the median too.
    assert statistics.median(latencies) < 0.5 and max(latencies) < 10, sorted(latencies)
    assert {status for status, _, _ in slow_answers} == {503}
    timed_out = [error for _, error, _ in slow_answers if error.startswith("time limit of 2 s exceeded at operation ")]
    refused = [retry_after for _, error, retry_after in slow_answers if "busy" in error]
    assert timed_out and refused and set(refused) == {"2"}
    assert len(timed_out) + len(refused) == len(slow_answers)
    metrics = post(connection, "/metrics", None)[1].decode()
    assert f"triples_overload_rejections_total {float(len(refused))}" in metrics
    assert f"triples_time_limit_hits_total {float(len(timed_out))}" in metrics
