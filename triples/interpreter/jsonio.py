"""Reading and writing JSON at the doors (the command line and the service), exactly and in plain words.

``loads`` reads with orjson, which is fast but reads an integer past 64 bits as a float (losing
digits) and refuses one past a double's range (about 310 digits); it also refuses a string
holding an escaped lone surrogate, which the JSON grammar allows and ``run()`` answers. Only then
does the standard library, which keeps every integer exact, read the input again. Every refusal
is a ``JSONInputError`` whose message is plain words, e.g. ``empty input: expected a JSON array of
operations`` or ``invalid JSON at line 1, column 5: more text after the JSON value``.

``dumps`` is the one writer of ``triples run`` and ``POST /run``, so the two answer byte for byte
alike: compact orjson, and the standard library only for what orjson cannot write (an integer
past 64 bits, nesting deeper than orjson writes), integers past the standard library's 4300
digits written by ``triples.support.digits``.
"""

from __future__ import annotations

from typing import Any

import orjson

from triples.support.digits import decimal, integer

EMPTY = "empty input: expected a JSON array of operations"
NOT_UTF8 = "input is not UTF-8 text"

# orjson keeps integers within 64 bits; one that may pass them has at least 19 digits (a
# negative one of 19 may be below -2**63). Digits become "0" and all else a space, and a run of
# 19 zeros is looked for: many times quicker than a regular expression over a large body.
_DIGITS_ONLY = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_RUN = b"0" * 19
# orjson's refusals of input the standard library reads exactly.
_RETRY_EXACTLY = ("number is infinity", "surrogate")
# orjson's messages, in the project's words; others are shown as orjson words them.
_PLAIN_WORDS = {
    "unexpected content after document": "more text after the JSON value",
    "unexpected end of data": "the input ends before the JSON value does",
    "no digit after sign": "a '-' with no digit after it",
    "trailing comma is not allowed": "a comma before a closing bracket",
    "depth limit exceeded": "nested more than 1024 levels deep",
    "unexpected character, expected a JSON value": "unexpected character where a JSON value should start",
    "number is infinity when parsed as double": "number too large",
}


class JSONInputError(ValueError):
    """Input that is not one JSON value, with the reason in plain words (no parser's jargon)."""


def loads(data: bytes) -> Any:
    """The JSON value in ``data``, integers of any size exact; ``JSONInputError`` when there is none."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        return _reread(data, exc)
    if _LONG_RUN in data.translate(_DIGITS_ONLY):
        return _exact_or(data, value)
    return value


def _reread(data: bytes, exc: orjson.JSONDecodeError) -> Any:
    if not data.strip(b" \t\r\n"):
        raise JSONInputError(EMPTY) from None
    try:
        data.decode()
    except UnicodeDecodeError:
        raise JSONInputError(NOT_UTF8) from None
    if any(words in exc.msg for words in _RETRY_EXACTLY):
        value = _exact_or(data, _MISSING)
        if value is not _MISSING:
            return value
    raise JSONInputError(f"invalid JSON at line {exc.lineno}, column {exc.colno}: {plain_words(exc.msg)}") from None


_MISSING: Any = object()


def plain_words(message: str) -> str:
    return _PLAIN_WORDS.get(message, message)


def _exact_or(data: bytes, otherwise: Any) -> Any:
    """``data`` read by the standard library, or ``otherwise`` when it cannot read it (too deep)."""
    import json

    try:
        return json.loads(data.decode(), parse_int=integer, parse_float=_finite, parse_constant=_refuse_constant)
    except (RecursionError, ValueError):
        return otherwise


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):  # as orjson: a number past a double's range is refused
        raise ValueError(text)
    return value


def _refuse_constant(name: str) -> Any:
    # NaN and Infinity are Python's extensions, not JSON.
    raise ValueError(name)


def dumps(value: Any) -> bytes:
    """``value`` as compact JSON and a newline: what ``triples run`` prints and ``POST /run`` sends."""
    try:
        return orjson.dumps(value) + b"\n"
    except orjson.JSONEncodeError:
        import json

        try:
            text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except ValueError:  # an integer past the 4300 digits the standard library writes
            text = _exact_text(value)
        return text.encode() + b"\n"


def _exact_text(value: Any) -> str:
    """``value`` as the standard library writes it compactly, but integers of any length."""
    import json

    if isinstance(value, int) and not isinstance(value, bool):
        return decimal(value)
    if isinstance(value, list | tuple):
        return "[" + ",".join(_exact_text(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_key_text(key)}:{_exact_text(item)}" for key, item in value.items()) + "}"
    return json.dumps(value, ensure_ascii=False)


def _key_text(key: object) -> str:
    import json

    if isinstance(key, int) and not isinstance(key, bool):  # a key is a string in JSON
        return json.dumps(decimal(key), ensure_ascii=False)
    # Any other key as json turns it into a string (a float, true, null): the text before ':0}'.
    return json.dumps({key: 0}, ensure_ascii=False, separators=(",", ":"))[1:-3]


def json_kind(value: object) -> str:
    """What a JSON value is, in words, for "expected ..., got <kind>" messages."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return "a number"
