"""``POST /run`` against a real ``triples serve`` under a memory cap (``ulimit -v``): no request
can freeze the server or make it swell. Each attack is one small request; the server must
answer it within its limits, keep answering others meanwhile, stop the work it gave up, and
stop within seconds on SIGTERM even while a search runs."""

from __future__ import annotations

import http.client
import json
import re
import signal
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install -e '.[serve]'")

from tests.processes import EXIT_WITHIN, MIB, post, serving
from triples import run
from triples.doors.service import answers
from triples.interpreter.operations import OPERATIONS, Args, Operation, operation
from triples.interpreter.session import Session
from triples.model.derived import MAX_COMBOS
from triples.support import deadline

MEMORY = 1024 * MIB  # the server's address space: it holds some 250 MiB of it when idle
GRID100_5 = {"base": "grid100", "per_move": 5, "target": 65}
GRID100_6 = {"base": "grid100", "per_move": 6, "target": 78}
HUGE_TABLES = {"deck": "numeric", "top_rank": 50, "suits": 4, "slots": 100, "per_move": 6, "target": 153}
# Minutes of work: lookahead counts the moves left after each of some 12,000 combinations.
MINUTES = [["new", "g", 1, GRID100_6], ["autoplay", "g", "lookahead"]]
QUICK = [["new", "g", 1], ["best", "g"]]


# ---------------------------------------------------------------- in-process: what runs where


def written(outputs: Any) -> bytes:
    return orjson.dumps(outputs) + b"\n"


QUICK_CASES = {
    "small-game": ([["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"], ["moves", "g"]], 4),
    "eight-operations": ([["status", "g"]] * 8, 8),
    "nine-operations": ([["status", "g"]] * 9, 0),
    "best": ([["new", "g", 1], ["best", "g"], ["status", "g"]], 1),
    "solve": ([["solve", "g"]], 0),
    "autoplay": ([["autoplay", "g"]], 0),
    "not-operations": ([[["best"]], {"best": 1}, "best", []], 4),
    "unknown-operation": ([["frob", "g"]], 1),
    # The rules and the position decide, not the operation's name:
    "grid100-status": ([["new", "g", 1, "grid100"], ["status", "g"]], 2),
    "grid100-moves": ([["new", "g", 1, "grid100"], ["moves", "g"]], 1),  # C(100, 3) slot triples
    "five-a-move-status": ([["new", "g", 1, {"base": "grid100", "per_move": 5, "target": 65}], ["status", "g"]], 1),
}


@pytest.mark.parametrize(("operations", "inline"), QUICK_CASES.values(), ids=QUICK_CASES.keys())
def test_the_event_loop_answers_operations_while_they_are_surely_quick(operations: list[Any], inline: int) -> None:
    answering = answers.on_the_event_loop(orjson.dumps(operations), 10_000)
    assert len(answering.parts) == answering.started == inline
    assert answering.done is (inline == len(operations))
    # The rest goes to a worker, which goes on with the same session: the answer is run()'s.
    limit = deadline.Deadline(10)
    done = answers.in_a_worker(answering, b"", limit, 10, 10_000, 2**30)
    assert done.body() == written(run(operations))


def test_a_large_body_is_read_in_a_worker() -> None:
    body = orjson.dumps([["new", "g", 1], ["status", "g"]])[:-1] + b" " * answers.QUICK_BODY_BYTES + b"]"
    answering = answers.on_the_event_loop(body, 10_000)
    assert answering.operations is None and not answering.parts
    done = answers.in_a_worker(answering, body, deadline.Deadline(10), 10, 10_000, 2**30)
    assert done.body() == written(run(orjson.loads(body)))


def test_an_operation_runs_in_the_event_loop_as_its_registration_says() -> None:
    def handler(session: Session, args: Any) -> str:
        return "done"

    def judge(session: Session, args: Any) -> bool:
        return args.id == "quick"

    with (
        OPERATIONS.replaced(Operation("new_cheap", Args, handler, "cheap")),
        OPERATIONS.replaced(Operation("new_costly", Args, handler, "search")),
        OPERATIONS.replaced(Operation("new_judged", Args, handler, judge)),
    ):
        calls = [["new_cheap", "g"], ["new_judged", "quick"], ["new_judged", "slow"], ["new_costly", "g"]]
        assert [answers.on_the_event_loop(orjson.dumps([call]), 10).done for call in calls] == [
            True,
            True,
            False,
            False,
        ]
    assert "new_cheap" not in OPERATIONS and "new_costly" not in OPERATIONS
    # The registry is sealed once the interpreter is loaded: nothing adds or redefines a name.
    with pytest.raises(RuntimeError, match="fixed once the interpreter is loaded"):
        operation("new_late", cost="cheap")(handler)
    # A new operation cannot leave its cost unsaid, so none reaches the event loop unjudged.
    with pytest.raises(TypeError, match="cost"):
        operation("new_undeclared")(handler)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="cost"):
        Operation("new_undeclared", Args, handler)  # type: ignore[call-arg]
    assert "new_undeclared" not in OPERATIONS


def test_a_worker_stops_an_answer_past_its_limit() -> None:
    operations = [["new", "g", 1], *[["moves", "g"]] * 20]
    answering = answers.on_the_event_loop(orjson.dumps(operations), 10_000)
    assert not answering.parts  # more than 8 operations: all of them in a worker
    limit = len(written(run(operations[:12])))  # the first twelve outputs fit exactly
    with pytest.raises(
        answers.Refused, match=f"^the answer would be over {limit} bytes at operation 12: ask"
    ) as refused:
        answers.in_a_worker(answering, b"", deadline.Deadline(10), 10, 10_000, limit)
    assert refused.value.status == 413


# ---------------------------------------------------------------- a real server


@pytest.fixture(scope="module")
def server() -> Iterator[int]:
    env = {"TRIPLES_MAX_ANSWER_BYTES": str(MIB)}
    with serving("--time-limit", "1", env=env, memory=MEMORY) as (port, _):
        yield port


def answer(port: int, operations: list[Any]) -> tuple[int, Any]:
    status, body = post(port, orjson.dumps(operations))
    return status, json.loads(body)


def test_huge_moves_answers_are_refused_before_they_are_built(server: int) -> None:
    for rules, moves in ((GRID100_5, "1,842,552"), (GRID100_6, "26,930,568")):
        status, outputs = answer(server, [["new", "g", 1, rules], ["moves", "g"], ["status", "g"]])
        assert status == 200
        assert outputs[1] == f"error: {moves} legal moves: more than the 100,000 one answer may list"
        assert outputs[2] == {"cleared": 0, "stock": 0, "over": False}


def test_rules_whose_tables_would_fill_the_memory_are_refused(server: int) -> None:
    status, outputs = answer(server, [["new", "g", 1, HUGE_TABLES], ["best", "g"]])
    assert status == 200
    assert outputs[1].startswith(f"error: these rules have more than {MAX_COMBOS:,} value combinations")


def in_flight(port: int) -> int:
    """How many requests the server is answering, this one included (GET /metrics)."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
        text = response.read().decode()
    return int(float(re.search(r"^triples_requests_in_flight (\S+)$", text, re.M)[1]))  # type: ignore[index]


def searching(port: int, operations: list[Any], timeout: float = 60) -> tuple[threading.Thread, list[Any]]:
    """``operations`` sent from a thread; returned once the server is answering them."""
    answers: list[Any] = []
    thread = threading.Thread(target=lambda: answers.append(post(port, orjson.dumps(operations), timeout)), daemon=True)
    thread.start()
    while in_flight(port) < 2 and thread.is_alive():
        time.sleep(0.01)
    return thread, answers


def test_a_search_past_the_time_limit_stops_and_the_server_answers_meanwhile(server: int) -> None:
    thread, slow = searching(server, MINUTES)
    # While the search runs, a small game is answered (on the event loop) before it.
    assert answer(server, [["new", "g", 1], ["moves", "g"]]) == (200, run([["new", "g", 1], ["moves", "g"]]))
    assert not slow
    thread.join()
    slow = [(status, json.loads(body)) for status, body in slow]
    assert slow == [(503, {"error": "time limit of 1 s exceeded at operation 1"})]
    # Its work stopped: the one thread that computes is free for the next search at once (a
    # thread still searching would hold it past this one's limit, a 503 at operation 0).
    assert answer(server, QUICK) == (200, run(QUICK))


@pytest.mark.parametrize(
    "operations",
    [
        [["new", "g", 1, GRID100_6], ["rating", "g"]],
        [["new", "g", 1, GRID100_6], ["fair_move", "g"], ["fair_move", "g"], ["fair_move", "g"]],
        [["new", "g", 3, GRID100_5], *[["best", "g"], ["autoplay", "g", "first"], ["undo", "g"]] * 50],
    ],
    ids=["rating", "fair", "best"],
)
def test_every_engine_stops_at_the_time_limit(server: int, operations: list[Any]) -> None:
    status, outputs = answer(server, operations)
    assert status == 200 or (status, outputs["error"][:26]) == (503, "time limit of 1 s exceeded")
    assert answer(server, QUICK) == (200, run(QUICK))


def test_a_million_digit_deck_value_is_answered_in_one_short_line(server: int) -> None:
    status, body = post(server, b'[["new","n",[1' + b"0" * 999_990 + b'],"sum15"]]')
    assert (status, json.loads(body)) == (
        200,
        ["error: unknown value ...00000000000000000000 (an integer of more than 10,000 digits) for variant 'sum15'"],
    )


def test_an_answer_past_its_limit_is_refused_not_built(server: int) -> None:
    many = {"base": "grid100", "per_move": 4, "target": 45}  # 95,168 moves, 1.3 MB each time
    status, outputs = answer(server, [["new", "g", 1, many], *[["moves", "g"]] * 200])
    assert (status, outputs) == (
        413,
        {"error": "the answer would be over 1 MiB at operation 1: ask for less in one request"},
    )


@pytest.mark.parametrize("size", [2 * MIB, 8 * MIB, 60 * MIB])
def test_urllib_gets_the_413_of_a_body_over_the_limit(server: int, size: int) -> None:
    # urllib sends its whole body before it reads: the server reads it and drops it, then answers.
    for _ in range(3):
        assert post(server, b"[" + b" " * size + b"]") == (413, b'{"error":"request body over 1 MiB"}\n')


def test_sigterm_ends_the_server_within_seconds_while_a_search_runs() -> None:
    with serving("--time-limit", "300", memory=MEMORY) as (port, process):
        searching(port, MINUTES, timeout=300)
        time.sleep(0.5)  # into the search itself
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=EXIT_WITHIN + 2)  # the grace of 2 s, then the search stops
    assert process.returncode in (0, -signal.SIGTERM), stderr.decode()
    assert "Traceback" not in stderr.decode()


def resident_bytes(pid: int) -> int:
    for line in open(f"/proc/{pid}/status").read().splitlines():  # noqa: SIM115 (read whole at once)
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS line")


def test_distinct_rule_sets_keep_the_servers_memory_flat() -> None:
    def distinct(first: int, count: int) -> None:
        for n in range(first, first + count):
            rules = {"base": "classic", "target": 12 + n % 25, "slots": 8 + n // 25 % 8, "court": [1 + n // 200, 9, 9]}
            connection.request("POST", "/run", orjson.dumps([["new", "g", n, rules], ["best", "g"]]))
            assert connection.getresponse().read().startswith(b"[[")

    with serving("--cache-mib", "4", memory=MEMORY) as (port, process):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        distinct(0, 60)  # the caches fill (4 MiB, and a sixteenth of it for the rule sets)
        filled = resident_bytes(process.pid)
        distinct(60, 120)
        grown = resident_bytes(process.pid) - filled
        connection.close()
    assert grown < 2 * MIB
