"""`triples serve` under load and under bad traffic, beside run() in-process.

Starts `triples serve --no-access-log` on a free loopback port, then:
- load: --requests (20,000) `POST /run` of a small game (new with seed 1..1000, play [0,2,5],
  status) from --concurrency (64) keep-alive connections of a minimal HTTP/1.1 client written on
  asyncio streams (a full client library would cost more CPU than the server under test, on the
  same two cores). Every answer is checked byte for byte against run(); prints requests/s,
  p50/p99 latency, failed requests, and the server's resident memory after 1,000 and after all
  requests;
- the baseline: the same bodies through run() in this process (parse, run, write), as
  requests/s, and the ratio of the two;
- bad traffic: random bytes, truncated JSON, clients that hang up mid-request (after the
  headers, after half the body, before reading the answer), and 1,000 bodies of exactly the
  1 MiB limit plus 100 one byte over it; every request that stays connected must get a status,
  and the server must still answer /health and /run correctly afterwards;
- the slow flood: --concurrency connections each sending slow requests (5,000 grid100 searches,
  about 40 s of work) again as soon as answered, ignoring Retry-After, while one more
  connection times 200 quick requests (/health and a small game, in turn): their p50 and p99
  latency (the goal: p99 within 100 ms), and how the slow ones were answered.

    python benchmarks/serve.py [--requests N] [--concurrency C] [--flood]

--flood runs only the slow flood.

Exit status 1 when a requirement fails: a failed request, memory after all requests more than
10% over memory after 1,000, a bad request left without a status, or a server that stopped.
Traffic goes to 127.0.0.1 only, with bounded counts; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from triples import run
from triples.interpreter.jsonio import loads as load_json

HOST = "127.0.0.1"
MIB = 1024 * 1024
REQUIRED_MEMORY_RATIO = 1.10
START_TIMEOUT = 60
REQUEST_TIMEOUT = 60
FLOOD_P99_MS = 100


# ---------------------------------------------------------------- the server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
    return port


def start_server(port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(
        [sys.executable, "-m", "triples", "serve", "--host", HOST, "--port", str(port), "--no-access-log"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + START_TIMEOUT
    while not healthy(port):
        if server.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server did not start: {server.communicate()[1].decode()}")
        time.sleep(0.05)
    return server


def stop_server(server: subprocess.Popen[bytes]) -> int:
    server.send_signal(signal.SIGINT)
    try:
        server.communicate(timeout=START_TIMEOUT)
    except subprocess.TimeoutExpired:
        server.kill()
        server.communicate()
    return server.returncode


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://{HOST}:{port}/health", timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_mib(pid: int) -> float:
    """The process's resident memory now (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS line")


# ---------------------------------------------------------------- a minimal HTTP/1.1 client


@dataclass
class Answer:
    status: int
    body: bytes
    closing: bool  # the server said Connection: close
    head: bytes = b""  # the status line and headers


def request_bytes(port: int, body: bytes, path: str = "/run", length: int | None = None) -> bytes:
    declared = len(body) if length is None else length
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {declared}\r\n\r\n"
    )
    return head.encode() + body


async def read_answer(reader: asyncio.StreamReader) -> Answer:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length, closing = 0, False
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection":
            closing = value.strip().lower() == b"close"
    return Answer(status, await reader.readexactly(length), closing, head)


class Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection(HOST, port, limit=4 * MIB)
        return cls(reader, writer)

    async def send(self, data: bytes) -> Answer:
        self.writer.write(data)
        with contextlib.suppress(ConnectionError):  # a 413 may come before the whole body is read
            await self.writer.drain()
        return await asyncio.wait_for(read_answer(self.reader), REQUEST_TIMEOUT)

    def close(self) -> None:
        self.writer.close()


@dataclass
class Outcome:
    answered: Counter[int] = field(default_factory=Counter)  # status -> count
    wrong_body: int = 0
    unanswered: int = 0
    latencies: list[float] = field(default_factory=list)

    @property
    def failed(self) -> int:
        return self.wrong_body + self.unanswered + sum(n for status, n in self.answered.items() if status != 200)


async def send_all(
    port: int,
    requests: list[bytes],
    check: Callable[[int, Answer], bool],
    concurrency: int,
    on_done: Callable[[int], None] = lambda done: None,
) -> Outcome:
    """Send every request over ``concurrency`` keep-alive connections; ``check(i, answer)``
    says whether answer i is right. A connection that fails is replaced."""
    outcome = Outcome()
    pending = iter(range(len(requests)))
    done = 0

    async def worker() -> None:
        nonlocal done
        connection: Connection | None = None
        for index in pending:
            started = time.perf_counter()
            try:
                if connection is None:
                    connection = await Connection.open(port)
                answer = await connection.send(requests[index])
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError):
                outcome.unanswered += 1
                connection = None
            else:
                outcome.latencies.append(time.perf_counter() - started)
                outcome.answered[answer.status] += 1
                outcome.wrong_body += not check(index, answer)
                if answer.closing:
                    connection.close()
                    connection = None
            done += 1
            on_done(done)
        if connection is not None:
            connection.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return outcome


# ---------------------------------------------------------------- the load


def game_body(seed: int) -> bytes:
    return orjson.dumps([["new", "g", seed], ["play", "g", [0, 2, 5]], ["status", "g"]])


def expected_answer(body: bytes) -> bytes:
    return orjson.dumps(run(load_json(body))) + b"\n"


def in_process_rate(bodies: list[bytes]) -> tuple[float, float]:
    """Requests per second through run() in this process (parse, run, write, as the server
    does), by wall time and by CPU time."""
    started, cpu = time.perf_counter(), time.process_time()
    for body in bodies:
        orjson.dumps(run(load_json(body)))
    return len(bodies) / (time.perf_counter() - started), len(bodies) / (time.process_time() - cpu)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


@dataclass
class LoadReport:
    outcome: Outcome
    seconds: float
    server_cpu: float  # seconds of CPU the server used for the load (at least one clock tick)
    memory_after_first: float
    memory_after_all: float


async def load(port: int, pid: int, total: int, concurrency: int, first: int) -> LoadReport:
    bodies = [game_body(1 + i % 1000) for i in range(total)]
    answers = {body: expected_answer(body) for body in set(bodies)}
    requests = [request_bytes(port, body) for body in bodies]
    memory: dict[str, float] = {}
    first = min(first, total)  # a short run still has a first memory reading

    def on_done(done: int) -> None:
        if done == first:
            memory["first"] = resident_mib(pid)

    started, cpu_before = time.perf_counter(), cpu_seconds(pid)
    outcome = await send_all(port, requests, lambda i, answer: answer.body == answers[bodies[i]], concurrency, on_done)
    seconds = time.perf_counter() - started
    # /proc counts CPU in clock ticks: a very short load may read as none at all.
    server_cpu = max(cpu_seconds(pid) - cpu_before, 1 / os.sysconf("SC_CLK_TCK"))
    return LoadReport(outcome, seconds, server_cpu, memory["first"], resident_mib(pid))


# ---------------------------------------------------------------- the slow flood


def slow_body(first_seed: int) -> bytes:
    seeds = range(first_seed, first_seed + 5_000)
    return orjson.dumps([op for seed in seeds for op in (["new", "g", seed, "grid100"], ["best", "g"])])


@dataclass
class FloodReport:
    quick_latencies: list[float]
    quick_failed: int
    slow_statuses: Counter[str]


async def slow_flood(port: int, concurrency: int, quick_requests: int = 200) -> FloodReport:
    # Bodies are made before the flood starts, so that making them does not slow this client.
    bodies = [request_bytes(port, slow_body(100_000 + 5_000 * i)) for i in range(concurrency * 2)]
    statuses: Counter[str] = Counter()
    flooding = True

    async def flood(index: int) -> None:
        connection, turn = await Connection.open(port), 0
        while flooding:
            try:
                answer = await connection.send(bodies[(index + turn * concurrency) % len(bodies)])
            except (OSError, asyncio.IncompleteReadError, TimeoutError):
                statuses["no answer"] += 1
                connection = await Connection.open(port)
                continue
            turn += 1
            if answer.closing:
                connection.close()
                connection = await Connection.open(port)
            error = orjson.loads(answer.body).get("error", "") if answer.status != 200 else ""
            kind = "time limit" if error.startswith("time limit") else "busy" if "busy" in error else ""
            retry = " with Retry-After" if b"retry-after" in answer.head.lower() else ""
            statuses[f"{answer.status} {kind}{retry}".strip()] += 1
        connection.close()

    floods = [asyncio.create_task(flood(index)) for index in range(concurrency)]
    await asyncio.sleep(1.0)  # the flood has arrived and is being answered
    quick = await Connection.open(port)
    health = f"GET /health HTTP/1.1\r\nHost: {HOST}:{port}\r\n\r\n".encode()
    small_game = game_body(1)
    game, expected_game = request_bytes(port, small_game), expected_answer(small_game)
    latencies, failed = [], 0
    for index in range(quick_requests):
        started = time.perf_counter()
        answer = await quick.send(health if index % 2 == 0 else game)
        latencies.append(time.perf_counter() - started)
        failed += answer.status != 200 or (index % 2 == 1 and answer.body != expected_game)
        await asyncio.sleep(0.01)
    quick.close()
    flooding = False
    await asyncio.wait(floods, timeout=REQUEST_TIMEOUT)
    return FloodReport(latencies, failed, statuses)


def report_flood(report: FloodReport, concurrency: int) -> list[str]:
    """Print the flood's figures; the requirements it did not meet."""
    latencies_ms = [1000 * t for t in report.quick_latencies]
    p99 = percentile(latencies_ms, 0.99)
    print(f"slow flood: {concurrency} connections sending slow requests, {len(latencies_ms)} quick ones timed:")
    print(
        f"  quick requests    p50 {percentile(latencies_ms, 0.50):.1f} ms, p99 {p99:.1f} ms,"
        f" max {max(latencies_ms):.1f} ms, failed {report.quick_failed} (load average {os.getloadavg()[0]:.1f})"
    )
    answered = ", ".join(f"{kind} x{count}" for kind, count in sorted(report.slow_statuses.items()))
    print(f"  slow requests     {answered}")
    failures = []
    if report.quick_failed:
        failures.append(f"{report.quick_failed} quick requests failed during the flood")
    if p99 > FLOOD_P99_MS:
        failures.append(f"quick requests' p99 {p99:.0f} ms during the flood (goal {FLOOD_P99_MS} ms)")
    return failures


# ---------------------------------------------------------------- bad traffic


@dataclass
class BadReport:
    name: str
    sent: int
    statuses: Counter[int]
    unanswered: int  # requests that stayed connected and got no status
    wrong: int  # answered, but not with the status or body expected
    still_serving: bool


def json_error(answer: Answer) -> bool:
    try:
        content = orjson.loads(answer.body)
    except orjson.JSONDecodeError:
        return False
    return isinstance(content, dict) and set(content) == {"error"}


async def answered_checks(
    name: str, port: int, requests: list[bytes], check: Callable[[int, Answer], bool], concurrency: int
) -> BadReport:
    outcome = await send_all(port, requests, check, concurrency)
    return BadReport(
        name, len(requests), outcome.answered, outcome.unanswered, outcome.wrong_body, healthy_and_right(port)
    )


def healthy_and_right(port: int) -> bool:
    body = game_body(1)
    request = urllib.request.Request(f"http://{HOST}:{port}/run", data=body, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return healthy(port) and response.read() == expected_answer(body)
    except OSError:
        return False


async def hang_ups(port: int, count: int) -> BadReport:
    """Clients that go away mid-request: after the headers, after half the body, or after
    the whole request without reading the answer. Nobody is there to get a status."""
    body = game_body(7)
    whole = request_bytes(port, body)
    head_length = len(whole) - len(body)
    cuts = [head_length, head_length + len(body) // 2, len(whole)]
    for index in range(count):
        _, writer = await asyncio.open_connection(HOST, port)
        writer.write(whole[: cuts[index % len(cuts)]])
        await writer.drain()
        writer.close()
        await writer.wait_closed()
    await asyncio.sleep(0.2)
    return BadReport("hang-ups mid-request", count, Counter(), 0, 0, healthy_and_right(port))


def padded(operations: list[Any], size: int) -> bytes:
    text = orjson.dumps(operations)
    return text[:-1] + b" " * (size - len(text)) + b"]"


async def bad_traffic(port: int, rng: random.Random) -> list[BadReport]:
    reports = []
    garbage = [rng.randbytes(rng.randint(1, 4000)) for _ in range(500)]
    reports.append(
        await answered_checks(
            "garbage bodies",
            port,
            [request_bytes(port, body) for body in garbage],
            lambda i, answer: answer.status == 400 and json_error(answer),
            16,
        )
    )
    games = [orjson.dumps([["new", "g", seed], ["autoplay", "g"], ["history", "g"]]) for seed in range(500)]
    truncated = [body[: rng.randint(0, len(body) - 1)] for body in games]
    reports.append(
        await answered_checks(
            "truncated JSON",
            port,
            [request_bytes(port, body) for body in truncated],
            lambda i, answer: answer.status == 400 and json_error(answer),
            16,
        )
    )
    reports.append(await hang_ups(port, 300))
    at_limit = padded([["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]], MIB)
    at_limit_answer = expected_answer(at_limit)
    reports.append(
        await answered_checks(
            "bodies of exactly 1 MiB",
            port,
            [request_bytes(port, at_limit)] * 1000,
            lambda i, answer: answer.status == 200 and answer.body == at_limit_answer,
            8,
        )
    )
    over_limit = padded([], MIB + 1)
    reports.append(
        await answered_checks(
            "bodies of 1 MiB + 1 byte",
            port,
            [request_bytes(port, over_limit)] * 100,
            lambda i, answer: answer.status == 413 and json_error(answer),
            8,
        )
    )
    return reports


# ---------------------------------------------------------------- report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--first", type=int, default=1_000, help="memory is also read after this many requests")
    parser.add_argument("--flood", action="store_true", help="run only the slow flood")
    args = parser.parse_args()
    if args.flood:
        port = free_port()
        server = start_server(port)
        try:
            flood = asyncio.run(slow_flood(port, args.concurrency))
        finally:
            stop_server(server)
        failures = report_flood(flood, args.concurrency)
        print("requirements: " + ("all met" if not failures else "NOT MET: " + "; ".join(failures)))
        return 1 if failures else 0

    bodies = [game_body(1 + i % 1000) for i in range(args.requests)]
    in_process, in_process_cpu = in_process_rate(bodies)

    port = free_port()
    server = start_server(port)
    try:
        idle = resident_mib(server.pid)
        report = asyncio.run(load(port, server.pid, args.requests, args.concurrency, args.first))
        bad = asyncio.run(bad_traffic(port, random.Random(14)))
        after_bad = resident_mib(server.pid)
        flood = asyncio.run(slow_flood(port, args.concurrency))
    finally:
        exit_status = stop_server(server)

    outcome = report.outcome
    rate = args.requests / report.seconds
    latencies_ms = [1000 * t for t in outcome.latencies]
    memory_ratio = report.memory_after_all / report.memory_after_first
    print(f"triples serve (1 worker, no access log), {args.requests:,} POST /run from {args.concurrency} connections:")
    print(f"  requests/s        {rate:,.0f}  ({report.seconds:.2f} s, load average {os.getloadavg()[0]:.1f})")
    print(
        f"  server CPU        {1e6 * report.server_cpu / args.requests:,.0f} us per request"
        f" ({args.requests / report.server_cpu:,.0f} requests per CPU-second)"
    )
    print(
        f"  latency           p50 {percentile(latencies_ms, 0.50):.1f} ms, p99 {percentile(latencies_ms, 0.99):.1f} ms,"
        f" mean {statistics.fmean(latencies_ms):.1f} ms"
    )
    print(f"  failed requests   {outcome.failed} (wrong body {outcome.wrong_body}, no answer {outcome.unanswered})")
    print(
        f"  server memory     idle {idle:.1f} MiB, after {args.first:,} requests {report.memory_after_first:.1f} MiB,"
        f" after {args.requests:,} {report.memory_after_all:.1f} MiB (ratio {memory_ratio:.3f})"
    )
    server_cpu_rate = args.requests / report.server_cpu
    print(
        f"  run() in-process  {in_process:,.0f} requests/s ({in_process_cpu:,.0f} per CPU-second): over HTTP"
        f" {rate / in_process:.1%} of it by wall time, {server_cpu_rate / in_process_cpu:.1%} by CPU time"
    )
    print("bad traffic (every request that stays connected must get a status; the server must keep serving):")
    for item in bad:
        statuses = ", ".join(f"{status}x{count}" for status, count in sorted(item.statuses.items())) or "-"
        print(
            f"  {item.name:<26} {item.sent:>5} sent, statuses {statuses}, no status {item.unanswered},"
            f" unexpected {item.wrong}, still serving {'yes' if item.still_serving else 'NO'}"
        )
    print(f"  server memory after bad traffic {after_bad:.1f} MiB; exit status on Ctrl-C {exit_status}")

    failures = report_flood(flood, args.concurrency)
    if outcome.failed:
        failures.append(f"{outcome.failed} failed requests")
    if memory_ratio > REQUIRED_MEMORY_RATIO:
        failures.append(f"memory grew {memory_ratio:.3f}x from {args.first:,} to {args.requests:,} requests")
    for item in bad:
        if item.unanswered or item.wrong or not item.still_serving:
            failures.append(f"bad traffic: {item.name}")
    if exit_status not in (0, 130):
        failures.append(f"the server exited with status {exit_status} on Ctrl-C")
    print("requirements: " + ("all met" if not failures else "NOT MET: " + "; ".join(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
