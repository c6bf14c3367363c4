"""The interpreter: a table of handlers, one per operation, each with a strict model of its arguments.

Handlers raise ``OperationError`` (or a domain error) inside; ``Session.apply`` turns every
failure into an ``"error: ..."`` string at the edge, so nothing ever escapes to the caller.
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass
from typing import Any, ClassVar

from triples.engines import DEFAULT_STRATEGY
from triples.interpreter.operations import OPERATIONS, Args, OperationError, Output, as_lists, operation, writable
from triples.model import rules
from triples.model.deal import MIXED_DECK, deal
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import DEFAULT_VARIANT, VARIANTS, parse_variant
from triples.support.deadline import TimeLimitExceeded
from triples.support.errors import TriplesError

# Start-up: what only some operations need (the strategies, the search, rule sets of one's own)
# is imported by their handlers, so a batch of ``new`` and ``moves`` loads none of it.

__all__ = ["MIXED_DECK", "NOT_QUICK", "OPERATIONS", "Session", "deal", "operation"]


@dataclass(frozen=True)
class NewArgs(Args):
    seed_or_deck: int | list[Any]
    variant: str | dict[str, Any] = DEFAULT_VARIANT  # a name, or an object of rules (triples.model.variants)


@dataclass(frozen=True)
class PlayArgs(Args):
    positions: Any  # checked by the rules, whose messages are part of the contract


@dataclass(frozen=True)
class AutoplayArgs(Args):
    strategy: str = DEFAULT_STRATEGY


class NotQuick:
    """What ``Session.quickly`` gives for an operation that is not surely quick."""

    def __repr__(self) -> str:
        return "NOT_QUICK"


NOT_QUICK = NotQuick()


class Session:
    """Games by id. One session lives for one run() call or one command-line stream."""

    def __init__(self) -> None:
        self.games: dict[str | int, Table] = {}

    def apply(self, raw: object) -> Output:
        """One operation's output; every failure comes back as an ``error: `` string."""
        return self.answer(raw, only_quick=False)

    def quickly(self, raw: object) -> Output:
        """``apply``'s output when the operation is surely quick here and now, judged from its
        name, its arguments and the game's rules and position (``Operation.surely_quick``);
        else ``NOT_QUICK``, and nothing has changed. A server answers the quick ones on its
        event loop and hands the rest to a worker."""
        return self.answer(raw, only_quick=True)

    def answer(self, raw: object, *, only_quick: bool) -> Output:
        try:
            if type(raw) is not list:
                raw = as_lists(raw, 1)  # an operation written as a tuple, from Python
            if not isinstance(raw, list) or not raw or not isinstance(raw[0], str):
                return "error: malformed operation"
            op = OPERATIONS.get(raw[0])
            if op is None:
                return writable(f"error: unknown operation '{raw[0]}'")
            args = op.parse(raw[1:])
            if only_quick and not op.surely_quick(self, args):
                return NOT_QUICK
            return op.handler(self, args)
        except TriplesError as exc:
            return writable(f"error: {exc}")
        except TimeLimitExceeded:  # no answer: the caller who set the limit stops the run
            raise
        except Exception as exc:  # a defect: still an answer, never a crash of the caller
            log_defect(raw)
            return f"error: internal error ({type(exc).__name__})"

    def table(self, game_id: str | int) -> Table:
        try:
            return self.games[game_id]
        except KeyError:
            raise OperationError("unknown game") from None


def log_defect(raw: object) -> None:
    """Log the exception being handled, with its traceback, on the ``triples.interpreter``
    logger: the caller gets one line, whoever runs the process sees what went wrong. Logging is
    loaded only here, on a defect."""
    import logging

    name = raw[0] if isinstance(raw, list) and raw and isinstance(raw[0], str) else None
    logging.getLogger("triples.interpreter").exception("internal error in operation %r", name)


# A deck of more items than this is no deck (the largest has 200 cards), but is read to its end
# for its error: not on a server's event loop.
QUICK_DECK_ITEMS = 1_000


def moves_json(moves: list[Any]) -> list[list[int]]:
    return [list(m) for m in moves]


def new_is_quick(session: Session, args: NewArgs) -> bool:
    return isinstance(args.seed_or_deck, int) or len(args.seed_or_deck) <= QUICK_DECK_ITEMS


def moves_are_quick(session: Session, args: Args) -> bool:
    return rules.listing_is_quick(session.table(args.id))


def status_is_quick(session: Session, args: Args) -> bool:
    return rules.status_is_quick(session.table(args.id))


@operation("new", NewArgs, cost=new_is_quick)
def op_new(session: Session, args: NewArgs) -> Output:
    variant = parse_variant(args.variant)
    table = deal(variant, args.seed_or_deck)
    session.games[args.id] = table
    return table.codes()


@operation("play", PlayArgs, cost="cheap")
def op_play(session: Session, args: PlayArgs) -> Output:
    table = session.table(args.id)
    table.push(rules.check_move(table, args.positions))
    return "ok"


@operation("table", cost="cheap")
def op_table(session: Session, args: Args) -> Output:
    return session.table(args.id).codes()


@operation("status", cost=status_is_quick)
def op_status(session: Session, args: Args) -> Output:
    table = session.table(args.id)
    return {"cleared": table.cleared, "stock": table.stock_size, "over": not rules.has_legal_move(table)}


@operation("history", cost="cheap")
def op_history(session: Session, args: Args) -> Output:
    return moves_json(session.table(args.id).history())


@operation("moves", cost=moves_are_quick)
def op_moves(session: Session, args: Args) -> Output:
    """Every legal move; a table with more than ``rules.MAX_MOVES`` is refused with their
    number, counted before any move is built."""
    return rules.legal_move_lists(session.table(args.id), limit=rules.MAX_MOVES)


@operation("undo", cost="cheap")
def op_undo(session: Session, args: Args) -> Output:
    try:
        session.table(args.id).pop()
    except IndexError:
        raise OperationError("nothing to undo") from None
    return "ok"


@operation("forget", cost="cheap")
def op_forget(session: Session, args: Args) -> Output:
    """End a game: its id is free and its memory let go. A session keeps every game it dealt
    until then, so a long stream that deals new ids forgets the ones it is done with."""
    session.table(args.id)
    del session.games[args.id]
    return "ok"


@operation("autoplay", AutoplayArgs, cost="search")
def op_autoplay(session: Session, args: AutoplayArgs) -> Output:
    from triples.engines import strategies

    table = session.table(args.id)
    choose = strategies.strategy_named(args.strategy)
    moves = strategies.play_out(table, choose)
    return {"moves": moves_json(moves), "cleared": table.cleared}


@operation("best", cost="search")
def op_best(session: Session, args: Args) -> Output:
    from triples.engines import search

    return search.best_cleared(session.table(args.id))


@operation("solve", cost="search")
def op_solve(session: Session, args: Args) -> Output:
    from triples.engines import search

    best, line = search.solve(session.table(args.id))
    return {"best": best, "moves": moves_json(line)}


@dataclass(frozen=True)
class BestrunArgs:
    """``["bestrun", config]``: no game id, the whole pyramid is in the config."""

    __pydantic_config__: ClassVar[dict[str, Any]] = Args.__pydantic_config__

    config: str


@operation("bestrun", BestrunArgs, cost="search")
def op_bestrun(session: Session, args: BestrunArgs) -> Output:
    from triples.games import uniscraper

    return uniscraper.best_run(args.config)


@dataclass(frozen=True)
class QuartetsArgs:
    """``["quartets", actions]``: no game id, the watched game is the list of action lines."""

    __pydantic_config__: ClassVar[dict[str, Any]] = Args.__pydantic_config__

    actions: list[str]


@operation("quartets", QuartetsArgs, cost="search")
def op_quartets(session: Session, args: QuartetsArgs) -> Output:
    from triples.games import quartets

    return quartets.judge(args.actions).as_json()


@operation("fair_move", cost="search")
def op_fair_move(session: Session, args: Args) -> Output:
    """The move the fair player (who never sees the stock) makes from here; ``[]`` when none."""
    from triples.engines import fair

    move = fair.fair(session.table(args.id))
    return [] if move is None else list(move)


@operation("explain", cost="search")
def op_explain(session: Session, args: Args) -> Output:
    """Why is this deal hard? The game's moves from its deal, then the fair player's to the end:
    ``{"best", "cleared", "lost", "moves"}``, ``moves`` listing those that lost cards (the best
    fell) or where the fair player expected less than the best (triples.engines.explain)."""
    from triples.engines import explain

    return explain.explain(session.table(args.id)).as_json()


@operation("rating", cost="search")
def op_rating(session: Session, args: Args) -> Output:
    """How hard the game's deal is, judged from the deal itself whatever has been played since:
    ``best``, what ``high`` and ``fair`` clear, random play's chance of ``best`` (``None`` when
    the whole deck is dealt at once, where random play has astronomically many lines), band."""
    from triples.engines import difficulty, search, strategies

    played = session.table(args.id)
    deal_table = Table(played.variant, played.deck)
    best = search.best_cleared(deal_table)
    high = difficulty.played_out(deal_table, strategies.strategy_named("high"))
    fair = difficulty.played_out(deal_table, strategies.strategy_named("fair"))
    p_random: float | None = None
    if played.variant.slots < played.variant.deck_size:
        with suppress(difficulty.TooManyStates):  # past the state limit the chance stays unknown
            p_random = difficulty.p_random(deal_table, best)
    band = difficulty.band(high=high, fair=fair, best=best)
    return {"band": band, "p_random": p_random, "best": best, "high": high, "fair": fair}


@operation("audit", cost="search")
def op_audit(session: Session, args: Args) -> Output:
    """Was the game played by someone who could not see the stock? Its moves as played from the
    deal (an undone move is no longer in the history): ``moves``, ``sighted``, ``p``,
    ``verdict`` and ``engine_match`` (``triples.engines.audit``)."""
    from triples.engines import audit

    return audit.audit_table(session.table(args.id)).as_json()


@dataclass(frozen=True)
class NoArgs:
    """An operation with no arguments at all."""

    __pydantic_config__: ClassVar[dict[str, Any]] = Args.__pydantic_config__


@operation("variants", NoArgs, cost="cheap")
def op_variants(session: Session, args: NoArgs) -> Output:
    """Every registered variant's rules, in registration order: what a client (the explorer)
    needs to offer them without a copy of the registry."""
    return [variant_rules(variant) for variant in VARIANTS.values()]


def variant_rules(variant: Variant) -> dict[str, Any]:
    """A variant's rules as JSON: ``court`` for a standard deck, ``top_rank`` for a numeric one."""
    described: dict[str, Any] = {
        "name": variant.name,
        "slots": variant.slots,
        "per_move": variant.per_move,
        "target": variant.target,
        "deck": variant.deck,
    }
    if variant.court is not None:
        described["court"] = list(variant.court)
    else:
        described["top_rank"] = variant.top_rank
    described["suits"] = variant.suits
    return described


# Every operation is registered above: from here on what a name means is fixed.
OPERATIONS.seal()
