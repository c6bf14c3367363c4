"""The command line: ``triples run`` reads a JSON array of operations, writes the outputs."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    import orjson

    from triples.api import run

    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["run"]:
        print("usage: triples run  (a JSON array of operations on stdin)", file=sys.stderr)
        return 2
    try:
        operations = orjson.loads(sys.stdin.buffer.read())
    except orjson.JSONDecodeError as exc:
        print(f"triples: invalid JSON: {exc}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(orjson.dumps(run(operations)) + b"\n")
    return 0
