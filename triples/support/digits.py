"""Integers and their decimal text, exactly, at any length.

Python refuses to turn an integer of more than 4300 digits into text, or such text into an
integer (``sys.set_int_max_str_digits``: a guard against quadratic work on hostile input). A
seed, an id or a deck value may be any JSON integer, and an answer that names one must name it
exactly, so past the limit the conversion is done by halves, each within it. The work stays
well below quadratic for the lengths a request can carry (1 MiB of text).

Reading text into an integer is also done in small steps: the halves are put together by a
multiplication split into multiplications of at most ``_LEAF_BITS`` bits (Karatsuba's, written
here), because one multiplication of two half-million-digit integers holds the interpreter's
lock for tens of milliseconds, and a server reading a million-digit seed in a worker thread
must not stop its event loop for that long. Writing an integer of more than ``WHOLE_DIGITS``
digits into a message is left out instead (``abbreviated``).
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
    return _product(_digits_value(high), _power_of_ten(low_length)) + _digits_value(low)


# Multiplications of operands this long are done at once (well under a millisecond each).
_LEAF_BITS = 60_000


def _product(a: int, b: int) -> int:
    """``a * b`` for non-negative integers, as multiplications of at most ``_LEAF_BITS`` bits."""
    bits = max(a.bit_length(), b.bit_length())
    if min(a.bit_length(), b.bit_length()) <= _LEAF_BITS:
        if bits <= 4 * _LEAF_BITS:
            return a * b
        # One operand is short: split the long one only (each part times the short one).
        if a.bit_length() < b.bit_length():
            a, b = b, a
        half = bits // 2
        return (_product(a >> half, b) << half) + _product(a & ((1 << half) - 1), b)
    half = bits // 2
    mask = (1 << half) - 1
    a1, a0, b1, b0 = a >> half, a & mask, b >> half, b & mask
    high, low = _product(a1, b1), _product(a0, b0)
    middle = _product(a1 + a0, b1 + b0) - high - low
    return (high << (2 * half)) + (middle << half) + low


def _power_of_ten(exponent: int) -> int:
    """``10**exponent``, by halves, each product by ``_product``."""
    if exponent <= 4 * _DIGITS_AT_ONCE:
        power: int = 10**exponent
        return power
    half = _power_of_ten(exponent // 2)
    square = _product(half, half)
    return _product(square, 10) if exponent % 2 else square


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
