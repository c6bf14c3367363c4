"""``triples quartets``: could every player of a watched Quartets game have played fair?
(triples/games/quartets.py)"""

from __future__ import annotations

import argparse

from triples.doors.cli.reading import STDIN, label, read_input, write
from triples.doors.kit.exits import EXIT_OK, CommandError

DESCRIPTION = """\
Read a watched Quartets game (docs/quartets.md) in the contest format: a first
line with the number of actions, then one action per line ('x A y sk yes',
'x A y sk no' or 'x Q s'). Print "yes" when some deal of the cards makes every
action fair; else "no" and, on the next line, the number of the first action
after which cheating is certain.

An action that breaks a rule other than the two kinds of cheating, or that no
deal allows even with lying, gets one line on stderr, "triples quartets:
error: action <n>: <reason>", and exit status 2."""

EXAMPLE = """\
example:
  printf '4\\n1 A 2 3C no\\n2 A 3 3A yes\\n2 A 4 3D yes\\n2 A 1 3C no\\n' | triples quartets
  no
  4"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIN, help="the watched game; stdin when omitted or '-'"
    )


def main(args: argparse.Namespace) -> int:
    from triples.games.quartets import ContestFormatError, QuartetsError, judge, read_contest

    data = read_input(args.file)
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise CommandError(f"{label(args.file)}: not UTF-8 text") from None
    try:
        actions = read_contest(text)
    except ContestFormatError as exc:
        raise CommandError(f"{label(args.file)}: {exc}") from None
    try:
        verdict = judge(actions)
    except QuartetsError as exc:
        raise CommandError(str(exc)) from None
    write(verdict.contest_lines().encode())
    return EXIT_OK
