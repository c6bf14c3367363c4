"""The interpreter: a table of handlers, one per operation, each with a strict model of its arguments.

Handlers raise ``OperationError`` (or a domain error) inside; ``Session.apply`` turns every
failure into an ``"error: ..."`` string at the edge, so nothing ever escapes to the caller.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import Any, ClassVar, Literal

from triples import rules
from triples.config import DEFAULT_STRATEGY, DEFAULT_VARIANT, VARIANTS, Variant
from triples.deadline import TimeLimitExceeded
from triples.deal import MIXED_DECK, deal
from triples.errors import TriplesError
from triples.table import Table

# Start-up: what only some operations need (the strategies, the search, rule sets of one's own)
# is imported by their handlers, so a batch of ``new`` and ``moves`` loads none of it.

__all__ = ["MIXED_DECK", "OPERATIONS", "Session", "deal", "operation"]

Output = Any  # a JSON value: the table, "ok", a dict or list of ints, or an error string


class OperationError(TriplesError):
    """A rejected operation: bad shape, unknown game, bad seed or deck."""


@dataclass(frozen=True)
class Args:
    """The arguments after an operation's name and id, by position, checked strictly: the types
    exactly as written (``str | int`` takes neither ``True`` nor ``1.0`` nor ``"1"``)."""

    # What pydantic reads when it checks an instance (``Operation.parse``): strict types, and
    # every field checked again although the instance already exists.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"strict": True, "revalidate_instances": "always"}

    id: str | int  # the game's id


@dataclass(frozen=True)
class NewArgs(Args):
    seed_or_deck: int | list[Any]
    variant: str | dict[str, Any] = DEFAULT_VARIANT  # a name, or an object of rules (triples.variants)


@dataclass(frozen=True)
class PlayArgs(Args):
    positions: Any  # checked by the rules, whose messages are part of the contract


@dataclass(frozen=True)
class AutoplayArgs(Args):
    strategy: str = DEFAULT_STRATEGY


Handler = Callable[["Session", Any], Output]


# What an operation may cost, declared when it is registered: "cheap" ones answer in
# microseconds to milliseconds whatever their arguments, so a server may run them on its event
# loop; "search" ones can run long (a search, a judge of a long game) and belong on a worker.
Cost = Literal["cheap", "search"]


@dataclass(frozen=True)
class Operation:
    name: str
    args: type[Any]  # a frozen dataclass of the arguments: Args, or one of its own
    handler: Handler
    cost: Cost  # no default, as in ``operation``
    fields: tuple[str, ...] = dataclass_field(init=False)
    required: int = dataclass_field(init=False)
    # One test per field that accepts only values of exactly the field's type: enough for
    # nearly every operation, without pydantic (whose import would triple the command line's
    # start-up). A value it does not accept goes to pydantic, which decides.
    quick: tuple[Callable[[object], bool], ...] = dataclass_field(init=False)

    def __post_init__(self) -> None:
        fields = dataclasses.fields(self.args)
        hints = typing.get_type_hints(self.args)
        object.__setattr__(self, "fields", tuple(field.name for field in fields))
        object.__setattr__(self, "required", sum(is_required(field) for field in fields))
        object.__setattr__(self, "quick", tuple(exact_test(hints[field.name]) for field in fields))

    @property
    def cheap(self) -> bool:
        """Whether the operation was declared cheap: safe to run on a server's event loop."""
        return self.cost == "cheap"

    @property
    def usage(self) -> str:
        parts = [f'"{self.name}"']
        for field in dataclasses.fields(self.args):
            parts.append(field.name if is_required(field) else f"{field.name}?")
        return "usage: [" + ", ".join(parts) + "]"

    def parse(self, raw: list[Any]) -> Any:
        if not self.required <= len(raw) <= len(self.fields):
            raise OperationError(self.usage)
        if all(test(value) for test, value in zip(self.quick, raw, strict=False)):
            return self.args(*raw)
        from pydantic import ValidationError

        try:
            return self.validator.validate_python(self.args(*raw))
        except ValidationError:
            raise OperationError(self.usage) from None

    @cached_property
    def validator(self) -> Any:
        """The arguments' strict pydantic model, built when first asked for: by a value the quick
        tests do not take."""
        from pydantic import TypeAdapter

        return TypeAdapter(self.args)


def is_required(field: dataclasses.Field[Any]) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def exact_test(annotation: object) -> Callable[[object], bool]:
    """A test that a value is of exactly the ``annotation``'s type (never a subclass, so never a
    ``bool`` for an ``int``); one that takes nothing for a type it does not know."""
    if annotation is Any:
        return lambda value: True
    if annotation in (str, int):
        return lambda value: type(value) is annotation
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin in (types.UnionType, typing.Union):
        tests = [exact_test(argument) for argument in arguments]
        return lambda value: any(test(value) for test in tests)
    if origin is list and arguments in ((Any,), (str,)):
        item = exact_test(arguments[0])
        return lambda value: type(value) is list and all(item(entry) for entry in value)
    if origin is dict and arguments == (str, Any):
        return lambda value: type(value) is dict and all(type(key) is str for key in value)
    return lambda value: False


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, args: type[Any] = Args, *, cost: Cost) -> Callable[[Handler], Handler]:
    """Register a handler under an operation name, with the model its arguments must fit and
    what it may cost (see ``Cost``). The cost has no default: an operation nobody judged must
    not land on a server's event loop by accident."""

    def register(handler: Handler) -> Handler:
        OPERATIONS[name] = Operation(name, args, handler, cost)
        return handler

    return register


class Session:
    """Games by id. One session lives for one run() call or one command-line stream."""

    def __init__(self) -> None:
        self.games: dict[str | int, Table] = {}

    def apply(self, raw: object) -> Output:
        """One operation's output; every failure comes back as an ``error: `` string."""
        try:
            if not isinstance(raw, list) or not raw or not isinstance(raw[0], str):
                return "error: malformed operation"
            op = OPERATIONS.get(raw[0])
            if op is None:
                return writable(f"error: unknown operation '{raw[0]}'")
            return op.handler(self, op.parse(raw[1:]))
        except TriplesError as exc:
            return writable(f"error: {exc}")
        except TimeLimitExceeded:  # no answer: the caller who set the limit stops the run
            raise
        except Exception as exc:  # a defect: still an answer, never a crash of the caller
            return f"error: internal error ({type(exc).__name__})"

    def table(self, game_id: str | int) -> Table:
        try:
            return self.games[game_id]
        except KeyError:
            raise OperationError("unknown game") from None


def writable(message: str) -> str:
    """``message`` with any lone surrogate (from a name the caller sent, e.g. ``"\\ud800"`` via
    Python's json) written as its escape, so that every output can be encoded as JSON."""
    try:
        message.encode()
    except UnicodeEncodeError:
        return message.encode(errors="backslashreplace").decode()
    return message


def moves_json(moves: list[Any]) -> list[list[int]]:
    return [list(m) for m in moves]


@operation("new", NewArgs, cost="cheap")
def op_new(session: Session, args: NewArgs) -> Output:
    variant = VARIANTS.get(args.variant) if isinstance(args.variant, str) else None
    if variant is None:  # a rule set of one's own, or a name that is not registered
        from triples.variants import variant_from

        variant = variant_from(args.variant)
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


@operation("status", cost="cheap")
def op_status(session: Session, args: Args) -> Output:
    table = session.table(args.id)
    return {"cleared": table.cleared, "stock": table.stock_size, "over": not rules.has_legal_move(table)}


@operation("history", cost="cheap")
def op_history(session: Session, args: Args) -> Output:
    return moves_json(session.table(args.id).history())


@operation("moves", cost="cheap")
def op_moves(session: Session, args: Args) -> Output:
    return moves_json(rules.legal_moves(session.table(args.id)))


@operation("undo", cost="cheap")
def op_undo(session: Session, args: Args) -> Output:
    try:
        session.table(args.id).pop()
    except IndexError:
        raise OperationError("nothing to undo") from None
    return "ok"


@operation("autoplay", AutoplayArgs, cost="search")
def op_autoplay(session: Session, args: AutoplayArgs) -> Output:
    from triples import strategy

    table = session.table(args.id)
    choose = strategy.strategy_named(args.strategy)
    moves = strategy.play_out(table, choose)
    return {"moves": moves_json(moves), "cleared": table.cleared}


@operation("best", cost="search")
def op_best(session: Session, args: Args) -> Output:
    from triples import search

    return search.best_cleared(session.table(args.id))


@operation("solve", cost="search")
def op_solve(session: Session, args: Args) -> Output:
    from triples import search

    best, line = search.solve(session.table(args.id))
    return {"best": best, "moves": moves_json(line)}


@dataclass(frozen=True)
class BestrunArgs:
    """``["bestrun", config]``: no game id, the whole pyramid is in the config."""

    __pydantic_config__: ClassVar[dict[str, Any]] = Args.__pydantic_config__

    config: str


@operation("bestrun", BestrunArgs, cost="search")
def op_bestrun(session: Session, args: BestrunArgs) -> Output:
    from triples import pyramid

    return pyramid.best_run(args.config)


@dataclass(frozen=True)
class QuartetsArgs:
    """``["quartets", actions]``: no game id, the watched game is the list of action lines."""

    __pydantic_config__: ClassVar[dict[str, Any]] = Args.__pydantic_config__

    actions: list[str]


@operation("quartets", QuartetsArgs, cost="search")
def op_quartets(session: Session, args: QuartetsArgs) -> Output:
    from triples import quartets

    return quartets.judge(args.actions).as_json()


@operation("fair_move", cost="search")
def op_fair_move(session: Session, args: Args) -> Output:
    """The move the fair player (who never sees the stock) makes from here; ``[]`` when none."""
    from triples import fair

    move = fair.fair(session.table(args.id))
    return [] if move is None else list(move)


@operation("rating", cost="search")
def op_rating(session: Session, args: Args) -> Output:
    """How hard the game's deal is, judged from the deal itself whatever has been played since:
    ``best``, what ``high`` and ``fair`` clear, random play's chance of ``best`` (``None`` when
    the whole deck is dealt at once, where random play has astronomically many lines), band."""
    from triples import difficulty, search, strategy

    played = session.table(args.id)
    deal_table = Table(played.variant, played.deck)
    best = search.best_cleared(deal_table)
    high = difficulty.played_out(deal_table, strategy.strategy_named("high"))
    fair = difficulty.played_out(deal_table, strategy.strategy_named("fair"))
    p_random: float | None = None
    if played.variant.slots < played.variant.deck_size:
        with suppress(difficulty.TooManyStates):  # past the state limit the chance stays unknown
            p_random = difficulty.p_random(deal_table, best)
    band = difficulty.band(high=high, fair=fair, best=best)
    return {"band": band, "p_random": p_random, "best": best, "high": high, "fair": fair}


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
