"""Attacks on `triples serve`, each one small request (or a few connections), replayed against a
real server: none may freeze it or make it swell.

Starts `triples serve --time-limit T` (default 2 s) on a free loopback port, with a poller that
asks `GET /health` every 10 ms over its own keep-alive connection, then sends each attack in
turn and prints, per attack: what it got, the time to the answer, the longest `/health` answer
from the attack's start to 3 s after its answer (the stall), the server's peak resident memory
over that time, and the server's CPU time in the 3 s after the answer (work that did not stop).
Last, --distinct (10,000) requests, each a game and its `best` under rules no other request
used, while the server's memory is read every tenth of them.

    python benchmarks/attacks.py [--time-limit SECONDS] [--distinct N] [--after SECONDS] [--only NAME ...]

Goals: every stall under 100 ms, every answer within the time limit + 0.5 s, no CPU left
burning after an answer, and memory flat over the distinct rule sets (the last tenth's peak
within 10% of the second tenth's, once the caches have filled). Exit status 1 when one is missed.
Traffic goes to 127.0.0.1 only; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass

from common import load, verdict
from serve import cpu_seconds, free_port, resident_mib

HOST = "127.0.0.1"
POLL_EVERY = 0.01  # seconds between two /health requests
AFTER = 3.0  # seconds watched after an answer
STALL_GOAL = 0.1  # seconds
GRID100_5 = {"base": "grid100", "per_move": 5, "target": 65}
GRID100_6 = {"base": "grid100", "per_move": 6, "target": 78}
HUGE_TABLES = {"deck": "numeric", "top_rank": 50, "suits": 4, "slots": 100, "per_move": 6, "target": 153}


# ---------------------------------------------------------------- watching the server


class Watch(threading.Thread):
    """Asks /health every ``POLL_EVERY`` seconds and reads the server's memory each time."""

    def __init__(self, port: int, pid: int) -> None:
        super().__init__(daemon=True)
        self.port, self.pid = port, pid
        self.samples: list[tuple[float, float, float]] = []  # (asked at, seconds to answer, RSS MiB)
        self.stopping = False

    def run(self) -> None:
        connection: http.client.HTTPConnection | None = None
        while not self.stopping:
            asked = time.monotonic()
            try:
                if connection is None:
                    connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
                connection.request("GET", "/health")
                connection.getresponse().read()
                took = time.monotonic() - asked
            except (OSError, http.client.HTTPException):
                connection, took = None, time.monotonic() - asked
            self.samples.append((asked, took, resident_mib(self.pid)))
            time.sleep(POLL_EVERY)

    def over(self, start: float, end: float) -> tuple[float, float]:
        """The longest /health answer asked from ``start`` to ``end``, and the peak memory then."""
        within = [(took, rss) for asked, took, rss in self.samples if start <= asked <= end]
        # A request asked before ``start`` and still unanswered counts from ``start``.
        late = [asked + took - start for asked, took, _ in self.samples if asked < start < asked + took]
        return max([took for took, _ in within] + late, default=0.0), max((rss for _, rss in within), default=0.0)


@dataclass
class Row:
    name: str
    got: str
    answer_s: float
    stall_ms: float
    peak_mib: float
    cpu_after_s: float


# ---------------------------------------------------------------- the attacks


def post(port: int, body: bytes, timeout: float = 120) -> tuple[int, bytes]:
    request = urllib.request.Request(f"http://{HOST}:{port}/run", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def summary(status: int, body: bytes) -> str:
    """The status and the start of what came back, for the table."""
    text = body.decode(errors="replace").strip()
    try:
        value = json.loads(text)
    except ValueError:
        return f"{status} {text[:40]}"
    if isinstance(value, dict) and "error" in value:
        return f"{status} {value['error'][:48]}"
    if isinstance(value, list) and value:
        last = value[-1]
        return f"{status} {(last if isinstance(last, str) else json.dumps(last))[:48]}"
    return f"{status} {text[:40]}"


def run_ops(*operations: list[object]) -> Callable[[int], str]:
    body = json.dumps(list(operations)).encode()
    return lambda port: summary(*post(port, body))


def million_digits(port: int) -> str:
    return summary(*post(port, b'[["new","n",[1' + b"0" * 999_990 + b'],"sum15"]]'))


def three_million_digit_requests(port: int) -> str:
    answers: list[str] = []
    threads = [threading.Thread(target=lambda: answers.append(million_digits(port))) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return f"{len(answers)} x {sorted(answers)[0]}"


def oversized_body(port: int) -> str:
    """A urllib client: it sends its whole 8 MiB body before it reads the answer."""
    try:
        return summary(*post(port, b"[" + b" " * (8 * 1024 * 1024) + b"]"))
    except OSError as exc:
        return f"no answer: {type(exc).__name__}"


def answer_over_its_limit(port: int) -> str:
    many = {"base": "grid100", "per_move": 4, "target": 45}
    return run_ops(["new", "g", 1, many], *[["moves", "g"]] * 2000)(port)


def malformed_http(port: int) -> str:
    with socket.create_connection((HOST, port), timeout=10) as connection:
        connection.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        answer = connection.recv(4096)
    head, _, body = answer.partition(b"\r\n\r\n")
    kind = "json" if b"application/json" in head else "not json"
    return f"{head.split()[1].decode()} {kind} {body.decode().strip()[:40]}"


def trickling_headers(port: int, count: int = 1000) -> str:
    """``count`` connections each sending one header byte a second: how many the server closed."""
    connections = []
    for _ in range(count):
        try:
            connections.append(socket.create_connection((HOST, port), timeout=5))
        except OSError:
            break
    for connection in connections:
        connection.setblocking(False)
    closed: set[int] = set()
    started = time.monotonic()
    head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 60
    sent = 0
    while len(closed) < len(connections) and time.monotonic() - started < 60:
        for i, connection in enumerate(connections):
            if i in closed:
                continue
            try:
                if sent < len(head):
                    connection.send(head[sent : sent + 1])
                if connection.recv(4096) == b"":
                    closed.add(i)
            except BlockingIOError:
                pass
            except OSError:
                closed.add(i)
        sent += 1
        time.sleep(1)
    for connection in connections:
        connection.close()
    return f"{len(closed)}/{len(connections)} closed in {time.monotonic() - started:.0f} s"


def idle_connection(port: int) -> str:
    with socket.create_connection((HOST, port), timeout=60) as connection:
        started = time.monotonic()
        gone = connection.recv(1) == b""
        return f"{'closed' if gone else 'sent data'} after {time.monotonic() - started:.1f} s"


ATTACKS: dict[str, Callable[[int], str]] = {
    "moves, 5 cards a move": run_ops(["new", "g", 1, GRID100_5], ["moves", "g"]),
    "moves, 6 cards a move": run_ops(["new", "g", 1, GRID100_6], ["moves", "g"]),
    "best, 300,000 combinations": run_ops(["new", "g", 1, HUGE_TABLES], ["best", "g"]),
    "best, 6 cards a move": run_ops(["new", "g", 1, GRID100_6], ["best", "g"]),
    "solve, 5 cards a move": run_ops(["new", "g", 2, GRID100_5], ["solve", "g"]),
    "autoplay lookahead, 6 a move": run_ops(["new", "g", 1, GRID100_6], ["autoplay", "g", "lookahead"]),
    "fair_move, 6 a move": run_ops(["new", "g", 1, GRID100_6], ["fair_move", "g"]),
    "rating, 6 a move": run_ops(["new", "g", 1, GRID100_6], ["rating", "g"]),
    "a million-digit deck value": million_digits,
    "three of them at once": three_million_digit_requests,
    "2,000 moves answers": answer_over_its_limit,
    "an 8 MiB body (urllib)": oversized_body,
    "malformed HTTP": malformed_http,
    "1,000 trickling headers": trickling_headers,
    "a silent connection": idle_connection,
}


# ---------------------------------------------------------------- the server


def start_server(port: int, time_limit: float) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "triples", "serve", "--port", str(port), "--time-limit", str(time_limit)]
    server = subprocess.Popen([*command, "--no-access-log"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=2):
                return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise SystemExit("the server did not start")


def attack(name: str, send: Callable[[int], str], port: int, pid: int, watch: Watch, after: float) -> Row:
    time.sleep(0.3)  # the poller's view of a quiet server first
    started = time.monotonic()
    got = send(port)
    answered = time.monotonic()
    cpu = cpu_seconds(pid)
    time.sleep(after)
    stall, peak = watch.over(started, answered + after)
    return Row(name, got, answered - started, stall * 1000, peak, cpu_seconds(pid) - cpu)


def distinct_rule_sets(port: int, pid: int, count: int) -> list[tuple[int, float]]:
    """``count`` requests, each a deal and its best under rules of its own: the memory after each tenth."""
    readings: list[tuple[int, float]] = []
    connection = http.client.HTTPConnection(HOST, port, timeout=60)
    for n in range(count):
        court = [1 + n // 200 % 50, 10, 10]
        rules = {"base": "classic", "target": 12 + n % 25, "slots": 8 + n // 25 % 8, "court": court}
        connection.request("POST", "/run", json.dumps([["new", "g", n, rules], ["best", "g"]]).encode())
        connection.getresponse().read()
        if (n + 1) % max(1, count // 10) == 0:
            readings.append((n + 1, resident_mib(pid)))
    connection.close()
    return readings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=2.0, help="the server's --time-limit (default 2)")
    parser.add_argument("--distinct", type=int, default=10_000, help="requests with distinct rules (default 10000)")
    parser.add_argument("--after", type=float, default=AFTER, help="seconds watched after each answer (default 3)")
    parser.add_argument("--only", nargs="*", choices=sorted(ATTACKS), help="these attacks alone")
    args = parser.parse_args()
    print(f"triples serve --time-limit {args.time_limit:g} on {os.cpu_count()} cores; {load()}")
    port = free_port()
    server = start_server(port, args.time_limit)
    watch = Watch(port, server.pid)
    watch.start()
    failures: list[str] = []
    try:
        print()
        print(
            f"| attack | answer | time to answer | longest /health | peak memory | CPU in the {args.after:g} s after |"
        )
        print("|---|---|---|---|---|---|")
        for name, send in ATTACKS.items():
            if args.only and name not in args.only:
                continue
            row = attack(name, send, port, server.pid, watch, args.after)
            print(
                f"| {row.name} | {row.got} | {row.answer_s:.2f} s | {row.stall_ms:.0f} ms | {row.peak_mib:.0f} MiB "
                f"| {row.cpu_after_s:.2f} s |",
                flush=True,
            )
            if row.stall_ms > STALL_GOAL * 1000:
                failures.append(f"{name}: /health took {row.stall_ms:.0f} ms, goal {STALL_GOAL * 1000:.0f}")
            if name not in ("1,000 trickling headers", "a silent connection") and row.answer_s > args.time_limit + 0.5:
                failures.append(f"{name}: answered in {row.answer_s:.2f} s, goal {args.time_limit + 0.5:g}")
            if row.cpu_after_s > 0.3:
                failures.append(f"{name}: {row.cpu_after_s:.2f} s of CPU after the answer")
        if args.distinct:
            readings = distinct_rule_sets(port, server.pid, args.distinct)
            print()
            print(f"memory over {args.distinct:,} requests with distinct rules (requests: resident MiB):")
            print(", ".join(f"{n:,}: {mib:.0f}" for n, mib in readings))
            if len(readings) >= 10 and readings[-1][1] > 1.1 * readings[1][1]:
                failures.append(f"memory grew from {readings[1][1]:.0f} to {readings[-1][1]:.0f} MiB")
    finally:
        watch.stopping = True
        server.send_signal(signal.SIGTERM)
        stopping = time.monotonic()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        print(f"\nSIGTERM to exit: {time.monotonic() - stopping:.2f} s")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main())
