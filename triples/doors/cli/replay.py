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
A file may hold several fixtures one after the other (`triples record` of
lines of arrays writes them so): each is replayed in its own session, and its
line names it, <path> (<name>).
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
            lines = replay_all(path)
        except CommandError as exc:
            report_error("replay", str(exc))
            status = max(status, exc.status)
            continue
        for line in lines:
            write(line.encode() + b"\n")
            if not line.startswith("PASS"):
                status = max(status, EXIT_REPLAY_FAILED)
    return status


def documents(path: str) -> list[Any]:
    """The JSON values in ``path``, one or several one after the other, integers exact."""
    data = read_input(path)
    try:
        return [parse_json(data, path)]
    except CommandError:
        several = several_values(data)
        if several is None:
            raise
        return several


def several_values(data: bytes) -> list[Any] | None:
    """The JSON values ``data`` holds one after the other, or None unless it holds several."""
    import json
    import re

    from triples.support.digits import integer

    try:
        text = data.decode()
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder(parse_int=integer)
    blank = re.compile(r"[ \t\r\n]*")  # JSON's whitespace between the values
    values: list[Any] = []
    at = blank.match(text).end()  # type: ignore[union-attr]  # it matches the empty text too
    try:
        while at < len(text):
            value, at = decoder.raw_decode(text, at)
            values.append(value)
            at = blank.match(text, at).end()  # type: ignore[union-attr]
    except (ValueError, RecursionError):
        return None
    return values if len(values) > 1 else None


def read_fixtures(path: str) -> list[tuple[str, list[Any], list[Any]]]:
    """The name, operations and outputs of each fixture in ``path``, or CommandError saying
    what is wrong with the first that is not one."""
    return [fixture_parts(path, fixture) for fixture in documents(path)]


def fixture_parts(path: str, fixture: Any) -> tuple[str, list[Any], list[Any]]:
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
    return fixture["name"], operations, outputs


def replay_all(path: str) -> list[str]:
    """The PASS or FAIL line of each fixture in ``path``: named by the path alone when it is the
    file's one fixture, else by the path and the fixture's name."""
    fixtures = read_fixtures(path)
    if len(fixtures) == 1:
        return [verdict(path, fixtures[0][1], fixtures[0][2])]
    return [verdict(f"{path} ({name})", operations, outputs) for name, operations, outputs in fixtures]


def verdict(label: str, operations: list[Any], expected: list[Any]) -> str:
    from triples.api import run

    for index, (operation, want, got) in enumerate(zip(operations, expected, run(operations), strict=True)):
        if not same_json(want, got):
            return f"FAIL {label}: operation #{index} {show(operation)}: expected {show(want)}, got {show(got)}"
    return f"PASS {label}"


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
