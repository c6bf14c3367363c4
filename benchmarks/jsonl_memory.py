"""Peak memory of `triples run --jsonl` on a long stream: it must not grow with the stream,
only with the games it keeps.

A writer thread feeds the child --lines lines (1,000,000 by default) through a pipe, generated
on the fly (the benchmark holds no copy of the stream); the main thread reads and counts the
answers. The stream cycles through whole games on three ids, each id dealt again with the next
seed and variant: `new`, `status`, `moves`, legal `play`s with `table` and `history` between
them, an `undo`, a rejected play, an unknown operation, a line that is not JSON and a blank line.

Measured in the same run for the long stream and for a short baseline stream
(--baseline-lines, 10,000 by default): the child's peak resident set (VmHWM, which the child
reads from its own /proc/self/status as it exits: the child is ``python -c`` calling
``triples.doors.cli.main``, the console script's entry point), its resident set sampled at each
tenth of the stream (from /proc/PID/status), and lines per second. Bounded memory means the
long stream's peak is the baseline's, give or take the allocator: the ratio is printed.

What does grow is the games kept: a session keeps one game per id until `["forget", id]`. Two
more streams show it, --ids games long (100,000 by default): a `new` on a fresh id per line,
kept; and the same with each game forgotten once dealt (`new` then `forget`). Their peaks and
the memory per kept game are printed.

    python benchmarks/jsonl_memory.py [--lines N] [--baseline-lines N] [--ids N]
"""

from __future__ import annotations

import argparse
import itertools
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson

from triples.model import rules
from triples.model.shuffle import shuffled
from triples.model.table import Table
from triples.model.variants import parse_variant

GAME_IDS: list[str | int] = ["a", "b", 7]
VARIANTS = ["classic", "pairs", "sum15", "quads", "grid", "grid100"]
SEEDS = 60  # distinct games in the cycle; the stream repeats them

CHILD = """\
import sys
from triples.doors.cli import main
status = main(["run", "--jsonl"])
with open("/proc/self/status") as f:
    peak = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
sys.stderr.write(f"VmHWM {peak}\\n")
sys.exit(status)
"""


def game_lines(game_id: str | int, seed: int) -> list[bytes]:
    """One game's lines, legal moves found by the engine here, once per seed."""
    variant = VARIANTS[seed % len(VARIANTS)]
    rules_of = parse_variant(variant)
    table = Table(rules_of, shuffled(rules_of.cards, seed))
    ops: list[Any] = [["new", game_id, seed, variant], ["status", game_id], ["moves", game_id]]
    while moves := rules.legal_moves(table):
        move = moves[len(moves) // 2]
        table.push(move)
        ops += [["play", game_id, list(move)], ["table", game_id], ["history", game_id]]
    ops += [["undo", game_id], ["play", game_id, [0] * rules_of.per_move], ["frobnicate", game_id]]
    return [orjson.dumps(op) for op in ops] + [b'["status", "' + str(game_id).encode(), b"   "]


def stream(lines: int) -> Iterator[bytes]:
    """``lines`` lines cycling through the games; each game's lines are built once."""
    blocks = [game_lines(GAME_IDS[seed % len(GAME_IDS)], seed) for seed in range(SEEDS)]
    return itertools.islice(itertools.chain.from_iterable(itertools.cycle(blocks)), lines)


def fresh_ids(games: int, forget: bool) -> Iterator[bytes]:
    """A classic deal on a fresh id per game, then its `forget` when ``forget``."""
    for n in range(games):
        yield b'["new",%d,%d]' % (n, n)
        if forget:
            yield b'["forget",%d]' % n


def is_blank(line: bytes) -> bool:
    return not line.strip()


class Measured(NamedTuple):
    lines: int
    answers: int
    seconds: float
    peak_kib: int
    samples_kib: list[int]


def resident_kib(pid: int) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in text.splitlines() if line.startswith("VmRSS:")), 0)


def measure(lines: int, lines_of: Iterator[bytes] | None = None) -> Measured:
    """The child's figures on ``lines_of`` (``lines`` long), or on ``lines`` of the cycling stream."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    expected = 0
    every = max(1, lines // 10)
    samples: list[int] = []

    def write() -> None:
        nonlocal expected
        assert child.stdin is not None
        with child.stdin:
            for n, line in enumerate(stream(lines) if lines_of is None else lines_of, 1):
                expected += not is_blank(line)
                child.stdin.write(line + b"\n")
                if n % every == 0:
                    samples.append(resident_kib(child.pid))

    start = time.perf_counter()
    writer = threading.Thread(target=write)
    writer.start()
    answers = sum(1 for _ in child.stdout)
    writer.join()
    status = child.wait()
    seconds = time.perf_counter() - start
    report = child.stderr.read().decode()
    if status != 0 or answers != expected:
        raise SystemExit(f"child failed: exit {status}, {answers} answers for {expected} lines\n{report}")
    peak = int(report.split("VmHWM")[1].split()[0])
    return Measured(lines, answers, seconds, peak, samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--baseline-lines", type=int, default=10_000)
    parser.add_argument("--ids", type=int, default=100_000, help="games of the fresh-id streams")
    args = parser.parse_args()

    base = measure(args.baseline_lines)
    long = measure(args.lines)
    kept = measure(args.ids, fresh_ids(args.ids, forget=False))
    forgotten = measure(2 * args.ids, fresh_ids(args.ids, forget=True))
    for name, m in (("baseline", base), ("stream", long)):
        print(
            f"{name:8} {m.lines:>9,} lines ({m.answers:,} answers) in {m.seconds:6.1f} s "
            f"({m.lines / m.seconds:,.0f} lines/s): peak RSS {m.peak_kib / 1024:.1f} MiB"
        )
    print("(timings are wall time on a shared 2-core machine: noisy; the memory figures are not)")
    print("stream RSS at each tenth (MiB):", " ".join(f"{s / 1024:.1f}" for s in long.samples_kib))
    print(f"peak ratio stream / baseline: {long.peak_kib / base.peak_kib:.3f}")
    for name, m in ((f"{args.ids:,} new games kept", kept), (f"{args.ids:,} new games, each forgotten", forgotten)):
        print(f"{name}: peak RSS {m.peak_kib / 1024:.1f} MiB")
    per_game = (kept.peak_kib - forgotten.peak_kib) * 1024 / args.ids
    print(f"memory per kept game: {per_game:,.0f} bytes (kept less forgotten, over {args.ids:,} games)")


if __name__ == "__main__":
    main()
