"""Reading a variant: the one way, ``parse_variant``, for the interpreter, the command line and
the workers alike. The registered variants (``VARIANTS``, fixed once this module is loaded) and
rule sets of one's own: a variant given as an object of fields over a registered base, or by
its canonical name, checked strictly and named canonically.

``{"base": "classic", "target": 21, "slots": 11}`` is the variant named
``classic(slots=11,target=21)``: the base, then the fields that differ from it in the order of
``FIELDS``. The name is itself a valid way to ask for the variant, so it can travel (to a
worker process, into a file of rows, into a URL) and come back as the same rules. An object that
changes nothing is the registered base itself, the very same object.

Every refusal is a ``TriplesError`` whose text is one line: ``unknown variant '<name>'`` for a
base that is not registered, ``bad variant: <what>`` for anything else.
"""

from __future__ import annotations

import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, cast

from triples.model.variant import BOUNDS, COURT_BOUNDS, DECKS, Variant
from triples.support import caches
from triples.support.digits import integer
from triples.support.errors import TriplesError

# The registered variants, in the order every listing shows them; a mapping no one can change.
VARIANTS: Mapping[str, Variant] = MappingProxyType(
    {
        variant.name: variant
        for variant in (
            Variant(name="classic", slots=10, per_move=3, target=20, court=(10, 10, 10)),
            Variant(name="pairs", slots=9, per_move=2, target=14, court=(11, 12, 13)),
            Variant(name="quads", slots=12, per_move=4, target=30, court=(10, 10, 10)),
            Variant(name="sum15", slots=9, per_move=3, target=15, deck="numeric", top_rank=9),
            Variant(name="grid", slots=12, per_move=3, target=15, deck="numeric", top_rank=9),
            Variant(name="grid100", slots=100, per_move=3, target=39, deck="numeric", top_rank=25),
        )
    }
)
DEFAULT_VARIANT = "classic"

BASE = "base"
# The fields an object may set, in the order a canonical name lists them.
FIELDS: tuple[str, ...] = ("slots", "per_move", "target", "deck", "court", "top_rank", "suits")
# What a field only one deck kind has starts as when an object switches the deck to that kind.
DEFAULT_COURT = (10, 10, 10)
DEFAULT_TOP_RANK = 9
# A standard deck's highest rank is the king's; the model keeps a number there for either kind.
STANDARD_TOP_RANK = 13

_NAME = re.compile(r"(?P<base>[^()]+)\((?P<fields>[^()]*)\)")
_INTEGER = re.compile(r"-?[0-9]+")


class UnknownVariant(TriplesError):
    """A variant name (or an object's base) that is not registered."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown variant '{name}'")
        self.name = name


class BadVariant(TriplesError):
    """A variant object or name that breaks a rule; the text names the field and what is allowed."""

    def __init__(self, what: str) -> None:
        super().__init__(f"bad variant: {what}")
        self.what = what


@dataclass(frozen=True)
class StatedFields:
    """The fields of a variant as an object states them: ``court`` only for a standard deck,
    ``top_rank`` only for a numeric one (None where the deck kind has no such field)."""

    slots: int
    per_move: int
    target: int
    deck: str
    court: tuple[int, int, int] | None
    top_rank: int | None
    suits: int

    @classmethod
    def of(cls, variant: Variant) -> StatedFields:
        numeric = variant.deck == "numeric"
        return cls(
            variant.slots,
            variant.per_move,
            variant.target,
            variant.deck,
            None if numeric else variant.court,
            variant.top_rank if numeric else None,
            variant.suits,
        )

    def differences(self, base: StatedFields) -> list[str]:
        """``field=value`` for each field that differs from ``base``, in ``FIELDS`` order."""
        return [
            f"{name}={written(getattr(self, name))}"
            for name in FIELDS
            if getattr(self, name) != getattr(base, name) and getattr(self, name) is not None
        ]


def written(value: object) -> str:
    """A field's value as a canonical name writes it: court as ``J/Q/K``."""
    if isinstance(value, tuple | list):
        return "/".join(map(str, value))
    return str(value)


# Custom variants by canonical name: the same rules give the same object while it is kept
# (the engines' tables, keyed by the rules' value, find theirs either way). Kept least recently
# used first out past ``built_budget()``, each measured when made, its deck and values included:
# a stream of distinct rule sets (a sweep, a service) holds a few megabytes, not one per rule set.
BUILT_SHARE = 16  # of the caches' budget (``triples.support.caches.budget``), a sixteenth


def built_budget() -> int:
    """The bytes the rule sets of one's own may hold: a share of the caches' budget."""
    return caches.budget() // BUILT_SHARE


_BUILT: OrderedDict[str, tuple[Variant, int]] = OrderedDict()
_built_lock = threading.Lock()
_built_bytes = 0


def remembered(name: str, rules: StatedFields) -> Variant:
    """The variant of these rules, made once while it is kept (see ``_BUILT``)."""
    global _built_bytes
    with _built_lock:
        found = _BUILT.get(name)
        if found is not None:
            _BUILT.move_to_end(name)
            return found[0]
    made = variant_of_rules(name, rules)
    size = measured_size(made)
    with _built_lock:
        found = _BUILT.get(name)
        if found is not None:
            return found[0]
        _BUILT[name] = (made, size)
        _built_bytes += size
        limit = built_budget()
        while _built_bytes > limit and len(_BUILT) > 1:
            _, (_, dropped) = _BUILT.popitem(last=False)
            _built_bytes -= dropped
    return made


# Measured once per shape of deck: variants of one shape hold the same things but their name.
_SIZES: dict[tuple[object, ...], int] = {}


def measured_size(variant: Variant) -> int:
    """The bytes a variant holds once dealt from (its deck, the cards' values and codes),
    measured on the first variant of its deck's shape, plus its name."""
    # What every deal asks for, derived now so that the measure holds what the variant keeps.
    _ = variant.by_code, variant.card_values, variant.cards_of_value
    shape = (variant.deck, variant.suits, variant.max_value, len(variant.cards_of_value))
    size = _SIZES.get(shape)
    if size is None:
        size = _SIZES[shape] = caches.footprint(variant) - sys.getsizeof(variant.name)
    return size + sys.getsizeof(variant.name)


def built_bytes() -> tuple[int, int]:
    """How many rule sets of one's own are kept, and their measured bytes."""
    with _built_lock:
        return len(_BUILT), _built_bytes


def parse_variant(spec: object) -> Variant:
    """The variant a name, a canonical name or an object of fields stands for: the one reading
    of a variant. A canonical name is enough to rebuild a rule set of one's own, so a variant
    can cross to a worker process, a file or a URL by name and come back as the same rules.

    Raises UnknownVariant for a name (or an object's base) that is not registered and
    BadVariant for anything else that is wrong.
    """
    if isinstance(spec, str):
        registered = VARIANTS.get(spec)  # the common case first: no parsing at all
        return registered if registered is not None else variant_of_name(spec)
    if isinstance(spec, Mapping):
        return variant_of_fields(spec)
    raise BadVariant("a variant is a name or an object of fields")


def canonical_name(spec: object) -> str:
    """The name every output gives the variant ``spec`` stands for."""
    return parse_variant(spec).name


def fields_of(variant: Variant) -> dict[str, object]:
    """The object form of a variant: its base and the fields it changes, as JSON values (court
    as a list), so that more fields can be laid over it (``triples sweep`` does)."""
    if variant.name in VARIANTS:
        return {BASE: variant.name}
    found = _NAME.fullmatch(variant.name)
    assert found is not None, f"{variant.name} is neither registered nor a canonical name"
    given: dict[str, object] = {BASE: found["base"]}
    for part in found["fields"].split(","):
        key, _, text = part.partition("=")
        given[key] = value_of_text(key, text)
    return given


def variant_of_name(name: str) -> Variant:
    """A registered variant, or a canonical-style name ``base(field=value,...)`` with fields in
    any order (``court=11/12/13``); any other name is an unknown variant."""
    registered = VARIANTS.get(name)
    if registered is not None:
        return registered
    found = _NAME.fullmatch(name)
    if found is None or found["base"] not in VARIANTS:
        raise UnknownVariant(name)
    given: dict[str, object] = {BASE: found["base"]}
    for part in found["fields"].split(",") if found["fields"].strip() else []:
        key, equals, text = (piece.strip() for piece in part.partition("="))
        if not equals:
            raise BadVariant(f"expected field=value in {name}, not '{part.strip()}'")
        if key in given:
            raise BadVariant(f"field '{key}' is given twice")
        given[key] = value_of_text(key, text)
    return variant_of_fields(given)


def value_of_text(field: str, text: str) -> object:
    """A field's value written in a name, as the object form would hold it; text that is not a
    number where one is due stays text, so the field's own check names what is allowed."""
    if field == "court":
        parts = text.split("/")
        if all(_INTEGER.fullmatch(part) for part in parts):
            return [integer(part) for part in parts]
        return text
    if field in BOUNDS and _INTEGER.fullmatch(text):
        return integer(text)  # any length: past the bounds it is refused by the field's check
    return text


def variant_of_fields(given: Mapping[Any, object]) -> Variant:
    """The variant of an object: its base's fields, with those it gives checked and put in."""
    for key in given:
        if key != BASE and key not in FIELDS:
            raise BadVariant(f"unknown field '{key}'")
    base = base_of(given.get(BASE, DEFAULT_VARIANT))
    base_rules = StatedFields.of(base)
    rules = base_rules
    for name in FIELDS:
        if name in given:
            rules = with_field(rules, name, given[name])
    if rules.per_move > rules.slots:
        raise BadVariant(f"per_move ({rules.per_move}) must be at most slots ({rules.slots})")
    differences = rules.differences(base_rules)
    if not differences:
        return base
    return remembered(f"{base.name}({','.join(differences)})", rules)


def base_of(name: object) -> Variant:
    if not isinstance(name, str):
        raise BadVariant("base must be the name of a registered variant (" + ", ".join(VARIANTS) + ")")
    base = VARIANTS.get(name)
    if base is None:
        raise UnknownVariant(name)
    return base


def with_field(rules: StatedFields, name: str, value: object) -> StatedFields:
    """``rules`` with one given field checked and set. Fields are set in ``FIELDS`` order, so the
    deck kind is settled before ``court`` and ``top_rank``, which belong to one kind each."""
    if name == "deck":
        if value not in DECKS:
            raise BadVariant('deck must be "standard" or "numeric"')
        return with_deck(rules, str(value))
    if name == "court":
        if rules.deck != "standard":
            raise BadVariant("court is only for a standard deck")
        low, high = COURT_BOUNDS
        if not (isinstance(value, list | tuple) and len(value) == 3 and all(in_range(v, low, high) for v in value)):
            raise BadVariant(f"court must be three integers from {low} to {high} (the values of J, Q, K)")
        court = cast("list[int]", list(value))
        return replace(rules, court=(court[0], court[1], court[2]))
    if name == "top_rank" and rules.deck != "numeric":
        raise BadVariant("top_rank is only for a numeric deck")
    low, high = BOUNDS[name]
    if not in_range(value, low, high):
        raise BadVariant(f"{name} must be an integer from {low} to {high}")
    changed: dict[str, Any] = {name: value}
    return replace(rules, **changed)


def with_deck(rules: StatedFields, deck: str) -> StatedFields:
    """The deck kind set; a switch of kind brings the new kind's default court or top rank."""
    if deck == rules.deck:
        return rules
    if deck == "standard":
        return replace(rules, deck=deck, court=DEFAULT_COURT, top_rank=None)
    return replace(rules, deck=deck, court=None, top_rank=DEFAULT_TOP_RANK)


def in_range(value: object, low: int, high: int) -> bool:
    """Whether ``value`` is an integer from low to high; booleans and floats are not integers."""
    return type(value) is int and low <= value <= high


def variant_of_rules(name: str, rules: StatedFields) -> Variant:
    return Variant(
        name=name,
        slots=rules.slots,
        per_move=rules.per_move,
        target=rules.target,
        deck="numeric" if rules.deck == "numeric" else "standard",
        court=rules.court,
        top_rank=STANDARD_TOP_RANK if rules.top_rank is None else rules.top_rank,
        suits=rules.suits,
    )
