"""The interpreter: a table of handlers, one per operation, each validated by a pydantic model.

Handlers raise ``OperationError`` (or a domain error) inside; ``Session.apply`` turns every
failure into an ``"error: ..."`` string at the edge, so nothing ever escapes to the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, StrictStr, ValidationError

from triples import rules, strategy
from triples.cards import Card
from triples.config import DEFAULT_VARIANT, Variant, variant_named
from triples.deadline import TimeLimitExceeded
from triples.errors import TriplesError
from triples.shuffle import shuffled
from triples.strategy import DEFAULT_STRATEGY
from triples.table import Table

GameId = StrictStr | StrictInt
Output = Any  # a JSON value: the table, "ok", a dict or list of ints, or an error string


class OperationError(TriplesError):
    """A rejected operation: bad shape, unknown game, bad seed or deck."""


class Args(BaseModel):
    """The arguments after an operation's name and id, validated strictly, by position."""

    model_config = ConfigDict(strict=True, frozen=True, defer_build=True)  # built when first used: start-up

    id: GameId


class NewArgs(Args):
    seed_or_deck: StrictInt | list[Any]
    variant: StrictStr = DEFAULT_VARIANT


class PlayArgs(Args):
    positions: Any  # checked by the rules, whose messages are part of the contract


class AutoplayArgs(Args):
    strategy: StrictStr = DEFAULT_STRATEGY


Handler = Callable[["Session", Any], Output]


@dataclass(frozen=True)
class Operation:
    name: str
    args: type[BaseModel]  # Args, or a model of its own for an operation that takes no game id
    handler: Handler
    # Read off the model once: pydantic's class-level ``model_fields`` is slow to reach per call.
    fields: tuple[str, ...] = dataclass_field(init=False)
    required: int = dataclass_field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fields", tuple(self.args.model_fields))
        object.__setattr__(self, "required", sum(i.is_required() for i in self.args.model_fields.values()))

    @property
    def usage(self) -> str:
        parts = [f'"{self.name}"']
        for field, info in self.args.model_fields.items():
            parts.append(field if info.is_required() else f"{field}?")
        return "usage: [" + ", ".join(parts) + "]"

    def parse(self, raw: list[Any]) -> BaseModel:
        if not self.required <= len(raw) <= len(self.fields):
            raise OperationError(self.usage)
        try:
            return self.args.model_validate(dict(zip(self.fields, raw, strict=False)))
        except ValidationError:
            raise OperationError(self.usage) from None


OPERATIONS: dict[str, Operation] = {}


def operation(name: str, args: type[BaseModel] = Args) -> Callable[[Handler], Handler]:
    """Register a handler under an operation name, with the model its arguments must fit."""

    def register(handler: Handler) -> Handler:
        OPERATIONS[name] = Operation(name, args, handler)
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


def deal(variant: Variant, seed_or_deck: int | list[Any]) -> Table:
    """A new table from a seed or from an explicit deck (top card first)."""
    if isinstance(seed_or_deck, int):  # any integer: the generator keeps seed mod 2**32
        return Table(variant, shuffled(variant.cards, seed_or_deck))
    return Table(variant, explicit_deck(variant, seed_or_deck))


def explicit_deck(variant: Variant, items: list[Any]) -> list[Card]:
    """The cards of an explicit deck: card codes, or for a numeric variant plain values
    (docs/operations.md). An empty list counts as codes, so it keeps the code deck's "missing"
    error."""
    if variant.deck == "numeric" and not all(isinstance(item, str) for item in items):
        if not all(type(item) is int for item in items):  # bool is an int subclass, not a value
            raise OperationError(MIXED_DECK)
        return parse_values(variant, items)
    return parse_deck(variant, items)


def parse_deck(variant: Variant, codes: list[Any]) -> list[Card]:
    """The cards of an explicit deck, which must hold every card of the variant exactly once."""
    cards: list[Card] = []
    seen: set[Card] = set()
    for code in codes:
        if not isinstance(code, str):
            raise OperationError("deck must be a list of card codes")
        card = variant.card(code)
        if card is None:
            raise OperationError(f"unknown card '{code}' for variant '{variant.name}'")
        if card in seen:
            raise OperationError(f"card '{code}' appears twice in the deck")
        seen.add(card)
        cards.append(card)
    missing = [c.code for c in variant.cards if c not in seen]
    if missing:
        raise OperationError(f"deck is missing {len(missing)} card(s): {' '.join(missing[:5])}")
    return cards


MIXED_DECK = "deck must be a list of card codes, or of values for a numeric deck"


def parse_values(variant: Variant, values: list[int]) -> list[Card]:
    """A numeric deck given as plain values, top first: the n-th copy of a value gets that
    value's n-th card in factory order (suits S, H, D, C), so the first 5 is 5S, the second 5H.

    Checked in the documented order over the whole list: unknown values, then a value given
    too often, then missing values (listed ascending, the first five).
    """
    copies = variant.copies
    for v in values:
        if not 0 < v < len(copies) or not copies[v]:
            raise OperationError(f"unknown value {v} for variant '{variant.name}'")
    by_value = variant.cards_of_value
    used = [0] * len(copies)
    cards: list[Card] = []
    for v in values:
        if used[v] == copies[v]:
            raise OperationError(f"value {v} appears more than {copies[v]} times")
        cards.append(by_value[v][used[v]])
        used[v] += 1
    missing = [str(v) for v in range(1, len(copies)) for _ in range(copies[v] - used[v])]
    if missing:
        raise OperationError(f"deck is missing {len(missing)} card(s): {' '.join(missing[:5])}")
    return cards


def moves_json(moves: list[Any]) -> list[list[int]]:
    return [list(m) for m in moves]


@operation("new", NewArgs)
def op_new(session: Session, args: NewArgs) -> Output:
    table = deal(variant_named(args.variant), args.seed_or_deck)
    session.games[args.id] = table
    return table.codes()


@operation("play", PlayArgs)
def op_play(session: Session, args: PlayArgs) -> Output:
    table = session.table(args.id)
    table.push(rules.check_move(table, args.positions))
    return "ok"


@operation("table")
def op_table(session: Session, args: Args) -> Output:
    return session.table(args.id).codes()


@operation("status")
def op_status(session: Session, args: Args) -> Output:
    table = session.table(args.id)
    return {"cleared": table.cleared, "stock": table.stock_size, "over": not rules.has_legal_move(table)}


@operation("history")
def op_history(session: Session, args: Args) -> Output:
    return moves_json(session.table(args.id).history())


@operation("moves")
def op_moves(session: Session, args: Args) -> Output:
    return moves_json(rules.legal_moves(session.table(args.id)))


@operation("undo")
def op_undo(session: Session, args: Args) -> Output:
    try:
        session.table(args.id).pop()
    except IndexError:
        raise OperationError("nothing to undo") from None
    return "ok"


@operation("autoplay", AutoplayArgs)
def op_autoplay(session: Session, args: AutoplayArgs) -> Output:
    table = session.table(args.id)
    choose = strategy.strategy_named(args.strategy)
    moves = strategy.play_out(table, choose)
    return {"moves": moves_json(moves), "cleared": table.cleared}


@operation("best")
def op_best(session: Session, args: Args) -> Output:
    from triples import search

    return search.best_cleared(session.table(args.id))


@operation("solve")
def op_solve(session: Session, args: Args) -> Output:
    from triples import search

    best, line = search.solve(session.table(args.id))
    return {"best": best, "moves": moves_json(line)}


class BestrunArgs(BaseModel):
    """``["bestrun", config]``: no game id, the whole pyramid is in the config."""

    model_config = ConfigDict(strict=True, frozen=True, defer_build=True)  # built when first used: start-up

    config: StrictStr


@operation("bestrun", BestrunArgs)
def op_bestrun(session: Session, args: BestrunArgs) -> Output:
    from triples import pyramid

    return pyramid.best_run(args.config)


class QuartetsArgs(BaseModel):
    """``["quartets", actions]``: no game id, the watched game is the list of action lines."""

    model_config = ConfigDict(strict=True, frozen=True, defer_build=True)  # built when first used: start-up

    actions: list[StrictStr]


@operation("quartets", QuartetsArgs)
def op_quartets(session: Session, args: QuartetsArgs) -> Output:
    from triples import quartets

    return quartets.judge(args.actions).as_json()
