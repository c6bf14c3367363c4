"""What ``triples audit`` and ``triples calibrate`` read of the players' store: opening it (it
must exist: these commands never make one), the audits of a deal's finished attempts (worked out
once and kept), and each deal's attempts as calibration counts them."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from triples.doors.kit.audits import audit_deal
from triples.doors.kit.exits import BadInput
from triples.engines.calibration import DealAttempts
from triples.store import SecretDeal, Store, StoreError, open_store, shown, store_exists


@contextmanager
def opened_store(db: str) -> Iterator[Store]:
    """The store of ``--db``, which must exist; its failures are one line."""
    try:
        if not store_exists(db):
            raise BadInput(f"--db {shown(db)}: no such store")
        with open_store(db) as store:
            yield store
    except StoreError as exc:
        raise BadInput(str(exc)) from None


def audited(store: Store, deal: SecretDeal) -> list[dict[str, Any]]:
    """Each finished attempt at ``deal`` as an audit row, auditing those the store holds no
    audit of yet and keeping what it finds; on a terminal, how many are done so far."""

    def shown_progress(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        sys.stderr.write(f"\rauditing {deal.variant} {deal.date}: {done}/{total} attempts{end}")
        sys.stderr.flush()

    audits = audit_deal(store, deal, shown_progress if sys.stderr.isatty() else None)
    return [
        {
            "date": deal.date,
            "variant": deal.variant,
            "name": finished.name,
            "cleared": finished.attempt.cleared,
            "moves": audits[finished.attempt.id].moves,
            "sighted": audits[finished.attempt.id].sighted,
            "p": audits[finished.attempt.id].p,
            "verdict": audits[finished.attempt.id].verdict,
            "engine_match": audits[finished.attempt.id].engine_match,
        }
        for finished in store.finished_attempts(deal.deal)
    ]


def deal_attempts(store: Store, variant: str | None) -> list[DealAttempts]:
    """Every secret deal (of ``variant``, or of every variant) with its finished attempts'
    cleared, in the order they finished."""
    variants = [variant] if variant is not None else store.secret_variants()
    deals = []
    for name in variants:
        for deal in store.secret_calendar(name).values():
            finished = sorted(store.finished_attempts(deal.deal), key=lambda f: f.attempt.finished or 0)
            cleared = tuple(f.attempt.cleared for f in finished)
            deals.append(DealAttempts(deal.date, deal.variant, deal.band, deal.best, deal.fair, deal.p_random, cleared))
    return deals
