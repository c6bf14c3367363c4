"""What the command line's own commands share: reading a file or stdin, writing stdout, and the
one-line error report."""

from __future__ import annotations

import contextlib
import sys
from typing import Any, BinaryIO

from triples.doors.kit.exits import CommandError

STDIN = "-"
STDIN_LABEL = "<stdin>"


def label(path: str) -> str:
    return STDIN_LABEL if path == STDIN else path


def standard_input() -> BinaryIO:
    if sys.stdin is None:  # started with stdin closed
        raise CommandError(f"{STDIN_LABEL}: not open")
    return sys.stdin.buffer


def read_input(path: str) -> bytes:
    if path == STDIN:
        return standard_input().read()
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from None


def parse_json(data: bytes, source: str) -> Any:
    from triples.interpreter.jsonio import JSONInputError, loads

    try:
        return loads(data)
    except JSONInputError as exc:
        raise CommandError(f"{source}: {exc}") from None


def read_operations(path: str) -> list[Any]:
    """The JSON array of operations in ``path`` (``-``: stdin)."""
    from triples.interpreter.jsonio import json_kind

    operations = parse_json(read_input(path), label(path))
    if not isinstance(operations, list):
        raise CommandError(f"{label(path)}: expected a JSON array of operations, got {json_kind(operations)}")
    return operations


def write(data: bytes) -> None:
    from triples.doors.cli.batch import write_all

    write_all(sys.stdout.buffer, data)


def report_error(command_name: str | None, message: str) -> None:
    prog = "triples" if command_name is None else f"triples {command_name}"
    report_line(f"{prog}: error: {message}")


def report_line(line: str) -> None:
    """One line on stderr; a stderr that cannot take it (full, gone) loses it, and the exit
    status still says what happened."""
    with contextlib.suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)
