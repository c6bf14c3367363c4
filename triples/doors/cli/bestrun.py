"""``triples bestrun``: the best run of Uniscraper pyramid configs (triples/games/uniscraper.py)."""

from __future__ import annotations

import argparse

from triples.doors.cli.reading import report_error, write
from triples.doors.kit.exits import EXIT_BAD_INPUT, EXIT_OK

DESCRIPTION = """\
Print the best run of each Uniscraper config (the pyramid solitaire of
docs/uniscraper.md), one JSON list of positions per line, in the order given: the
longest run of free cards, each one rank from the last, and among the longest
the lexicographically smallest list of positions.

A CONFIG is the play card then positions 1..36, each one of 23456789TJQKA or
'.' for a card that is gone. An invalid config gets one line on stderr,
"triples bestrun: error: <config>: bad config: <reason>", and no line on
stdout; the other configs are still answered, and the exit status is 2."""

EXAMPLE = """\
example:
  triples bestrun KJQKA2A 'K.'
  [4,5,6,3,2,1]
  []"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", metavar="CONFIG", nargs="+", help="a Uniscraper config (see docs/uniscraper.md)")


def main(args: argparse.Namespace) -> int:
    import json

    import orjson

    from triples.games.uniscraper import ConfigError, best_run

    status = EXIT_OK
    for config in args.configs:
        try:
            positions = best_run(config)
        except ConfigError as exc:  # json quotes any config, even one with a lone surrogate
            report_error("bestrun", f"{json.dumps(config)}: {exc}")
            status = EXIT_BAD_INPUT
            continue
        write(orjson.dumps(positions) + b"\n")
    return status
