"""``triples audit``: was each finished attempt of a day played blind? One row per attempt.

Each finished attempt of the day's secret deals is replayed from its deal and audited
(``triples.engines.audit``); what an audit finds is kept in the store, so an attempt is audited
once (its moves never change once it is finished), and the leaderboard of an ended day marks
the suspect entries from it. Rows: date, variant, name, cleared, moves, sighted, p, verdict and
engine_match, in the table, jsonl or csv format.
"""

from __future__ import annotations

import argparse
import sys

from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.options import day_of
from triples.doors.kit.rows_file import FORMATS, Column, format_named
from triples.doors.kit.variant_option import variant_of

DESCRIPTION = """\
Audit every finished attempt of a day of the players' game: was it played by someone who could
not see the stock? Each attempt is replayed from its deal; the moves where the player left the
fair player's choice, and turned out right on the stock it met (sighted), make p: how likely a
blind player is to be this lucky. Below the variant's threshold the attempt is suspect. What an
audit finds is kept in the store (an attempt is audited once), and the day's leaderboard marks
suspect entries once the day has ended."""
EXAMPLE = """\
examples:
  triples audit --db game.db --date 2026-12-04
  triples audit --db game.db --date 2026-12-04 --variant sum15 --format csv"""

COLUMNS = (
    Column("date", str, 10),
    Column("variant", str, 8),
    Column("name", str, 16),
    Column("cleared", int, 7),
    Column("moves", int, 5),
    Column("sighted", int, 7),
    Column("p", float, 8, digits=4),
    Column("verdict", str, 7),
    Column("engine_match", float, 12, digits=2, optional=True),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", metavar="DB", required=True, help="the players' store: a SQLite file or a PostgreSQL URL"
    )
    parser.add_argument("--date", metavar="YYYY-MM-DD", required=True, help="the day whose attempts are audited")
    parser.add_argument("--variant", help="only the deal of this variant (default: every variant's deal of the day)")
    parser.add_argument("--format", default="table", choices=FORMATS, help="row format (default table)")


def main(args: argparse.Namespace) -> int:
    from triples.doors.cli.players_store import audited, opened_store

    day = day_of("--date", args.date).isoformat()
    variant = None if args.variant is None else variant_of(args.variant).name
    with opened_store(args.db) as store:
        deals = [deal for deal in store.secret_deals_on(day) if variant is None or deal.variant == variant]
        if not deals:
            of = f" of {variant}" if variant is not None else ""
            raise BadInput(f"no secret deal{of} on {day} in --db {args.db}")
        rows = [row for deal in deals for row in audited(store, deal)]
    fmt = format_named(args.format, COLUMNS)
    lines = ([fmt.header()] if fmt.has_header else []) + [fmt.line(row) for row in rows]
    sys.stdout.write("".join(line + "\n" for line in lines))
    suspect = sum(row["verdict"] == "suspect" for row in rows)
    sys.stderr.write(f"{len(rows)} finished attempt{'' if len(rows) == 1 else 's'} audited: {suspect} suspect\n")
    return EXIT_OK
