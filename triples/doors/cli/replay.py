"""``triples replay``: replay fixtures and report PASS or FAIL for each."""

from __future__ import annotations

import argparse
from typing import Any

from triples.doors.cli.reading import parse_json, read_input, report_error, write
from triples.doors.kit.exits import EXIT_OK, EXIT_REPLAY_FAILED, CommandError
from triples.interpreter.jsonio import json_kind

DESCRIPTION = """\
Replay each fixture's operations in a fresh session and compare every output
with the recorded one, as JSON (an object's key order does not matter; true is
not 1). One line per fixture on stdout:

  PASS <path>
  FAIL <path>: operation #<i> <operation>: expected <output>, got <output>

where #<i> is the 0-based index of the first operation whose output differs.
A fixture that cannot be read or is not a fixture gets one line on stderr
instead, and the others are still replayed.

Exit status: 0 all passed, 1 some fixture failed, 2 some fixture could not be
read or was malformed."""

EXAMPLE = """\
example:
  triples replay fixtures/*.json"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fixtures", metavar="FIXTURE", nargs="+", help="fixture files to replay")


def main(args: argparse.Namespace) -> int:
    status = EXIT_OK
    for path in args.fixtures:
        try:
            line = replay(path)
        except CommandError as exc:
            report_error("replay", str(exc))
            status = max(status, exc.status)
            continue
        write(line.encode() + b"\n")
        if not line.startswith("PASS"):
            status = max(status, EXIT_REPLAY_FAILED)
    return status


def read_fixture(path: str) -> tuple[list[Any], list[Any]]:
    """A fixture's operations and outputs, or CommandError saying what is wrong with it."""
    fixture = parse_json(read_input(path), path)
    if not isinstance(fixture, dict):
        raise CommandError(f"{path}: not a fixture: expected a JSON object, got {json_kind(fixture)}")
    for key in ("name", "operations", "outputs"):
        if key not in fixture:
            raise CommandError(f'{path}: not a fixture: no "{key}" key')
    if not isinstance(fixture["name"], str):
        raise CommandError(f'{path}: not a fixture: "name" must be a string')
    operations, outputs = fixture["operations"], fixture["outputs"]
    for key, value in (("operations", operations), ("outputs", outputs)):
        if not isinstance(value, list):
            raise CommandError(f'{path}: not a fixture: "{key}" must be an array, not {json_kind(value)}')
    if len(operations) != len(outputs):
        raise CommandError(
            f'{path}: not a fixture: "operations" and "outputs" differ in length ({len(operations)} and {len(outputs)})'
        )
    return operations, outputs


def replay(path: str) -> str:
    """The PASS or FAIL line of one fixture."""
    from triples.api import run

    operations, expected = read_fixture(path)
    for index, (operation, want, got) in enumerate(zip(operations, expected, run(operations), strict=True)):
        if not same_json(want, got):
            return f"FAIL {path}: operation #{index} {show(operation)}: expected {show(want)}, got {show(got)}"
    return f"PASS {path}"


def canonical(value: object) -> bytes | None:
    """The JSON text of ``value`` with sorted keys; None when orjson cannot write it (too deep)."""
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None


def same_json(a: object, b: object) -> bool:
    # Python's == says True == 1 and 1 == 1.0; fixtures mean JSON, where they differ.
    text = canonical(a)
    return text is not None and text == canonical(b)


def show(value: object) -> str:
    text = canonical(value)
    return "<too deeply nested to show>" if text is None else text.decode()
