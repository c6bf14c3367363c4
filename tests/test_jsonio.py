"""JSON at the doors: exact integers of any size, refusals in plain words, one writer."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from triples.interpreter.jsonio import EMPTY, NOT_UTF8, JSONInputError, dumps, json_kind, loads

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_loads_reads_what_the_standard_library_writes_with_integers_exact(value: Any) -> None:
    assert loads(json.dumps(value).encode()) == value


@pytest.mark.parametrize("digits", [19, 20, 21, 40, 309, 310, 400, 4_300, 5_000, 20_000])
def test_integers_of_any_size_stay_exact(digits: int) -> None:
    text = "1" + "0" * (digits - 2) + "7"  # 10**(digits-1) + 7, written without str(), which stops at 4300 digits
    number = 10 ** (digits - 1) + 7
    assert loads(f'[["new","g",{text}],-{text}]'.encode()) == [["new", "g", number], -number]


def test_fast_reading_when_nothing_needs_the_exact_reader() -> None:
    assert loads(b'[["new","g",18446744073709551615],1.5]') == [["new", "g", 18446744073709551615], 1.5]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", EMPTY),
        (b" \r\n\t", EMPTY),
        (b"\xff[]", NOT_UTF8),
        (b'["\xed\xa0\x80"]', NOT_UTF8),  # a surrogate written as UTF-8 bytes is not UTF-8
        (b"[1] x", "invalid JSON at line 1, column 5: more text after the JSON value"),
        (b"[1,\n", "invalid JSON at line 2, column 1: the input ends before the JSON value does"),
        (b"-x", "invalid JSON at line 1, column 2: a '-' with no digit after it"),
        (b"[1,]", "invalid JSON at line 1, column 3: a comma before a closing bracket"),
        (b"[" * 2000, "invalid JSON at line 1, column 1026: nested more than 1024 levels deep"),
        (b"[NaN]", "invalid JSON at line 1, column 2: unexpected character where a JSON value should start"),
        (b"[Infinity]", "invalid JSON at line 1, column 2: unexpected character where a JSON value should start"),
        (b"[1e400]", "invalid JSON at line 1, column 2: number too large"),
    ],
    ids=[
        "empty",
        "blank",
        "not-utf8",
        "utf8-surrogate",
        "after",
        "unfinished",
        "sign",
        "comma",
        "deep",
        "nan",
        "inf",
        "huge-float",
    ],
)
def test_refusals_in_plain_words(data: bytes, message: str) -> None:
    with pytest.raises(JSONInputError) as refused:
        loads(data)
    assert str(refused.value) == message


def test_an_escaped_lone_surrogate_is_json_and_read() -> None:
    assert loads(b'["\\ud800", "\\udc00x"]') == ["\ud800", "\udc00x"]


def test_dumps_is_compact_orjson_with_a_newline() -> None:
    value = [["9D", None], {"cleared": 3, "over": False}, "é"]
    assert dumps(value) == orjson.dumps(value) + b"\n"


def test_dumps_writes_integers_past_64_bits() -> None:
    assert dumps([2**64, -(2**70)]) == f"[{2**64},{-(2**70)}]\n".encode()


def test_dumps_writes_integers_past_4300_digits_exactly() -> None:
    # str() refuses these, so the expected text is built from digits.
    big, text = 10**5000 + 7, "1" + "0" * 4999 + "7"
    value = [big, {"n": -big, "list": [1, "é", None, True, 0.5]}, "x"]
    assert dumps(value) == f'[{text},{{"n":-{text},"list":[1,"é",null,true,0.5]}},"x"]\n'.encode()


@pytest.mark.parametrize(
    ("value", "kind"),
    [({}, "an object"), ([], "an array"), ("", "a string"), (True, "a boolean"), (None, "null"), (1.5, "a number")],
)
def test_json_kind(value: object, kind: str) -> None:
    assert json_kind(value) == kind
