"""Was a game played blind? The audit of a game's moves against what the stock turned out to be.

A player who cannot see the stock chooses each move from what it sees: the table, and the
multiset of cards not yet seen. For such a player the stock is a uniformly random order of
that multiset, whatever it chose. The audit replays the game from its deal (moves undone never
count) and, at each **decision** (cards unseen, two value combinations or more), compares the
move played, ``c``, with the fair player's, ``f`` (``triples.engines.fair``: the best expected
cards cleared, ties to high cards first).

- A **deviation** is a decision where ``c`` is not ``f``: a move the fair player rates no
  higher (worse in expectation, or equal within its estimate).
- Its **margin** is what ``c`` clears beyond ``f`` on the actual stock, each followed by the
  best play for that stock (``search.FixedDeck``); 0 when not more. A deviation with a
  positive margin is **sighted**: it turned out right where the fair move did not.
- For a blind player the margin is a draw over orders of the unseen cards. The audit draws
  orders of its own (seeded by the position, never the fair player's), keeping only those that
  give every earlier sighted deviation the margin it had (what the game showed of the stock
  counts: two sightings of one lucky stock are one piece of luck). Each deviation's pool (its
  draws and the actual order) gives the **surprise** of a margin, ``-ln`` of the share of the
  pool with a margin at least as large (0 for no positive margin): the game's own, and the
  luck a blind player could have had there (``triples.engines.luck``).
- ``p`` is the probability that a blind player is at least this lucky over the game's
  deviations (``luck.blind_chance``). It is 1 (no sign of sight) unless the game kept the
  deal's best within reach to its end and the deal is **judged** (``DealRating.judged``): of
  the hard band, where neither the ``high`` rule nor the fair player reaches the best, and
  reached by a uniformly random player less often than the variant's ``random_reaches``. The
  game is ``suspect`` when ``p`` is below its variant's ``threshold``.

Games with no sighted deviation, or that lost cards, draw no orders: only the fair player's
choices and one search per deviation on the actual stock; one that kept the best with a sighted
deviation also costs the deal's rating, unless the caller has it.

``engine_match`` is the share, among the decisions where the combinations differ in
expectation, of those where the player chose the fair player's move.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from triples.engines import difficulty, fair, search
from triples.engines.luck import Luck, blind_chance, luck_of
from triples.model import rules
from triples.model.derived import Combo
from triples.model.table import Move, Table
from triples.model.variant import Variant
from triples.model.variants import VARIANTS

Verdict = Literal["blind", "suspect"]

# The audit's method: changed whenever a game's p or verdict could change, so that an audit
# kept in a store under another method is worked out again (``doors.kit.audits``).
METHOD = "3"
# A game whose ``p`` is below its variant's threshold is ``suspect``, on a deal where a random
# player reaches the best less often than ``RANDOM_REACHES``. Each pair is one that
# ``benchmarks/audit.py`` showed keeping every blind population at or under 1% of its games,
# with the best lines caught in over half, on seeds 1-1000, 100001-101000 and 200001-201000
# (classic, sum15), 300001-301000 (sum15) and 1-1000, 100001-101000 (quads); it was measured
# again on seeds 400001-401000 (docs/audit.md). Rule sets of one's own get the defaults.
THRESHOLDS: dict[str, float] = {"classic": 0.2, "sum15": 0.1, "quads": 0.25}
RANDOM_REACHES: dict[str, float] = {"classic": 0.5, "sum15": 0.5, "quads": 0.25}
SUSPECT_BELOW = 0.01
RANDOM_REACHES_BELOW = 0.5
# Orders are drawn until p is below the threshold over this, or surely not below the threshold
# times this, or the pools are full. Stopping as soon as a first rough p fell below the threshold
# would call suspect games whose p, drawn further, is above it.
CLEARLY = 1.5
# Orders kept for every deviation at first; while the verdict could still change, the count is
# doubled, up to ``SIGHTED_ORDERS`` for a sighted deviation and ``OTHER_ORDERS`` for another
# (whose pool only says how lucky a blind player could have been there: a rougher one serves).
ORDERS = 50
SIGHTED_ORDERS = 800
OTHER_ORDERS = 200
# Orders drawn for a sighted deviation held to earlier ones, at most, per order of the first round.
DRAWS_PER_KEPT = 4
# Mixed into the position's seed so that the audit's orders are never the fair player's own.
ORDERS_SALT = 0xA0D17


def threshold(variant: Variant) -> float:
    """The ``p`` below which a game of ``variant`` is suspect: a registered variant's own."""
    return THRESHOLDS.get(variant.name, SUSPECT_BELOW) if _registered(variant) else SUSPECT_BELOW


def random_reaches(variant: Variant) -> float:
    """A deal of ``variant`` is judged only where a random player reaches the best less often
    than this: a registered variant's own."""
    return RANDOM_REACHES.get(variant.name, RANDOM_REACHES_BELOW) if _registered(variant) else RANDOM_REACHES_BELOW


def _registered(variant: Variant) -> bool:
    return VARIANTS.get(variant.name) == variant


@dataclass(frozen=True)
class DealRating:
    """What the audit reads of the deal's rating: its band, and the chance that a uniformly
    random player reaches the best (None when too many states to work it out)."""

    band: str  # easy, medium or hard
    p_random: float | None

    def judged(self, variant: Variant) -> bool:
        """Whether reaching the best on this deal can be a sign of sight: the hard band, and a
        random player reaching the best less often than the variant allows (or unknown)."""
        return self.band == "hard" and (self.p_random is None or self.p_random < random_reaches(variant))

    @staticmethod
    def of(table: Table) -> DealRating:
        """The rating of the deal on ``table`` from its start (the table is only read)."""
        rated = difficulty.assess(Table(table.variant, table.deck))
        return DealRating(rated.band, rated.p_random)


class BadLine(ValueError):
    """A recorded move the rules refuse at its turn: the record is not a game of this deal."""


@dataclass(frozen=True)
class Decision:
    """One position where the player had a choice: cards unseen, two combinations or more."""

    turn: int  # the move's index in the game, from 0
    played: Combo  # the values of the move played
    fair: Combo  # the fair player's choice
    differ: bool  # whether the combinations differ in expectation (the fair player's estimate)
    margin: int = 0  # cards the move played cleared beyond the fair one on the actual stock
    surprise: float = 0.0  # drawn sighted deviations: -ln of the share of its pool this lucky
    luck: Luck = ()  # drawn deviations: the pool's surprises and their shares
    orders: int = 0  # orders kept for it

    @property
    def matched(self) -> bool:
        return self.played == self.fair

    @property
    def sighted(self) -> bool:
        return self.margin > 0


@dataclass(frozen=True)
class Audit:
    """A game's audit: ``as_json`` is what ``["audit", id]`` answers, ``row`` a line of a day's
    audit of finished attempts."""

    moves: int
    cleared: int
    decisions: tuple[Decision, ...]
    kept_best: bool  # the game kept the deal's best within reach to its end
    rating: DealRating | None  # the deal's rating, when given or needed
    p: float
    threshold: float  # suspect below this

    @property
    def sighted(self) -> int:
        return sum(d.sighted for d in self.decisions)

    @property
    def verdict(self) -> Verdict:
        return "suspect" if self.p < self.threshold else "blind"

    @property
    def engine_match(self) -> float | None:
        """The share of the decisions that differ in expectation where the fair player's move
        was played; None when there was none."""
        counted = [d for d in self.decisions if d.differ]
        if not counted:
            return None
        return sum(d.matched for d in counted) / len(counted)

    def as_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "sighted": self.sighted,
            "p": self.p,
            "verdict": self.verdict,
            "engine_match": self.engine_match,
        }

    def row(self, name: str) -> dict[str, Any]:
        """The attempt's row in a day's audit: the player's name, the cards cleared, then ``as_json``."""
        return {"name": name, "cleared": self.cleared, **self.as_json()}


@dataclass(frozen=True)
class Seen:
    """A deviation's position, kept for drawing: the table and where the stock began."""

    values: tuple[int, ...]
    counts: tuple[int, ...]
    unseen: tuple[int, ...]
    cleared: int
    next_card: int


def audit_line(
    variant: Variant,
    deck: Sequence[Any],
    moves: Iterable[Sequence[int]],
    precise: tuple[float, float] | None = None,
    rating: DealRating | None = None,
) -> Audit:
    """The audit of ``moves`` (slot lists, in order) played from the deal ``deck`` (the
    variant's cards, top first). A move the rules refuse raises ``BadLine``. ``p`` is drawn
    precisely enough to tell on which side of the variant's threshold it falls (``CLEARLY``), or
    with ``precise`` (low, high), on which side of every threshold between the two.
    ``rating`` is the deal's, when the caller has it (a published deal's is in the store); else
    it is worked out when it is needed."""
    table = Table(variant, deck)
    best = search.best_cleared(table)
    decisions: list[Decision] = []
    seen: dict[int, Seen] = {}
    count = 0
    for turn, slots in enumerate(moves):
        try:
            move = rules.check_move(table, list(slots))
        except rules.IllegalMove as exc:
            raise BadLine(f"move {turn + 1} ({list(slots)}): {exc}") from None
        decision = judge(table, move, turn)
        if decision is not None:
            decisions.append(decision)
            if not decision.matched:
                counts, unseen = fair.seen_counts(table)
                seen[turn] = Seen(tuple(table.values), tuple(counts), tuple(unseen), table.cleared, table.next_card)
        table.push(move)
        count += 1
    kept_best = search.best_cleared(table) == best
    below = threshold(variant)
    p = 1.0
    if kept_best and any(d.sighted for d in decisions):
        if rating is None:
            rating = DealRating.of(table)
        if rating.judged(variant):
            within = precise or (below / CLEARLY, below * CLEARLY)
            decisions, p = drawn(variant, table.deck_values, decisions, seen, within)
    return Audit(
        moves=count,
        cleared=table.cleared,
        decisions=tuple(decisions),
        kept_best=kept_best,
        rating=rating,
        p=p,
        threshold=below,
    )


def audit_table(table: Table, precise: tuple[float, float] | None = None) -> Audit:
    """The audit of the game on ``table`` as played from its deal: its history, which holds no
    undone move. The table is only read."""
    return audit_line(table.variant, table.deck, table.history(), precise)


def judge(table: Table, move: Move, turn: int) -> Decision | None:
    """The decision at the table's position, where ``move`` was played, with the margin of a
    deviation on the actual stock; None when there was no choice (nothing unseen, or one
    combination), or the fair move was played where every combination is worth the same."""
    variant = table.variant
    if variant.per_move == 2:  # a card pairs with one value only: every choice is worth the same
        return None
    counts, unseen = fair.seen_counts(table)
    if not sum(unseen):
        return None
    candidates = fair.playable(variant, counts)
    if len(candidates) < 2:
        return None
    played = tuple(sorted(table.values[p] for p in move))
    choice = fair.choose(table)
    assert choice.combo is not None
    differ = fair.differ(table, counts, unseen, candidates, choice)
    if played == choice.combo:
        return Decision(turn, played, choice.combo, differ) if differ else None
    margin = advantage(variant, table.values, played, choice.combo, table.deck_values[table.next_card :])
    return Decision(turn, played, choice.combo, differ, margin)


def advantage(variant: Variant, values: Sequence[int], played: Combo, fair_combo: Combo, order: Sequence[int]) -> int:
    """What ``played`` clears beyond ``fair_combo`` from the table ``values`` with the stock
    ``order`` (top first), each followed by that stock's best play; 0 when not more. The
    played move is searched only when its bound leaves it room to win."""
    k = variant.per_move
    deck = search.FixedDeck(variant, order)
    refill = list(order[:k])
    on_table = [v for v in values if v]

    def after(combo: Combo) -> list[int]:
        left = list(on_table)
        for v in combo:
            left.remove(v)
        return [*left, *refill]

    fair_gain = deck.best_gain(after(fair_combo), len(refill))
    if deck.upper_bound(after(played), len(refill)) <= fair_gain:
        return 0
    return max(0, deck.best_gain(after(played), len(refill)) - fair_gain)


def orders_of(variant: Variant, seen: Seen) -> Iterator[list[int]]:
    """Random orders of the cards unseen at a position, endless, from the position's own generator."""
    rng = random.Random(fair.position_seed(variant, seen.counts, seen.unseen, seen.cleared) ^ ORDERS_SALT)
    pool = [v for v in range(1, len(seen.unseen)) for _ in range(seen.unseen[v])]
    while True:
        order = list(pool)
        rng.shuffle(order)
        yield order


class Draws:
    """One deviation's orders drawn so far: their margins, and how many were drawn in all."""

    def __init__(self, variant: Variant, decision: Decision, here: Seen, conditions: list[Condition]) -> None:
        self.variant, self.decision, self.here, self.conditions = variant, decision, here, conditions
        self.orders = orders_of(variant, here)
        self.margins: list[int] = []
        self.tried = 0
        self.limit = SIGHTED_ORDERS if decision.sighted else OTHER_ORDERS

    def more(self, kept: int) -> None:
        """Draw until ``kept`` orders are kept (at most the limit), or too many were drawn."""
        d, variant = self.decision, self.variant
        kept = min(kept, self.limit)
        while len(self.margins) < kept and self.tried < self.most_tried:
            order = next(self.orders)
            self.tried += 1
            if all(
                advantage(variant, s.values, e.played, e.fair, [*between, *order]) == e.margin
                for s, e, between in self.conditions
            ):
                self.margins.append(advantage(variant, self.here.values, d.played, d.fair, order))

    @property
    def most_tried(self) -> int:
        """Orders drawn at most: every one is kept without conditions; with them, a few times
        the first round's (an order that must agree with earlier deviations costs their
        searches too, and when few agree the pool tells little however long one draws)."""
        return self.limit if not self.conditions else DRAWS_PER_KEPT * ORDERS

    @property
    def done(self) -> bool:
        return len(self.margins) >= self.limit or self.tried >= self.most_tried

    def settled(self, sure: bool) -> Decision:
        """The decision with its pool's luck and its surprise: never optimistic when ``sure``
        (the actual order joins the pool), else as low as they may turn out (a sighted
        deviation's surprise from the draws alone, another's luck without the actual order:
        only to tell whether drawing on can still change the verdict)."""
        d, margins = self.decision, self.margins
        luck, surprise = luck_of([*margins, d.margin] if sure or d.sighted else margins, d.margin)
        if d.sighted and not sure:
            # No draw as lucky yet: the tail may be as small as any.
            reached = sum(m >= d.margin for m in margins)
            surprise = -math.log(reached / len(margins)) if reached else math.inf
        return replace(d, surprise=abs(surprise), luck=luck, orders=len(margins))  # -ln 1 is -0.0


# An earlier sighted deviation an order must agree with: its position, itself, and the stock
# dealt between it and the later deviation.
Condition = tuple[Seen, Decision, Sequence[int]]


def drawn(
    variant: Variant, deck: Sequence[int], decisions: list[Decision], seen: dict[int, Seen], within: tuple[float, float]
) -> tuple[list[Decision], float]:
    """The decisions with each deviation's chances drawn, and ``p``. Each deviation draws orders
    of the cards it had not seen, kept when they give every earlier sighted deviation the margin
    it had (the stock between the two positions being the one dealt). ``ORDERS`` each at first,
    then twice as many while ``p`` could still fall within ``within`` (low, high): until it is
    surely below ``low`` or may be no lower than ``high``."""
    low, high = within
    draws: list[Draws] = []
    for d in decisions:
        if d.matched:
            continue
        here = seen[d.turn]
        # Only a sighted deviation is held to the earlier ones: the same lucky stock seen twice
        # is one piece of luck. Any other deviation's chance stands on the position alone.
        conditions = [
            (seen[e.turn], e, deck[seen[e.turn].next_card : here.next_card])
            for e in (x.decision for x in draws)
            if e.sighted and d.sighted
        ]
        draws.append(Draws(variant, d, here, conditions))
    kept = ORDERS
    while True:
        for draw in draws:
            draw.more(kept)
        p = chance_of([draw.settled(True) for draw in draws])
        if p < low or all(draw.done for draw in draws) or chance_of([draw.settled(False) for draw in draws]) >= high:
            break
        kept *= 2
    final = {draw.decision.turn: draw.settled(True) for draw in draws}
    return [final.get(d.turn, d) for d in decisions], p


def chance_of(deviations: Sequence[Decision]) -> float:
    """``luck.blind_chance`` of the deviations' pools and the game's total surprise."""
    return blind_chance([d.luck for d in deviations], sum(d.surprise for d in deviations))
