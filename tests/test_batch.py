"""The batch mode as a harness calls it: ``python -m triples`` and ``triples`` with no command,
in real subprocesses, the input's shape deciding the mode; every answer compared with run()."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from triples import run
from triples.interpreter.jsonio import dumps
from triples.interpreter.session import Session

TIMEOUT = 60
ENV = {**os.environ, "COLUMNS": "80"}
SCRIPT = Path(sys.executable).with_name("triples")
MODULE = [sys.executable, "-m", "triples"]
GAME = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"], ["undo", "g"], ["history", "g"]]
BATCHES = [GAME, [["table", "g"]], [["new", 7, 3, "pairs"], ["best", 7]], []]


def call(command: list[str], stdin: bytes, *args: str, cwd: Path | None = None) -> tuple[int, bytes, str]:
    done = subprocess.run([*command, *args], input=stdin, capture_output=True, timeout=TIMEOUT, env=ENV, cwd=cwd)
    return done.returncode, done.stdout, done.stderr.decode()


def lines(*values: Any, blank: bytes = b"") -> bytes:
    return b"".join(orjson.dumps(value) + b"\n" + blank for value in values)


def one_session(operations: list[Any]) -> bytes:
    session = Session()
    return b"".join(dumps(session.apply(op)) for op in operations)


@pytest.fixture(params=["module", "script"])
def tool(request: pytest.FixtureRequest) -> list[str]:
    if request.param == "script" and not SCRIPT.exists():
        pytest.skip("the triples console script is not installed next to this interpreter")
    return MODULE if request.param == "module" else [str(SCRIPT)]


def test_one_array_of_operations_is_one_array_of_outputs(tool: list[str]) -> None:
    assert call(tool, orjson.dumps(GAME)) == (0, dumps(run(GAME)), "")
    # Spread over lines, it is still one document: its first line is not a complete value.
    spread = b"[\n" + b",\n".join(orjson.dumps(op) for op in GAME) + b"\n]\n"
    assert call(tool, spread) == (0, dumps(run(GAME)), "")


def test_lines_of_operations_are_one_session(tool: list[str]) -> None:
    assert call(tool, lines(*GAME)) == (0, one_session(GAME), "")
    assert call(tool, b"\n  \n" + lines(*GAME, blank=b"\r\n\t\n")) == (0, one_session(GAME), "")


def test_lines_of_arrays_are_each_a_fresh_session() -> None:
    expected = b"".join(dumps(run(batch)) for batch in BATCHES)
    assert call(MODULE, lines(*BATCHES)) == (0, expected, "")
    assert call(MODULE, lines(*BATCHES, blank=b"\n \n")) == (0, expected, "")


def test_a_bad_line_is_answered_in_place_and_the_rest_goes_on() -> None:
    bad = b'["status" "g"]\n'
    operations = lines(*GAME[:2]) + bad + lines(*GAME[2:])
    wanted = one_session(GAME[:2]) + dumps(
        "error: invalid JSON: unexpected character, expected ',' or ']' at column 11"
    )
    assert call(MODULE, operations) == (0, wanted + one_session(GAME)[len(one_session(GAME[:2])) :], "")
    # In lines of arrays, every line is answered with an array: the error is inside one.
    batches = lines(BATCHES[0]) + b"[[\n" + lines(*BATCHES[1:])
    expected = dumps(run(BATCHES[0])) + dumps(
        ["error: invalid JSON: the input ends before the JSON value does at column 3"]
    )
    assert call(MODULE, batches) == (0, expected + b"".join(dumps(run(batch)) for batch in BATCHES[1:]), "")


@pytest.mark.parametrize(
    "stdin",
    [
        lines(*GAME[:2]) + b'["status",\x00"g"]\n' + lines(*GAME[2:]),
        lines(*BATCHES[:1]) + b"[[\x00]]\n" + lines(*BATCHES[1:]),
    ],
    ids=["operations", "arrays"],
)
def test_a_line_with_a_byte_json_never_holds_is_answered_in_place(stdin: bytes) -> None:
    code, out, err = call(MODULE, stdin)
    replies = out.splitlines()
    assert (code, err, len(replies)) == (0, "", len(stdin.splitlines()))
    bad = next(i for i, line in enumerate(stdin.splitlines()) if b"\x00" in line)
    reply = orjson.loads(replies[bad])
    wrapped = reply[0] if isinstance(reply, list) else reply
    assert (
        wrapped
        == f"error: invalid JSON: a control character (byte 0x00) at column {stdin.splitlines()[bad].index(0) + 1}"
    )


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (
            b"\x00" * 300_000,
            "invalid JSON at line 1, column 1: a control character (byte 0x00), which JSON never holds",
        ),
        (
            b'[["new","g",1],\n ["status", "g"\x01]]',
            "invalid JSON at line 2, column 16: a control character (byte 0x01), which JSON never holds",
        ),
    ],
    ids=["zeros", "in-a-document"],
)
def test_a_document_with_a_byte_json_never_holds_is_refused_as_it_arrives(stdin: bytes, message: str) -> None:
    assert call(MODULE, stdin) == (2, b"", f"triples run: error: <stdin>: {message}\n")


def test_dev_zero_is_refused_at_its_first_byte_in_bounded_memory() -> None:
    import resource

    def small() -> None:  # 400 MB of address space: /dev/zero read whole would need far more
        resource.setrlimit(resource.RLIMIT_AS, (400 * 2**20, 400 * 2**20))

    done = subprocess.run([*MODULE, "/dev/zero"], capture_output=True, text=True, timeout=60, preexec_fn=small)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        "triples run: error: /dev/zero: invalid JSON at line 1, column 1: a control character (byte 0x00), "
        "which JSON never holds\n",
    )
    with subprocess.Popen(
        [*MODULE, "--jsonl", "/dev/zero"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=small
    ) as jsonl:
        out, err = jsonl.communicate(timeout=60)
    assert (jsonl.returncode, out) == (2, b'"error: invalid JSON: a control character (byte 0x00) at column 1"\n')
    assert (
        err.decode()
        == "triples run: error: /dev/zero: line 1 is over 256 MiB, the most a document or a line may hold\n"
    )


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (
            b'[["new","g",1],\n["status" "g"]]\n',
            "invalid JSON at line 2, column 11: unexpected character, expected ',' or ']'",
        ),
        (b'["new","g"\n', "invalid JSON at line 2, column 1: the input ends before the JSON value does"),
        (b"", "empty input: expected a JSON array of operations"),
        (b'{"new": 1}\n', "expected a JSON array of operations, got an object"),
    ],
    ids=["bad-document", "one-bad-line", "empty", "one-object"],
)
def test_one_invalid_document_is_one_error_line_and_exit_2(stdin: bytes, message: str) -> None:
    assert call(MODULE, stdin) == (2, b"", f"triples run: error: <stdin>: {message}\n")


def test_a_single_line_is_one_document_even_if_it_is_one_operation() -> None:
    assert call(MODULE, b'["new","g",1]\n') == (0, dumps(run(["new", "g", 1])), "")


def test_files_named_instead_of_a_command(tmp_path: Path) -> None:
    (tmp_path / "ops.json").write_bytes(orjson.dumps(GAME))
    (tmp_path / "ops.jsonl").write_bytes(lines(*GAME))
    assert call(MODULE, b"", "ops.json", cwd=tmp_path) == (0, dumps(run(GAME)), "")
    assert call(MODULE, b"", "ops.jsonl", cwd=tmp_path) == (0, one_session(GAME), "")
    assert call(MODULE, b"", "--jsonl", "ops.jsonl", cwd=tmp_path) == (0, one_session(GAME), "")
    assert call(MODULE, b"", "gone.json", cwd=tmp_path) == (
        2,
        b"",
        "triples run: error: gone.json: No such file or directory\n",
    )


def test_a_400_digit_seed_is_read_exactly() -> None:
    seed = 10**399 + 12345
    stdin = b'[["new","g",' + str(seed).encode() + b'],["new","h",' + str(seed % 2**32).encode() + b"]]"
    status, out, err = call(MODULE, stdin)
    tables = orjson.loads(out)
    assert (status, err, tables[0]) == (0, "", tables[1])
    assert call(MODULE, stdin.replace(b"],[", b"]\n[")[1:-1] + b"\n", "--jsonl")[1] == b"".join(
        dumps(t) for t in tables
    )


def test_lines_are_answered_as_they_arrive() -> None:
    process = subprocess.Popen(MODULE, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=ENV, bufsize=0)
    assert process.stdin and process.stdout
    answers = []
    try:
        # The first answer waits for the second line, which shows that the input is lines.
        process.stdin.write(lines(GAME[0], GAME[1]))
        for operation in GAME[2:]:
            answers.append(read_line(process.stdout.fileno()))
            process.stdin.write(lines(operation))
        process.stdin.close()
        answers.append(process.stdout.read())
    finally:
        process.kill() if process.poll() is None else None
        process.wait(TIMEOUT)
    assert b"".join(answers) == one_session(GAME)


def read_line(fd: int) -> bytes:
    """One answer line from ``fd``, failing (not hanging) when none comes."""
    line = b""
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], TIMEOUT)
        assert ready, "no answer in time"
        line += os.read(fd, 1)
    return line


def test_a_terminal_on_stdin_with_no_arguments_prints_the_help() -> None:
    controller, terminal = pty.openpty()
    started = time.monotonic()
    try:
        done = subprocess.run(MODULE, stdin=terminal, capture_output=True, timeout=TIMEOUT, env=ENV)
    finally:
        os.close(terminal)
        os.close(controller)
    assert time.monotonic() - started < TIMEOUT / 2  # answered, not waiting for input
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.startswith(b"usage: triples [-h] [--version] COMMAND ...")
    assert b"\ncommands:\n" in done.stdout
