"""Integers and their decimal text, exactly, at any length.

Python refuses to turn an integer of more than 4300 digits into text, or such text into an
integer (``sys.set_int_max_str_digits``: a guard against quadratic work on hostile input). A
seed, an id or a deck value may be any JSON integer, and an answer that names one must name it
exactly, so past the limit the conversion is done by halves, each within it. The work stays
well below quadratic for the lengths a request can carry (1 MiB of text).
"""

from __future__ import annotations

# Safely within the interpreter's default limit of 4300 digits.
_DIGITS_AT_ONCE = 4000
# An integer of at most this many bits has at most 3913 digits (2**13000 < 10**3914).
_BITS_AT_ONCE = 13000
_DIGITS_PER_BIT = 0.30102999566398120  # log10(2)


def decimal(number: int) -> str:
    """The decimal text of ``number``, exactly, however many digits it has."""
    if number < 0:
        return "-" + decimal(-number)
    if number.bit_length() <= _BITS_AT_ONCE:
        return str(number)
    low_length = int(number.bit_length() * _DIGITS_PER_BIT) // 2
    high, low = divmod(number, 10**low_length)
    return decimal(high) + decimal(low).zfill(low_length)


def integer(text: str) -> int:
    """The integer a decimal text (an optional '-', then digits) stands for, at any length."""
    if len(text) <= _DIGITS_AT_ONCE:
        return int(text)
    if text.startswith("-"):
        return -_digits_value(text[1:])
    return _digits_value(text)


def _digits_value(digits: str) -> int:
    if len(digits) <= _DIGITS_AT_ONCE:
        return int(digits)
    low_length = len(digits) // 2
    high, low = digits[:-low_length], digits[-low_length:]
    scale: int = 10**low_length
    return _digits_value(high) * scale + _digits_value(low)


# Integers in messages are written whole up to this many digits (a few milliseconds); past it
# the last digits stand for them, so that an error about a number never takes longer to write
# than the rest of its work (a million digits take seconds).
WHOLE_DIGITS = 10_000
_WHOLE_BITS = int(WHOLE_DIGITS / _DIGITS_PER_BIT)  # an integer of at most this many bits has at most 10,001 digits
_LAST_DIGITS = 20


def abbreviated(number: int) -> str:
    """``number`` for a message: its decimal text, exactly, when it has about ``WHOLE_DIGITS``
    digits or fewer; else its last digits, e.g. ``...00000000000000000007 (an integer of
    more than 10,000 digits)``."""
    if number.bit_length() <= _WHOLE_BITS:
        return decimal(number)
    sign = "-" if number < 0 else ""
    last = str(abs(number) % 10**_LAST_DIGITS).zfill(_LAST_DIGITS)
    return f"{sign}...{last} (an integer of more than {WHOLE_DIGITS:,} digits)"
