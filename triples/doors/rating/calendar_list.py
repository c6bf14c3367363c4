"""``triples calendar --list``: the days of a span kept in the store, with their tables, read
only: nothing is rated, filled or created.

Rows are the calendar's (date, variant, seed, band, best, fair, p_random) and the table each
day deals, in the table, jsonl or csv format (with ``--secret``, the players' calendar: its deal
id where a seed calendar has the seed); dates of the span without a deal are left out
and counted on stderr. Exit status 0, or 2 for bad input (no --db, a store that does not
exist).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from collections.abc import Mapping
from datetime import date
from functools import partial
from typing import Any

import orjson

from triples.doors.kit.exits import EXIT_OK, BadInput
from triples.doors.kit.variant_option import variant_of
from triples.doors.rating import store_backed
from triples.model.deal import deal
from triples.model.variants import parse_variant
from triples.store import Deal, SecretDeal, shown, store_exists

SEED_COLUMNS = ("date", "variant", "seed", "band", "best", "fair", "p_random", "table")
SECRET_COLUMNS = ("date", "variant", "deal", "band", "best", "fair", "p_random", "table")


def list_days(args: argparse.Namespace, dates: list[date]) -> int:
    variant = variant_of(args.variant)
    if args.db is None:
        raise BadInput("--list shows the calendar kept in a store: give --db FILE")
    if not store_backed.in_store(partial(store_exists, args.db)):
        raise BadInput(f"--db {shown(args.db)}: no such store (--list reads one, it never makes one)")
    with store_backed.opened(args.db) as store:
        assert store is not None
        kept: Mapping[str, Deal | SecretDeal] = store_backed.in_store(
            lambda: store.secret_calendar(variant.name) if args.secret else store.calendar(variant.name)
        )
    days = [kept[day.isoformat()] for day in dates if day.isoformat() in kept]
    columns = SECRET_COLUMNS if args.secret else SEED_COLUMNS
    rows = [row_of(day, columns) for day in days]
    sys.stdout.write(formatted(args.format, rows, columns))
    sys.stdout.flush()
    first, last = dates[0].isoformat(), dates[-1].isoformat()
    sys.stderr.write(f"variant: {variant.name}\ndates: {first} to {last}: {len(days)} of {len(dates)} have a deal\n")
    return EXIT_OK


def row_of(day: Deal | SecretDeal, columns: tuple[str, ...]) -> dict[str, Any]:
    dealt = deal(parse_variant(day.spec), day.seed if isinstance(day, Deal) else list(day.deck))
    values = {name: getattr(day, name) for name in columns[:-1]}
    return {**values, "table": dealt.codes()}


def formatted(fmt: str, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    if fmt == "jsonl":
        return "".join(orjson.dumps(row).decode() + "\n" for row in rows)
    if fmt == "csv":
        text = io.StringIO()
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(
            [[*(row[c] for c in columns[:-1]), " ".join(code or "-" for code in row["table"])] for row in rows]
        )
        return text.getvalue()
    cells = [
        {
            **{c: str(row[c]) for c in columns[:-1]},
            "p_random": f"{row['p_random']:.4f}",
            "table": " ".join(code or "-" for code in row["table"]),
        }
        for row in rows
    ]
    widths = {c: max([len(c), *(len(cell[c]) for cell in cells)]) for c in columns}
    left = ("date", "variant", "table")

    def line(values: dict[str, str]) -> str:
        return " ".join(
            f"{values[c]:<{widths[c]}}" if c in left else f"{values[c]:>{widths[c]}}" for c in columns
        ).rstrip()

    return "".join(line(values) + "\n" for values in [dict(zip(columns, columns, strict=True)), *cells])
