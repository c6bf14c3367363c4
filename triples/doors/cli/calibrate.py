"""``triples calibrate``: does difficulty match real play? The engines' estimates of each published
deal of the players' game against its finished attempts (``triples.engines.calibration``).

Rows of three kinds: ``deal`` (one per deal: attempts, how many reached best, the share with its
95% interval, the mean cleared, ``p_random``, whether the fair player reaches best, the fitted
map's prediction and the deal's rating), ``band`` (one per band: the observed share with its
interval beside the engines' predictions) and ``fit`` (the map from ``p_random`` to the share of
people reaching best, and the band cut points that give the shares design asks for). ``jsonl``
writes every row with its ``kind``; the table and csv write one block per kind.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.rows_file import FORMATS, Column, format_named
from triples.doors.kit.variant_option import variant_of

DESCRIPTION = """\
Calibrate the difficulty bands against real play: from every finished attempt of the players'
game, per deal the share of players who reached its best (with a 95% interval) beside what the
engines predicted (p_random, the fair player), per band the same, a fitted map from p_random to
the share that reaches best with its coefficients, the p_random cut points that would give the
shares design asks for, and each deal's rating learned from its attempts, starting from the
engines' estimate. --plot draws predicted against observed (a reliability diagram)."""
EXAMPLE = """\
examples:
  triples calibrate --db game.db
  triples calibrate --db game.db --variant classic --format jsonl --plot reliability.png"""

DEAL_COLUMNS = (
    Column("date", str, 10),
    Column("variant", str, 8),
    Column("band", str, 6),
    Column("best", int, 4),
    Column("attempts", int, 8),
    Column("reached_best", int, 12),
    Column("share", float, 6, digits=3, optional=True),
    Column("low", float, 6, digits=3),
    Column("high", float, 6, digits=3),
    Column("mean_cleared", float, 12, digits=1, optional=True),
    Column("p_random", float, 8, digits=4, optional=True),
    Column("fair_reaches", bool, 12),
    Column("predicted", float, 9, digits=3, optional=True),
    Column("rating", float, 7, digits=1),
)
BAND_COLUMNS = (
    Column("variant", str, 8),
    Column("band", str, 6),
    Column("deals", int, 5),
    Column("attempts", int, 8),
    Column("reached_best", int, 12),
    Column("share", float, 6, digits=3, optional=True),
    Column("low", float, 6, digits=3),
    Column("high", float, 6, digits=3),
    Column("p_random", float, 8, digits=4, optional=True),
    Column("fair_reaches", float, 12, digits=3, optional=True),
    Column("predicted", float, 9, digits=3, optional=True),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", metavar="DB", required=True, help="the players' store: a SQLite file or a PostgreSQL URL"
    )
    parser.add_argument("--variant", help="only this variant's deals (default: every variant's)")
    parser.add_argument("--format", default="table", choices=FORMATS, help="row format (default table)")
    parser.add_argument(
        "--plot", metavar="FILE", help="draw the reliability diagram into FILE (.png or .svg; the plot extra)"
    )


def main(args: argparse.Namespace) -> int:
    from triples.doors.cli.players_store import deal_attempts, opened_store
    from triples.engines import calibration

    variant = None if args.variant is None else variant_of(args.variant).name
    if args.plot is not None and not args.plot.lower().endswith((".png", ".svg")):
        raise BadInput(f"--plot {args.plot}: expected a .png or .svg file")
    with opened_store(args.db) as store:
        deals = deal_attempts(store, variant)
    if not deals:
        raise BadInput(f"no secret deal{'' if variant is None else f' of {variant}'} in --db {args.db}")
    # One map per variant: p_random means a different thing under different rules.
    rows = []
    for name in sorted({deal.variant for deal in deals}):
        rows += calibration.rows([deal for deal in deals if deal.variant == name], variant=name)
    sys.stdout.write(formatted(args.format, rows))
    attempts = sum(deal.attempts for deal in deals)
    sys.stderr.write(f"{plural(len(deals), 'deal')}, {plural(attempts, 'finished attempt')}\n")
    if args.plot is not None:
        draw(args.plot, deals, variant)
    return EXIT_OK


def plural(count: int, thing: str) -> str:
    return f"{count} {thing}{'' if count == 1 else 's'}"


def draw(path: str, deals: list[Any], variant: str | None) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        from triples.doors.kit.install import install_hint

        raise BadInput(f"--plot needs matplotlib: {install_hint('plot')}") from None
    from triples.engines import reliability

    title = f"Reliability of the engines' estimate: {variant or 'every variant'}"
    try:
        reliability.draw_deals(path, deals, title)
    except OSError as exc:
        raise BadInput(f"--plot {path}: {exc.strerror or exc}") from None


def formatted(fmt: str, rows: list[dict[str, Any]]) -> str:
    """The rows in ``fmt``: every row with its kind in jsonl; a block per kind otherwise."""
    if fmt == "jsonl":
        import orjson

        return "".join(orjson.dumps(row).decode() + "\n" for row in rows)
    blocks = []
    for kind, columns in (("deal", DEAL_COLUMNS), ("band", BAND_COLUMNS)):
        table = format_named(fmt, columns)
        lines = [table.header(), *(table.line(row) for row in rows if row["kind"] == kind)]
        blocks.append("\n".join(lines))
    blocks += [fit_text(row) for row in rows if row["kind"] == "fit"]
    return "\n\n".join(blocks) + "\n"


def fit_text(fit: dict[str, Any]) -> str:
    if fit["intercept"] is None:
        return f"fit of {fit['variant']}: too few attempts, or too alike, to fit p_random to the share reaching best"
    sign = "-" if fit["slope"] < 0 else "+"
    cuts = ", ".join(f"{band} from p_random {value:.4f}" for band, value in fit["cuts"].items())
    return (
        f"fit of {fit['variant']}: logit(share reaching best) = {fit['intercept']:.3f} (+-{fit['intercept_error']:.3f})"
        f" {sign} {abs(fit['slope']):.3f} (+-{fit['slope_error']:.3f}) * logit(p_random);"
        f" {fit['deals']} deals, {fit['attempts']} attempts\n"
        f"cut points for the shares design asks: {cuts or 'none (the share does not rise with p_random)'}"
    )
