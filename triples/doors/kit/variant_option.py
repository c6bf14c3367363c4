"""The ``--variant`` option of the commands: a name, inline JSON rules, or ``@file.json``.

``--variant classic``, ``--variant 'classic(slots=11,target=21)'``,
``--variant '{"base": "classic", "target": 21}'`` and ``--variant @rules.json`` (a file holding
such an object, or a name as a JSON string) all name a variant; the rules are checked as
``triples.model.variants`` checks them, with the same one-line refusals.
"""

from __future__ import annotations

import argparse

import orjson

from triples.doors.kit.exits import BadInput
from triples.model.variant import Variant
from triples.model.variants import VARIANTS, parse_variant
from triples.support.errors import TriplesError


def variant_help(default: str) -> str:
    """The option's help: the registered names, then the other ways to give rules."""
    return (
        f"{', '.join(VARIANTS)} (default {default}); or rules of your own as inline JSON "
        """('{"base": "classic", "target": 21}'), @FILE.json or a name like 'classic(target=21)'"""
    )


class VariantOptionError(TriplesError):
    """A ``--variant`` value whose file cannot be read or whose JSON does not parse."""


def variant_of_option(text: str) -> Variant:
    """The variant ``text`` names; a TriplesError with a one-line message when it names none."""
    if text.startswith("@"):
        path = text[1:]
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise VariantOptionError(f"variant file {path}: {exc.strerror or exc}") from None
        return parse_variant(json_of(data, f"variant file {path} is not JSON"))
    if text.lstrip().startswith("{"):
        return parse_variant(json_of(text.encode(), "inline variant rules are not JSON"))
    return parse_variant(text)


def json_of(data: bytes, refusal: str) -> object:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise VariantOptionError(f"{refusal} ({exc})") from None


def variant_option(text: str) -> Variant:
    """``--variant`` as an argparse type: a refusal is argparse's one-line error for the option."""
    try:
        return variant_of_option(text)
    except TriplesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def variant_of(text: str) -> Variant:
    """``--variant``'s rules for a command's main, or BadInput in one line."""
    try:
        return variant_of_option(text)
    except TriplesError as exc:
        raise BadInput(str(exc)) from None
