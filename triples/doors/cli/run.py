"""``triples run``: apply operations and print their outputs (the default command)."""

from __future__ import annotations

import argparse
import sys

from triples.doors.cli.reading import STDIN, label, standard_input
from triples.doors.kit.exits import EXIT_OK, CommandError

DESCRIPTION = """\
Apply operations and print their outputs. FILE (or stdin) holds one of three
shapes, and the shape decides the mode:

  one JSON array of operations      -> one JSON array of outputs (one session)
  JSON Lines, one operation a line  -> one output a line, all in one session,
                                       each answered as soon as its line arrives
  JSON Lines, one array of          -> one output array a line, each line
  operations a line                    its own fresh session

The input is read as lines when it holds more than one non-blank line and its
first non-blank line is a complete JSON value. Blank lines are skipped (they
get no answer); a line that is not JSON is answered with "error: invalid JSON:
..." (inside an array, in lines of arrays) and the stream goes on. Only the
current line is held; a session keeps one game per id. The input is judged as
it arrives: a control character (NUL...) ends a document at once, and a
document or a line may hold at most 256 MiB.

--jsonl reads lines from the start, so a program that waits for each answer
before writing the next line (a coprocess) gets the first one at once.
`triples` and `python -m triples` with no command do what `triples run` does."""

EXAMPLE = """\
examples:
  echo '[["new","g",1],["status","g"]]' | triples run
  triples run operations.json
  printf '%s\\n' '["new","g",1]' '["moves","g"]' | triples run
  printf '%s\\n' '[["new","g",1],["best","g"]]' '[["new","g",2],["best","g"]]' | triples
  triples --jsonl < operations.jsonl"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIN, help="the operations; stdin when omitted or '-'"
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="read JSON Lines from the first line on, answering each line as soon as it arrives "
        "(without it, the first answer waits for the second line, which shows that the input is lines)",
    )


def main(args: argparse.Namespace) -> int:
    from triples.doors.cli.batch import answer
    from triples.interpreter.jsonio import JSONInputError

    source = label(args.file)
    if args.file == STDIN:
        stream = standard_input()
    else:
        try:
            stream = open(args.file, "rb")  # noqa: SIM115 (only the opening is a user's mistake to report)
        except OSError as exc:
            raise CommandError(f"{source}: {exc.strerror or exc}") from None
    try:
        answer(stream, sys.stdout.buffer, lines=args.jsonl)
    except JSONInputError as exc:
        raise CommandError(f"{source}: {exc}") from None
    finally:
        if args.file != STDIN:
            stream.close()
    return EXIT_OK
