"""Batch throughput: a stream of cheap operations through the engine, run() and `triples run`.

The stream (100,000 operations by default) is what a test harness sends: a few games at a
time (ids "a", "b" and 7, interleaved), each dealt with `new`, then rounds of `moves`,
`status`, `table`, `history` and a legal `play` until the game is over, plus one rejected
play per game; then the id is dealt again with the next seed and variant.

Measured in the same run, best of --rounds, as wall time and as CPU time (the machine is
shared: CPU time is what the figures would be on an idle machine, wall time is what they were):
- the engine directly: Table, rules.legal_moves, rules.check_move + Table.push, with no
  interpreter (the baseline);
- run(): the interpreter in-process; its ratio to the baseline is the interpreter overhead;
- `triples run FILE` and `triples run --jsonl FILE` in a subprocess, start-up included, with
  the peak memory (VmHWM) of the process; the child is ``python -c`` calling
  ``triples.doors.cli.main``, the console script's entry point, and reporting its VmHWM from /proc
  (the rusage maximum would count the benchmark's own memory, inherited across fork and exec);
- the start-up alone: `python -c pass` and `triples run` on an empty array.

    python benchmarks/batch.py [--ops N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from triples import run
from triples.model import rules
from triples.model.rules import IllegalMove
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variants import parse_variant

GAME_IDS: list[str | int] = ["a", "b", 7]
VARIANTS = ["classic", "pairs", "sum15", "quads", "grid"]
REQUIRED_OPS_PER_SECOND = 20_000


def deal(seed: int, variant: str) -> Table:
    rules_of = parse_variant(variant)
    return Table(rules_of, shuffled(rules_of.cards, seed))


def game_operations(game_id: str | int, seed: int) -> list[list[Any]]:
    """One whole game's operations: deal, then query-and-play rounds until no move is left."""
    variant = VARIANTS[seed % len(VARIANTS)]
    table = deal(seed, variant)
    k = table.variant.per_move
    ops: list[list[Any]] = [["new", game_id, seed, variant], ["play", game_id, [0] * k]]
    while True:
        ops += [["moves", game_id], ["status", game_id], ["table", game_id], ["history", game_id]]
        moves = rules.legal_moves(table)
        if not moves:
            return ops
        move = moves[seed % len(moves)]
        table.push(move)
        ops.append(["play", game_id, list(move)])


def stream(length: int) -> list[list[Any]]:
    """``length`` operations from games played side by side, one operation of each in turn."""
    pending: list[list[list[Any]]] = [[] for _ in GAME_IDS]
    seed = 0
    ops: list[list[Any]] = []
    while len(ops) < length:
        for queue, game_id in zip(pending, GAME_IDS, strict=True):
            if not queue:
                queue += reversed(game_operations(game_id, seed))
                seed += 1
            ops.append(queue.pop())
    return ops[:length]


def engine_directly(ops: list[list[Any]]) -> list[Any]:
    """The same outputs as run(ops), from the engine's own calls: no validation models, no
    handler table, no error wrapping (the stream is well formed but for its rejected plays)."""
    games: dict[str | int, Table] = {}
    out: list[Any] = []
    append = out.append
    for op in ops:
        name, game_id = op[0], op[1]
        if name == "new":
            table = games[game_id] = deal(op[2], op[3])
            append(table.codes())
            continue
        table = games[game_id]
        if name == "moves":
            append([list(m) for m in rules.legal_moves(table)])
        elif name == "status":
            append({"cleared": table.cleared, "stock": table.stock_size, "over": not rules.has_legal_move(table)})
        elif name == "table":
            append(table.codes())
        elif name == "history":
            append([list(m) for m in table.history()])
        else:
            try:
                table.push(rules.check_move(table, op[2]))
            except IllegalMove as exc:
                append(f"error: {exc}")
            else:
                append("ok")
    return out


class Timing(NamedTuple):
    wall: float  # seconds
    cpu: float  # seconds of user + system time
    stdout: bytes = b""
    peak_kib: int = 0  # peak resident memory of a subprocess


def best(timings: list[Timing]) -> Timing:
    return min(timings, key=lambda t: t.wall)


def in_process(fn: Callable[[], object], rounds: int) -> Timing:
    def once() -> Timing:
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        return Timing(time.perf_counter() - wall, time.process_time() - cpu)

    return best([once() for _ in range(rounds)])


# The console script's entry point, then this process's own peak memory on stderr.
TRIPLES_CHILD = """\
import sys
from triples.doors.cli import main
status = main(sys.argv[1:])
sys.stdout.flush()
try:
    with open("/proc/self/status") as proc:
        sys.stderr.write(next(line for line in proc if line.startswith("VmHWM:")))
except OSError:
    pass
sys.exit(status)
"""


def subprocess_once(args: list[str]) -> Timing:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        wall = time.perf_counter()
        process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - wall
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode()
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(args)} exited with status {process.returncode}: {stderr}")
        fields = stderr.split()
        peak = int(fields[1]) if fields[:1] == ["VmHWM:"] else 0
        return Timing(wall, usage.ru_utime + usage.ru_stime, out.read(), peak)


def in_subprocess(args: list[str], rounds: int) -> Timing:
    return best([subprocess_once(args) for _ in range(rounds)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=100_000, help="operations in the stream (default 100000)")
    parser.add_argument("--rounds", type=int, default=3, help="timing rounds; the best is kept (default 3)")
    args = parser.parse_args()
    ops = stream(args.ops)
    n = len(ops)
    counts = Counter(op[0] for op in ops)
    print(f"stream: {n:,} operations over {counts['new']:,} games ({', '.join(map(str, GAME_IDS))} side by side):")
    print("  " + ", ".join(f"{name} {count:,}" for name, count in counts.most_common()))

    expected = run(ops)
    if engine_directly(ops) != expected:
        raise SystemExit("the direct engine path does not give run()'s outputs: the comparison would be unfair")
    direct = in_process(lambda: engine_directly(ops), args.rounds)
    interpreted = in_process(lambda: run(ops), args.rounds)

    triples = [sys.executable, "-c", TRIPLES_CHILD, "run"]
    with tempfile.TemporaryDirectory() as folder:
        array_file, lines_file = Path(folder, "ops.json"), Path(folder, "ops.jsonl")
        short_file, empty_file = Path(folder, "short.jsonl"), Path(folder, "empty.json")
        array_file.write_bytes(orjson.dumps(ops))
        lines_file.write_bytes(b"".join(orjson.dumps(op) + b"\n" for op in ops))
        short_file.write_bytes(b"".join(orjson.dumps(op) + b"\n" for op in ops[: n // 10]))
        empty_file.write_bytes(b"[]")
        array = in_subprocess([*triples, str(array_file)], args.rounds)
        lines = in_subprocess([*triples, "--jsonl", str(lines_file)], args.rounds)
        short_lines = in_subprocess([*triples, "--jsonl", str(short_file)], 1)
        python = in_subprocess([sys.executable, "-c", "pass"], args.rounds)
        startup = in_subprocess([*triples, str(empty_file)], args.rounds)
    if array.stdout != orjson.dumps(expected) + b"\n":
        raise SystemExit("`triples run` printed something other than run()'s outputs")
    if lines.stdout != b"".join(orjson.dumps(o) + b"\n" for o in expected):
        raise SystemExit("`triples run --jsonl` printed something other than run()'s outputs")

    def mib(kib: int) -> str:
        return f"{kib / 1024:.1f} MiB" if kib else "n/a"

    print(f"\n  {'path':45} {'wall s':>7} {'ops/s':>8} {'CPU s':>7} {'ops/s':>8} {'CPU vs engine':>14} {'peak mem':>9}")
    rows = [
        ("engine directly (Table, rules; no interpreter)", direct, ""),
        ("run() in-process (the interpreter)", interpreted, ""),
        ("`triples run FILE`, start-up included", array, mib(array.peak_kib)),
        ("`triples run --jsonl FILE`, start-up included", lines, mib(lines.peak_kib)),
    ]
    for label, timing, memory in rows:
        print(
            f"  {label:45} {timing.wall:7.3f} {n / timing.wall:8,.0f} {timing.cpu:7.3f} {n / timing.cpu:8,.0f}"
            f" {timing.cpu / direct.cpu:13.2f}x {memory:>9}"
        )
    print(
        f"\nstart-up (wall / CPU): `python -c pass` {python.wall * 1000:.0f} / {python.cpu * 1000:.0f} ms; "
        f"`triples run` on [] {startup.wall * 1000:.0f} / {startup.cpu * 1000:.0f} ms, {mib(startup.peak_kib)}"
    )
    print(
        f"interpreter overhead: run() takes {interpreted.cpu / direct.cpu:.2f}x the CPU time of the engine called "
        f"directly ({(interpreted.cpu - direct.cpu) / n * 1e6:.1f} us per operation)"
    )
    print(
        f"--jsonl peak memory: {mib(short_lines.peak_kib)} for {n // 10:,} lines, {mib(lines.peak_kib)} for {n:,} "
        "(only the current line is held)"
    )
    for clock, seconds in (("wall", array.wall), ("CPU", array.cpu)):
        verdict = "met" if n / seconds >= REQUIRED_OPS_PER_SECOND else "NOT met"
        print(
            f"requirement >= {REQUIRED_OPS_PER_SECOND:,} ops/s through `triples run`, start-up included, "
            f"by {clock} time: {n / seconds:,.0f}: {verdict}"
        )


if __name__ == "__main__":
    main()
