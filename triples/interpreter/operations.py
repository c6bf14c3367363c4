"""The operations' registry: each operation's name, the strict model of its arguments, its
handler and what it may cost, and the one error an operation is refused with.

Arguments are frozen dataclasses. Values whose types are exactly their fields' are taken as
they are; anything else is judged by the operation's strict pydantic model, built when first
needed (pydantic's import alone would cost a one-operation batch more than the rest of its
start-up).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import cached_property
from typing import Any, ClassVar, Literal, cast

from triples.support.errors import TriplesError

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


# A handler takes the session (``triples.interpreter.session.Session``) and its parsed arguments.
Handler = Callable[[Any, Any], Output]


# Whether one call of an operation is surely quick, judged from the session and the call's
# arguments (the game's rules and position) without doing the work: see ``Cost``.
Judge = Callable[[Any, Any], bool]

# What an operation may cost, declared when it is registered: "cheap" ones answer in
# microseconds to a millisecond whatever their arguments (within the size of a request), so a
# server may run them on its event loop; "search" ones can run long (a search, a judge of a
# long game) and belong on a worker; and a ``Judge`` says it call by call, for an operation
# whose work follows the rules and the position (``moves`` on a hundred slots with six cards a
# move lists millions).
Cost = Literal["cheap", "search"] | Judge


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

    def surely_quick(self, session: Any, args: Any) -> bool:
        """Whether this call (its parsed ``args``, on ``session``) is surely quick: safe to run
        on a server's event loop. A judge that raises (an unknown game) makes the call quick:
        its answer is that error, at once."""
        if self.cost == "cheap":
            return True
        if self.cost == "search":
            return False
        return self.cost(session, args)

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
        plain = cast("list[Any]", as_lists(raw))  # a tuple from Python where a list is due (a deck)
        if plain is not raw and all(test(value) for test, value in zip(self.quick, plain, strict=False)):
            return self.args(*plain)
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


# Values that hold no others: ``as_lists`` looks no further into them.
LEAVES = frozenset({str, int, float, bool, type(None)})
# How deep ``as_lists`` looks: an operation's arguments hold lists at most three levels down
# (a variant object's court); deeper nesting is no operation's and is left for its refusal.
PLAIN_DEPTH = 4
# The most items a sequence other than a list is copied with: one longer (a ``range`` of a
# trillion) is left as it is, for the operation's own refusal, rather than copied.
PLAIN_ITEMS = 1_000_000


def is_sequence(value: object) -> bool:
    """Whether ``value`` is a sequence that can stand for a list: a tuple, say, but never a
    string or bytes (text is not a list of its characters)."""
    return isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray)


def as_lists(value: object, depth: int = PLAIN_DEPTH) -> object:
    """``value`` with every sequence in it that is not a list (a tuple from Python) made a
    list, down to ``depth`` levels; ``value`` itself when nothing needed it. JSON never holds
    one, so the interpreter asks only when a value failed its quick test. Never raises: a
    sequence that cannot be read is left for the operation's refusal."""
    kind = type(value)
    if kind in LEAVES:
        return value
    if kind is list:
        items = cast("list[object]", value)
        if depth <= 0 or all(type(item) in LEAVES for item in items):
            return value
        plain = [as_lists(item, depth - 1) for item in items]
        return plain if any(new is not old for new, old in zip(plain, items, strict=True)) else value
    if kind is dict:
        entries = cast("dict[object, object]", value)
        if depth <= 0:
            return value
        plain_entries = {key: as_lists(item, depth - 1) for key, item in entries.items()}
        return plain_entries if any(plain_entries[key] is not entries[key] for key in entries) else value
    if depth <= 0 or not is_sequence(value):
        return value
    try:
        sequence = cast("Sequence[object]", value)
        if len(sequence) > PLAIN_ITEMS:
            return value
        return as_lists(list(sequence), depth)
    except Exception:  # a sequence of the caller's own whose len or items raise
        return value


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


class Registry(Mapping[str, Operation]):
    """The operations by name: filled while the interpreter loads, then sealed, so that what an
    operation name means cannot change under a running session. A name registered twice is a
    defect, refused at once."""

    def __init__(self) -> None:
        self._operations: dict[str, Operation] = {}
        self._sealed = False

    def add(self, op: Operation) -> None:
        if self._sealed:
            raise RuntimeError(f"cannot register {op.name!r}: the operations are fixed once the interpreter is loaded")
        if op.name in self._operations:
            raise ValueError(f"operation {op.name!r} is registered twice")
        self._operations[op.name] = op

    def seal(self) -> None:
        self._sealed = True

    @contextmanager
    def replaced(self, op: Operation) -> Iterator[None]:
        """For tests: ``op`` stands under its name within the block (a defect injected into a
        handler, or an operation added), and the registry is as it was after."""
        saved = self._operations.get(op.name)
        self._operations[op.name] = op
        try:
            yield
        finally:
            if saved is None:
                del self._operations[op.name]
            else:
                self._operations[op.name] = saved

    def get(self, name: str, default: Any = None) -> Any:  # the interpreter's hot path: no Mapping machinery
        return self._operations.get(name, default)

    def __getitem__(self, name: str) -> Operation:
        return self._operations[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._operations)

    def __len__(self) -> int:
        return len(self._operations)


OPERATIONS = Registry()


def operation(name: str, args: type[Any] = Args, *, cost: Cost) -> Callable[[Handler], Handler]:
    """Register a handler under an operation name, with the model its arguments must fit and
    what it may cost (see ``Cost``). The cost has no default: an operation nobody judged must
    not land on a server's event loop by accident."""

    def register(handler: Handler) -> Handler:
        OPERATIONS.add(Operation(name, args, handler, cost))
        return handler

    return register


def writable(message: str) -> str:
    """``message`` with any lone surrogate (from a name the caller sent, e.g. ``"\\ud800"`` via
    Python's json) written as its escape, so that every output can be encoded as JSON."""
    try:
        message.encode()
    except UnicodeEncodeError:
        return message.encode(errors="backslashreplace").decode()
    return message
