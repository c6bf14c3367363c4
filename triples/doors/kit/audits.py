"""The audit of a deal's finished attempts, kept in the store: what ``triples audit`` prints and
the service's leaderboard of an ended day marks (both doors use this one loop). An attempt is
audited once (its moves never change once it is finished); ``audit_deal`` audits those the
store holds no audit of yet, or one of another method (``audit.METHOD``) than today's."""

from __future__ import annotations

from collections.abc import Callable

from triples.engines.audit import METHOD, DealRating, audit_line
from triples.model.deal import explicit_deck
from triples.model.variants import parse_variant
from triples.store import AuditRecord, SecretDeal, Store


def audit_deal(
    store: Store, deal: SecretDeal, audited: Callable[[int, int], None] | None = None
) -> dict[int, AuditRecord]:
    """Every finished attempt's audit at ``deal``, by attempt id: those kept, and the rest
    audited now, each kept as soon as it is found (an interrupted audit loses one attempt's
    work at most). ``audited(done, total)`` follows the attempts audited now."""
    variant = parse_variant(deal.spec)
    cards = explicit_deck(variant, list(deal.deck))
    rating = DealRating(deal.band, deal.p_random)
    audits = store.audits_of(deal.deal)
    waiting = [
        finished
        for finished in store.finished_attempts(deal.deal)
        if finished.attempt.id not in audits or audits[finished.attempt.id].version != METHOD
    ]
    for done, finished in enumerate(waiting, start=1):
        audit = audit_line(variant, cards, finished.moves, rating=rating)
        record = AuditRecord(
            finished.attempt.id, audit.moves, audit.sighted, audit.p, audit.verdict, audit.engine_match, METHOD
        )
        store.keep_audits([record])
        audits[record.attempt] = record
        if audited is not None:
            audited(done, len(waiting))
    return audits
