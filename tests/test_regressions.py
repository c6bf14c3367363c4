"""One test per defect the property tests found, each pinning the exact output."""

from __future__ import annotations

import io
import sys

import orjson
import pytest

from triples import cli, run

# --- run(): an error that echoes a caller's text must still be writable as JSON ---------------
# Found by test_run_answers_each_operation_once_with_json_and_never_raises (long profile): a
# name holding a lone surrogate, which Python's json.loads makes from the JSON text "\ud800",
# was echoed verbatim, and orjson (like any UTF-8 encoder) cannot write the output.
# Fixed in session.Session.apply (``writable``).


@pytest.mark.parametrize(
    ("operations", "output"),
    [
        pytest.param([["\ud800"]], "error: unknown operation '\\ud800'", id="operation"),
        pytest.param([["new", "g", 1, "x\udfff"]], "error: unknown variant 'x\\udfff'", id="variant"),
        pytest.param([["new", "g", ["\ud800"]]], "error: unknown card '\\ud800' for variant 'classic'", id="deck-card"),
        pytest.param(
            [["new", "g", 1], ["autoplay", "g", "\udbff\udbff"]],
            "error: unknown strategy '\\udbff\\udbff'",
            id="strategy",
        ),
    ],
)
def test_an_echoed_lone_surrogate_is_escaped_so_the_output_is_json(operations: list[object], output: str) -> None:
    outputs = run(operations)
    assert outputs[-1] == output
    assert orjson.loads(orjson.dumps(outputs))[-1] == output


def test_echoed_text_that_is_valid_unicode_is_kept_as_it_is() -> None:
    assert run([["é🂡"], ["new", "g", 1, "ü"]]) == ["error: unknown operation 'é🂡'", "error: unknown variant 'ü'"]


# --- the command line: JSON integers beyond 64 bits -------------------------------------------
# orjson.loads turns an integer literal outside the 64-bit range into a float, so the command
# line answers differently from run() on the same JSON: play's "an item is not an integer"
# rule fires before "out of range", and an integer id or seed is a usage error.
# Reproducer:
#   printf '[["new","g",1],["play","g",[0,1,100000000000000000000000]]]' | triples run
#   -> [..., "error: positions must be integers"]   (SPEC 4, rule 3: "error: position out of range")

BIG = 100000000000000000000000  # 10**23: an integer in JSON, past orjson's 64 bits
BIG_INTEGER_STREAM = (
    b'[["new","g",1],["play","g",[0,1,' + str(BIG).encode() + b"]],"
    b'["new",' + str(BIG).encode() + b",1],"
    b'["new","h",-9223372036854775809]]'
)


def run_cli(stdin: bytes) -> tuple[int, bytes]:
    saved = sys.stdin, sys.stdout
    stdout = io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    sys.stdout = io.TextIOWrapper(stdout, write_through=True)
    try:
        return cli.main(["run"]), stdout.getvalue()
    finally:
        sys.stdin, sys.stdout = saved


def test_run_itself_treats_big_integers_as_integers() -> None:
    outputs = run([["new", "g", 1], ["play", "g", [0, 1, BIG]], ["new", BIG, 1], ["new", "h", -(2**63) - 1]])
    assert outputs[1:] == [
        "error: position out of range",
        ["7D", "9C", "4D", "8H", "8D", "5S", "JD", "6D", "9S", "JC"],
        "error: seed must be an integer from 0 to 18446744073709551615",
    ]


def test_the_command_line_treats_big_integers_as_integers() -> None:
    status, stdout = run_cli(BIG_INTEGER_STREAM)
    assert status == 0
    assert orjson.loads(stdout)[1:] == [
        "error: position out of range",
        ["7D", "9C", "4D", "8H", "8D", "5S", "JD", "6D", "9S", "JC"],
        "error: seed must be an integer from 0 to 18446744073709551615",
    ]
