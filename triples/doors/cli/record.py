"""``triples record``: run a file of operations and print it as a replayable fixture."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from triples.doors.cli.reading import STDIN, read_operations, write
from triples.doors.kit.exits import EXIT_OK

DESCRIPTION = """\
Run the operations of FILE in one session and print a fixture to stdout:
{"name": ..., "operations": [...], "outputs": [...]} in the layout of the
fixtures/ folder (one operation or output per line). The name is FILE's name
without its extension unless --name says otherwise."""

EXAMPLE = """\
example:
  triples record worked_example.json > fixtures/worked_example.json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a JSON array of operations ('-': stdin)")
    parser.add_argument("--name", help="the fixture's name (default: FILE's name without its extension)")


def main(args: argparse.Namespace) -> int:
    from triples.api import run

    operations = read_operations(args.file)
    name = args.name if args.name is not None else "stdin" if args.file == STDIN else Path(args.file).stem
    write(fixture_text(name, operations, run(operations)))
    return EXIT_OK


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
