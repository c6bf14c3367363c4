"""Integers and their decimal text, exactly at any length: past the interpreter's 4300 digits
``str`` and ``int`` refuse, and ``triples.support.digits`` converts by halves."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator

import pytest

from triples.support.digits import decimal, integer


@pytest.fixture
def unlimited_str() -> Iterator[None]:
    """The interpreter's own conversion without its limit, to check ours against (this test only)."""
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    yield
    sys.set_int_max_str_digits(limit)


def numbers() -> list[int]:
    rng = random.Random(23)
    edges = [0, 1, -1, 9, 10, 2**64, 10**3999, 10**4000 - 1, 2**13000, 2**13000 + 1, 10**4300, 10**5000 + 7]
    drawn = [rng.getrandbits(rng.randrange(1, 60_000)) for _ in range(60)]
    return [*edges, *(-n for n in edges), *drawn, *(-n for n in drawn)]


@pytest.mark.usefixtures("unlimited_str")
def test_decimal_and_integer_agree_with_the_interpreter_without_its_limit() -> None:
    for number in numbers():
        text = str(number)
        assert (decimal(number), integer(text)) == (text, number)


def test_past_the_limit_where_str_refuses() -> None:
    number = 10**5000 + 7
    with pytest.raises(ValueError, match="4300"):
        str(number)
    text = "1" + "0" * 4999 + "7"
    assert decimal(number) == text
    assert decimal(-number) == "-" + text
    assert integer(text) == number and integer("-" + text) == -number


def test_leading_zeros_of_the_lower_half_are_kept() -> None:
    number = 10**9000 + 3  # the lower half of its digits is mostly zeros
    text = decimal(number)
    assert (len(text), text[0], text[-1], set(text[1:-1])) == (9001, "1", "3", {"0"})


def test_a_message_names_an_integer_whole_up_to_ten_thousand_digits_then_by_its_last_digits() -> None:
    from triples.support.digits import abbreviated

    whole = 10**9999 + 7  # 10,000 digits
    assert abbreviated(whole) == decimal(whole) and abbreviated(-whole) == "-" + decimal(whole)
    huge = 10**999_999 + 7  # a million digits: seconds to write whole
    assert abbreviated(huge) == "...00000000000000000007 (an integer of more than 10,000 digits)"
    assert abbreviated(-huge) == "-...00000000000000000007 (an integer of more than 10,000 digits)"
    assert abbreviated(18446744073709551616) == "18446744073709551616"


def test_long_products_are_made_of_short_ones() -> None:
    from triples.support.digits import _LEAF_BITS, _power_of_ten, _product

    rng = random.Random(5)
    for _ in range(30):
        a, b = rng.getrandbits(rng.randrange(1, 20 * _LEAF_BITS)), rng.getrandbits(rng.randrange(1, 20 * _LEAF_BITS))
        assert _product(a, b) == a * b
    assert _power_of_ten(123_457) == 10**123_457
