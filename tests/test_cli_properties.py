"""Property-based tests of ``triples run`` and ``triples run --jsonl`` on hostile input: random
bytes, truncated and corrupted JSON. Bad input is exit 2 with one stderr line (array mode) or
an error line per bad line (JSON Lines); never a traceback, never exit 3.

Hypothesis examples call ``cli.main`` in this process with the standard streams swapped; a few
run the real ``python -m triples`` to show the process itself behaves the same."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

import orjson
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.reference import json_values, operations
from triples import run
from triples.doors import cli
from triples.interpreter.session import Session


class Result(NamedTuple):
    status: int
    stdout: bytes
    stderr: str


@contextmanager
def swapped_streams(stdin: bytes) -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    stdout, stderr = io.BytesIO(), io.BytesIO()
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin))
    sys.stdout = io.TextIOWrapper(stdout, write_through=True)
    sys.stderr = io.TextIOWrapper(stderr, write_through=True)
    try:
        yield stdout, stderr
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved


def invoke(*args: str, stdin: bytes) -> Result:
    with swapped_streams(stdin) as (stdout, stderr):
        status = cli.main(list(args))
        # read before the swap is undone: dropping a TextIOWrapper closes what it wraps
        return Result(status, stdout.getvalue(), stderr.getvalue().decode())


def subprocess_run(*args: str, stdin: bytes) -> Result:
    done = subprocess.run(
        [sys.executable, "-m", "triples", *args], input=stdin, capture_output=True, timeout=60, check=False
    )
    return Result(done.returncode, done.stdout, done.stderr.decode(errors="replace"))


def examples(fraction: float) -> settings:
    return settings(max_examples=max(1, int(settings().max_examples * fraction)))


def parsed(data: bytes) -> tuple[bool, Any]:
    """Whether ``data`` is JSON the command line accepts, and its value with integers exact
    (orjson would read one past 64 bits as a float; the standard library keeps it)."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        # An escaped lone surrogate is JSON that orjson refuses: the standard library reads it.
        if "surrogate" not in exc.msg:
            return False, None
        try:
            return True, json.loads(data.decode())
        except (ValueError, RecursionError):
            return False, None
    try:
        return True, json.loads(data)
    except RecursionError:  # deeper than the standard library reaches
        return True, value


def read_as_lines(data: bytes) -> bool:
    """The shape rule: lines when more than one line is not blank and the first such is JSON."""
    nonblank = [line for line in data.split(b"\n") if not is_blank(line)]
    return len(nonblank) > 1 and parsed(nonblank[0].rstrip(b"\r"))[0]


def assert_array_mode_answer(data: bytes, result: Result) -> None:
    """Exit 0 with run()'s outputs for a JSON array; else exit 2 and one stderr line (input of
    several lines whose first is JSON is read as lines instead)."""
    assert "Traceback" not in result.stderr
    if read_as_lines(data):
        assert_jsonl_answer(data.split(b"\n"), result, batches_allowed=True)
        return
    ok, value = parsed(data)
    if ok and isinstance(value, list):
        assert result == (0, orjson.dumps(run(value)) + b"\n", "")
    else:
        assert (result.status, result.stdout) == (2, b"")
        assert result.stderr.startswith("triples run: error: <stdin>: ")
        assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")


def depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value``, found without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, list | dict):
            deepest = max(deepest, level)
            stack += [(child, level + 1) for child in (item.values() if isinstance(item, dict) else item)]
    return deepest


def json_text(value: Any) -> bytes | None:
    """``value`` as compact JSON, integers of any size included; None when JSON cannot hold
    it (NaN, infinities, lone surrogates). Deep values go to orjson, which has a fixed limit:
    the standard library's depends on the stack in use, which would make the strategy flaky."""
    if depth(value) > 200:
        try:
            return orjson.dumps(value)
        except orjson.JSONEncodeError:
            return None
    try:
        return json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(",", ":")).encode()
    except (ValueError, UnicodeEncodeError):
        return None


def json_texts() -> st.SearchStrategy[bytes]:
    """The JSON text of a stream of operations, integers past 64 bits included."""

    def encode(ops: list[Any]) -> bytes | None:
        return json_text(ops)

    encoded = st.lists(operations(), max_size=8).map(encode)
    return encoded.filter(lambda text: text is not None).map(lambda text: text or b"")


# Pieces of JSON syntax: random bytes alone almost never get past the first character.
JSON_PIECES = [b"[", b"]", b"{", b"}", b",", b":", b'"', b"\\", b"1", b"-", b".", b"e", b"null", b"true"]
JSON_PIECES += [b"18446744073709551616", b"-9223372036854775809", b'"\\ud800"', b"1e400"]
json_like_bytes = st.lists(st.sampled_from(JSON_PIECES) | st.binary(max_size=3), max_size=20).map(b"".join)


@given(st.binary(max_size=64) | json_like_bytes)
def test_run_on_random_bytes_is_exit_2_or_the_outputs(data: bytes) -> None:
    assert_array_mode_answer(data, invoke("run", stdin=data))


@given(json_texts(), st.data())
def test_run_on_truncated_or_corrupted_json_is_exit_2(text: bytes, data: st.DataObject) -> None:
    cut = data.draw(st.integers(min_value=0, max_value=len(text) - 1))
    spoiled = data.draw(
        st.sampled_from(
            [
                text[:cut],
                text[:cut] + text[cut + 1 :],
                text[:cut] + b"\xff" + text[cut + 1 :],
                text[:cut] + b"\x00" + text[cut:],
            ]
        )
    )
    assume(spoiled != text)
    result = invoke("run", stdin=spoiled)
    assert_array_mode_answer(spoiled, result)
    if spoiled == text[:cut]:  # a proper prefix of an array written without spaces
        assert result.status == 2


@given(json_texts())
def test_run_on_whole_json_answers_as_run_does(text: bytes) -> None:
    assert invoke("run", stdin=text) == (0, orjson.dumps(run(json.loads(text))) + b"\n", "")


# ---------------------------------------------------------------- JSON Lines


def is_blank(line: bytes) -> bool:
    # The CLI skips lines of JSON whitespace only: a form feed or vertical tab is answered.
    return not line.strip(b" \t\r\n")


def expected_jsonl(lines: list[bytes], batches_allowed: bool = False) -> bytes:
    """One answer per non-blank line, in one session; a line that is not JSON gets an error.
    With ``batches_allowed`` (the shape rule, not --jsonl) a first line that is an array but
    not one operation makes every line a batch of its own."""
    session = Session()
    answers = []
    kind = None
    for line in lines:
        if is_blank(line):
            continue
        ok, value = parsed(line.rstrip(b"\r"))
        if kind is None:
            is_operation = isinstance(value, list) and bool(value) and isinstance(value[0], str)
            kind = (
                "batches" if batches_allowed and ok and isinstance(value, list) and not is_operation else "operations"
            )
        answer = run(value) if kind == "batches" else session.apply(value)
        answers.append(orjson.dumps(answer) if ok else None)
    return b"\n".join(b"?" if a is None else a for a in answers) + (b"\n" if answers else b"")


def jsonl_lines() -> st.SearchStrategy[list[bytes]]:
    def op_line(op: Any) -> bytes:
        return json_text(op) or b"[]"

    one_line = st.one_of(
        operations().map(op_line),
        operations().map(op_line).flatmap(lambda line: st.integers(0, len(line)).map(lambda cut: line[:cut])),
        st.binary(max_size=24).map(lambda b: b.replace(b"\n", b"")),
        json_like_bytes.map(lambda b: b.replace(b"\n", b"")),
        json_values.map(op_line),
        st.sampled_from([b"", b" ", b"\r", b"\t\t", b"\x0c"]),
    )
    return st.lists(one_line, max_size=12)


def assert_jsonl_answer(lines: list[bytes], result: Result, batches_allowed: bool = False) -> None:
    assert (result.status, result.stderr) == (0, "")
    expected = expected_jsonl(lines, batches_allowed).split(b"\n")
    got = result.stdout.split(b"\n")
    assert len(got) == len(expected)
    for want, answer in zip(expected, got, strict=True):
        if want == b"?":
            message = orjson.loads(answer)
            assert isinstance(message, str) and message.startswith("error: invalid JSON: ")
        else:
            assert answer == want


@given(jsonl_lines(), st.sampled_from([b"\n", b"\r\n"]), st.booleans())
def test_jsonl_answers_every_line_even_garbage(lines: list[bytes], newline: bytes, final_newline: bool) -> None:
    stream = newline.join(lines) + (newline if final_newline else b"")
    assert_jsonl_answer(
        [line.removesuffix(b"\r") for line in stream.split(b"\n")], invoke("run", "--jsonl", stdin=stream)
    )


@examples(0.1)
@given(st.binary(max_size=200) | json_like_bytes)
def test_the_real_process_gives_exit_2_or_answers_never_a_traceback(data: bytes) -> None:
    assert_array_mode_answer(data, subprocess_run("run", stdin=data))
    lines = data.split(b"\n")
    assert_jsonl_answer(lines, subprocess_run("run", "--jsonl", stdin=data))
