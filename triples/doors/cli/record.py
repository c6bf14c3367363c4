"""``triples record``: run a file of operations and print it as a replayable fixture."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from triples.doors.cli.reading import STDIN, label, standard_input, write
from triples.doors.kit.exits import EXIT_OK, CommandError

DESCRIPTION = """\
Run the operations of FILE and print them with their outputs as a fixture:
{"name": ..., "operations": [...], "outputs": [...]} in the layout of the
fixtures/ folder (one operation or output per line). FILE holds any shape
`triples run` reads: one JSON array of operations, or JSON Lines of
operations, is one session and one fixture; JSON Lines of arrays of
operations are one session a line, so one fixture a line, printed one after
the other (named NAME-1, NAME-2, ...), which `triples replay` reads as they
are. The name is FILE's name without its extension unless --name says
otherwise. A line that is not JSON has no place in a fixture: it is refused."""

EXAMPLE = """\
examples:
  triples record worked_example.json > fixtures/worked_example.json
  triples record games.jsonl > games.json && triples replay games.json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="operations in any shape triples run reads ('-': stdin)")
    parser.add_argument("--name", help="the fixture's name (default: FILE's name without its extension)")


def main(args: argparse.Namespace) -> int:
    from triples.api import run

    sessions = read_sessions(args.file)
    name = args.name if args.name is not None else "stdin" if args.file == STDIN else Path(args.file).stem
    if len(sessions) == 1:
        write(fixture_text(name, sessions[0], run(sessions[0])))
        return EXIT_OK
    for number, operations in enumerate(sessions, 1):
        write(fixture_text(f"{name}-{number}", operations, run(operations)))
    return EXIT_OK


def read_sessions(path: str) -> list[list[Any]]:
    """The sessions in ``path`` (``-``: stdin), read as ``triples run`` reads its input."""
    from triples.doors.cli.batch import recorded
    from triples.interpreter.jsonio import JSONInputError

    if path == STDIN:
        stream = standard_input()
    else:
        try:
            stream = open(path, "rb")  # noqa: SIM115 (only the opening is a user's mistake to report)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror or exc}") from None
    try:
        return recorded(stream)
    except JSONInputError as exc:
        raise CommandError(f"{label(path)}: {exc}") from None
    finally:
        if path != STDIN:
            stream.close()


def fixture_text(name: str, operations: list[Any], outputs: list[Any]) -> bytes:
    """The fixtures/ layout: one compact JSON operation or output per line, so that a diff of
    a fixture shows which steps changed. Written as ``triples run`` writes its outputs, so
    integers of any size and deep nesting are kept exactly."""
    from triples.interpreter.jsonio import dumps

    def block(items: list[Any]) -> bytes:
        if not items:
            return b"[]"
        return b"[\n" + b",\n".join(b"    " + dumps(item)[:-1] for item in items) + b"\n  ]"

    name_line = b'{\n  "name": ' + dumps(name)[:-1]
    return name_line + b',\n  "operations": ' + block(operations) + b',\n  "outputs": ' + block(outputs) + b"\n}\n"
