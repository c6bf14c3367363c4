"""The command line, checked by exact stdout, stderr and exit status.

Every command, flag and exit path runs as a user runs it, ``python -m triples ...`` in a
subprocess. The longer tables of messages run ``cli.main`` in-process with the standard streams
swapped (``invoke``), since each subprocess pays the interpreter's start-up."""

from __future__ import annotations

import io
import json
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import pytest

from tests.helpers import SEED1, SEED1_TABLE, SPEC_SECTION_7
from triples import run
from triples.doors import cli
from triples.interpreter.jsonio import plain_words
from triples.interpreter.session import Session

# argparse wraps help to the terminal width; fix it so help text is the same everywhere.
ENV = {**os.environ, "COLUMNS": "80", "PYTHONIOENCODING": "utf-8"}
TIMEOUT = 60
SPEC_EXAMPLE = [["new", "g", SEED1], ["play", "g", [5, 0, 2]], ["table", "g"], ["status", "g"], ["history", "g"]]


class Result(NamedTuple):
    status: int
    stdout: bytes
    stderr: str


def triples(*args: str, stdin: bytes = b"", cwd: Path | None = None) -> Result:
    done = subprocess.run(
        [sys.executable, "-m", "triples", *args],
        input=stdin,
        capture_output=True,
        timeout=TIMEOUT,
        cwd=cwd,
        env=ENV,
    )
    return Result(done.returncode, done.stdout, done.stderr.decode())


Invoke = Callable[..., Result]


def test_spec_section_7_seeded_examples_through_triples_run() -> None:
    # One process for all five examples: each example's ids are its own, so each gets a fresh
    # id prefix to keep the games apart in the one session.
    operations: list[object] = []
    expected: list[object] = []
    for index, name in enumerate(sorted(SPEC_SECTION_7)):
        ops, outputs = SPEC_SECTION_7[name]
        operations += [[op[0], f"{index}-{op[1]}", *op[2:]] for op in ops]  # type: ignore[index]
        expected += outputs
    result = triples("run", stdin=orjson.dumps(operations))
    assert (result.status, result.stderr) == (0, "")
    assert orjson.dumps(orjson.loads(result.stdout)) == orjson.dumps(expected)  # as JSON: false is not 0


@pytest.fixture
def invoke(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Invoke:
    """``cli.main(args)`` in this process, in ``tmp_path``, with stdin given and the output caught."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")

    def call(*args: str, stdin: bytes = b"") -> Result:
        stdout, stderr = io.BytesIO(), io.BytesIO()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(stdout, write_through=True))
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(stderr, write_through=True))
        status = cli.main(list(args))
        return Result(status, stdout.getvalue(), stderr.getvalue().decode())

    return call


def json_line(value: object) -> bytes:
    return orjson.dumps(value) + b"\n"


def with_orjson_message(problem: str, text: bytes) -> str:
    """``problem`` with its ``{msg}`` replaced by orjson's finding about ``text`` in the plain
    words the doors use: the CLI's part is where it says the problem is."""
    if "{msg}" not in problem:
        return problem
    with pytest.raises(orjson.JSONDecodeError) as caught:
        orjson.loads(text)
    return problem.format(msg=plain_words(caught.value.msg))


def write_fixture(path: Path, operations: list[Any], outputs: list[Any] | None = None) -> Path:
    outputs = run(operations) if outputs is None else outputs
    path.write_bytes(cli.fixture_text(path.stem, operations, outputs))
    return path


# ---------------------------------------------------------------- run, array mode


def test_run_answers_the_spec_worked_example_from_stdin() -> None:
    result = triples("run", stdin=orjson.dumps(SPEC_EXAMPLE))
    assert result == (
        0,
        json_line(
            [
                SEED1_TABLE,
                "ok",
                ["10S", "AH", "5H", "9H", "3C", "8H", "2S", "2D", "AC", "7C"],
                {"cleared": 3, "stock": 39, "over": False},
                [[0, 2, 5]],
            ]
        ),
        "",
    )


ONE_SESSION = [["new", 1, 1, "pairs"], ["moves", 1], ["undo", 1], ["status", 2], ["frobnicate"], ["table", 1]]


def test_run_reads_a_file(tmp_path: Path) -> None:
    (tmp_path / "ops.json").write_bytes(orjson.dumps(ONE_SESSION))
    assert triples("run", "ops.json", cwd=tmp_path) == (0, json_line(run(ONE_SESSION)), "")


def test_run_reads_stdin_when_file_is_dash(invoke: Invoke) -> None:
    assert invoke("run", "-", stdin=orjson.dumps(ONE_SESSION)) == (0, json_line(run(ONE_SESSION)), "")


def test_run_reports_invalid_json_with_line_and_column() -> None:
    stdin = b'[["new","g",1],\n ["status" "g"]]'
    message = with_orjson_message("invalid JSON at line 2, column 12: {msg}", stdin)
    assert triples("run", stdin=stdin) == (2, b"", f"triples run: error: <stdin>: {message}\n")


@pytest.mark.parametrize(
    ("stdin", "problem"),
    [
        (b'[["new","g",1],\n ["status" "g"]]', "invalid JSON at line 2, column 12: {msg}"),
        (b"", "empty input: expected a JSON array of operations"),
        (b" \n\t\n", "empty input: expected a JSON array of operations"),
        (b'["\xff"]', "input is not UTF-8 text"),
        (b"-d", "invalid JSON at line 1, column 2: a '-' with no digit after it"),
        (b'[["new","g",1]] ["status","g"]', "invalid JSON at line 1, column 17: {msg}"),
        (b'{"ops": []}', "expected a JSON array of operations, got an object"),
        (b"42", "expected a JSON array of operations, got a number"),
        (b'"new"', "expected a JSON array of operations, got a string"),
        (b"true", "expected a JSON array of operations, got a boolean"),
        (b"null", "expected a JSON array of operations, got null"),
    ],
    ids=[
        *("bad-token", "empty", "blank", "not-utf8", "lone-minus", "trailing-content"),
        *("object", "number", "string", "boolean", "null"),
    ],
)
def test_run_rejects_input_that_is_not_a_json_array(invoke: Invoke, stdin: bytes, problem: str) -> None:
    message = with_orjson_message(problem, stdin)
    assert invoke("run", stdin=stdin) == (2, b"", f"triples run: error: <stdin>: {message}\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "missing.json"], "missing.json: No such file or directory"),
        (["run", "folder"], "folder: Is a directory"),
        (["run", "--jsonl", "missing.json"], "missing.json: No such file or directory"),
    ],
    ids=["missing", "directory", "jsonl-missing"],
)
def test_run_reports_an_unreadable_file(invoke: Invoke, tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "folder").mkdir()
    assert invoke(*args) == (2, b"", f"triples run: error: {message}\n")


def test_run_reports_a_missing_file() -> None:
    expected = (2, b"", "triples run: error: no/such.json: No such file or directory\n")
    assert triples("run", "no/such.json") == expected


# ---------------------------------------------------------------- run --jsonl


JSONL_LINES = [
    b'["new","g",1]\n',
    b"\n",  # blank lines are skipped: no answer
    b'["play","g",[0,1,2]]\n',
    b"   \t\n",
    b'["moves","g"]\r\n',
    b'["status","g"\n',  # not JSON: answered in place, the stream goes on
    b"5\n",  # JSON, but not an operation
    b"\x0b\n",  # a vertical tab is not JSON whitespace (a control character): answered in place, never skipped
    b'["history","g"]',  # the last line may lack its newline
]


def expected_jsonl(lines: list[bytes]) -> bytes:
    session = Session()
    answers = []
    for line in lines:
        if not line.strip(b" \t\r\n"):
            continue
        text = line.rstrip(b"\r\n")
        control = next((i for i, byte in enumerate(text) if byte < 0x20 and byte not in b"\t\r\n"), None)
        if control is not None:  # a byte JSON never holds, told as soon as it is read
            problem = f"a control character (byte 0x{text[control]:02x}) at column {control + 1}"
            answers.append(json_line(f"error: invalid JSON: {problem}"))
            continue
        try:
            operation = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            answers.append(json_line(f"error: invalid JSON: {plain_words(exc.msg)} at column {exc.colno}"))
        else:
            answers.append(json_line(session.apply(operation)))
    return b"".join(answers)


def test_jsonl_answers_every_line_and_skips_blank_ones() -> None:
    expected = expected_jsonl(JSONL_LINES)
    assert triples("run", "--jsonl", stdin=b"".join(JSONL_LINES)) == (0, expected, "")
    assert len(expected.splitlines()) == 7
    wording = "error: invalid JSON: the input ends before the JSON value does at column 14"
    assert expected.splitlines()[3] == json_line(wording).strip()


def test_jsonl_reads_a_file(invoke: Invoke, tmp_path: Path) -> None:
    (tmp_path / "ops.jsonl").write_bytes(b"".join(JSONL_LINES))
    assert invoke("run", "--jsonl", "ops.jsonl") == (0, expected_jsonl(JSONL_LINES), "")


class Coprocess:
    """``triples run --jsonl`` driven one line at a time, with a timeout on every read, so a
    buffering defect fails the test instead of hanging it."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "triples", "run", "--jsonl"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,
            env=ENV,
        )
        assert self.process.stdin and self.process.stdout and self.process.stderr
        self.stdin, self.stdout, self.stderr = self.process.stdin, self.process.stdout, self.process.stderr
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)

    def ask(self, operation: object) -> object:
        self.stdin.write(orjson.dumps(operation) + b"\n")
        if not self.selector.select(timeout=TIMEOUT):
            raise AssertionError(f"no answer to {operation} within {TIMEOUT} s")
        return orjson.loads(self.stdout.readline())

    def finish(self) -> tuple[int, str]:
        """Exit status and stderr, once the process has ended (stdin closed or signalled)."""
        self.selector.close()
        status = self.process.wait(timeout=TIMEOUT)
        stderr = self.stderr.read().decode()
        for stream in (self.stdin, self.stdout, self.stderr):
            stream.close()
        return status, stderr


@pytest.fixture
def coprocess() -> Iterator[Coprocess]:
    driven = Coprocess()
    yield driven
    if driven.process.poll() is None:  # a failed test left it waiting
        driven.process.kill()
        driven.process.wait(timeout=TIMEOUT)


def test_jsonl_is_a_coprocess_answering_each_line_before_the_next_is_written(coprocess: Coprocess) -> None:
    assert coprocess.ask(["new", "g", SEED1]) == SEED1_TABLE
    # Each next operation depends on the answer before it, as a driving program's would.
    moves = coprocess.ask(["moves", "g"])
    assert isinstance(moves, list)
    assert moves
    assert coprocess.ask(["play", "g", moves[0]]) == "ok"
    assert coprocess.ask(["history", "g"]) == [moves[0]]
    assert coprocess.ask(["undo", "g"]) == "ok"
    assert coprocess.ask(["table", "g"]) == SEED1_TABLE
    coprocess.stdin.close()
    assert coprocess.finish() == (0, "")


def test_jsonl_ends_quietly_when_the_reader_goes_away(coprocess: Coprocess) -> None:
    assert coprocess.ask(["new", "g", 1]) == run([["new", "g", 1]])[0]
    coprocess.stdout.close()
    coprocess.stdin.write(b'["table","g"]\n')  # its answer meets a closed pipe
    coprocess.stdin.close()
    assert coprocess.finish() == (cli.EXIT_BROKEN_PIPE, "")


@pytest.mark.parametrize("args", [["run", "--jsonl", "ops.jsonl"], ["run", "ops.json"]], ids=["jsonl-file", "array"])
def test_run_ends_quietly_when_stdout_is_closed(tmp_path: Path, args: list[str]) -> None:
    operations = [["new", n, n] for n in range(20)]
    (tmp_path / "ops.json").write_bytes(orjson.dumps(operations))
    (tmp_path / "ops.jsonl").write_bytes(b"".join(json_line(op) for op in operations))
    process = subprocess.Popen(
        [sys.executable, "-m", "triples", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=ENV
    )
    assert process.stdout and process.stderr
    process.stdout.close()  # gone before the first answer is written
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, stderr) == (cli.EXIT_BROKEN_PIPE, b"")


CLOSED_PIPE_COMMANDS = [
    pytest.param(["run", "ops.json"], id="run"),
    pytest.param(["ops.json"], id="no-command"),
    pytest.param(["run", "--jsonl", "ops.jsonl"], id="run-jsonl"),
    pytest.param(["record", "ops.json"], id="record"),
    pytest.param(["replay", str(Path(__file__).parent.parent / "fixtures" / "core-spec-seed1.json")], id="replay"),
    pytest.param(["rate", "--seeds", "1-3"], id="rate"),
    pytest.param(["pick", "--band", "easy", "--seeds", "1-5", "--count", "1"], id="pick"),
    pytest.param(["sweep", "--vary", "target=19..20", "--seeds", "1-2"], id="sweep"),
    pytest.param(
        ["calendar", "--start", "2026-01-05", "--days", "1", "--pattern", "easy", "--seeds", "1-5"], id="calendar"
    ),
    pytest.param(["bestrun", "KJQKA2A"], id="bestrun"),
    pytest.param(["quartets", "fair.txt"], id="quartets"),
    pytest.param(["--help"], id="help"),
    pytest.param(["rate", "--help"], id="command-help"),
    pytest.param(["--version"], id="version"),
]


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("args", CLOSED_PIPE_COMMANDS)
def test_every_command_exits_141_quietly_when_stdout_is_closed(tmp_path: Path, args: list[str], buffered: bool) -> None:
    (tmp_path / "ops.json").write_bytes(orjson.dumps([["new", "g", 1], ["status", "g"]]))
    (tmp_path / "ops.jsonl").write_bytes(b'["new","g",1]\n')
    (tmp_path / "fair.txt").write_text("2\n1 A 2 3C no\n2 A 3 3A yes\n")
    env = {name: value for name, value in ENV.items() if name != "PYTHONUNBUFFERED"}
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    # The reader is gone before the command starts, so even its first write meets a closed pipe
    # (closing our end after the start would race a command that writes and exits at once).
    reader, writer = os.pipe()
    os.close(reader)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "triples", *args],
            stdin=subprocess.DEVNULL,
            stdout=writer,
            stderr=subprocess.PIPE,
            cwd=tmp_path,
            env=env,
        )
    finally:
        os.close(writer)
    _, stderr = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, stderr) == (cli.EXIT_BROKEN_PIPE, b"")


OUTPUT_COMMANDS = [
    pytest.param(["run", "ops.json"], id="run"),
    pytest.param(["run", "--jsonl", "ops.jsonl"], id="run-jsonl"),
    pytest.param(["record", "ops.json"], id="record"),
    pytest.param(["replay", str(Path(__file__).parent.parent / "fixtures" / "core-spec-seed1.json")], id="replay"),
    pytest.param(["rate", "--seeds", "1-3"], id="rate"),
    pytest.param(["bestrun", "KJQKA2A"], id="bestrun"),
    pytest.param(["quartets", "fair.txt"], id="quartets"),
    pytest.param(["--help"], id="help"),
    pytest.param(["--version"], id="version"),
]


def in_shell(tmp_path: Path, args: list[str], redirect: str) -> tuple[int, bytes, str]:
    """``triples ARGS`` run by a shell with ``redirect`` (``>&-``, ``> /dev/full``, ``2>&-``)."""
    (tmp_path / "ops.json").write_bytes(orjson.dumps([["new", "g", 1], ["status", "g"]]))
    (tmp_path / "ops.jsonl").write_bytes(b'["new","g",1]\n')
    (tmp_path / "fair.txt").write_text("2\n1 A 2 3C no\n2 A 3 3A yes\n")
    words = " ".join(f"'{word}'" for word in [sys.executable, "-m", "triples", *args])
    done = subprocess.run(
        ["sh", "-c", f"{words} {redirect}"], stdin=subprocess.DEVNULL, capture_output=True, cwd=tmp_path, env=ENV
    )
    return done.returncode, done.stdout, done.stderr.decode()


@pytest.mark.parametrize("args", OUTPUT_COMMANDS)
def test_every_command_with_stdout_closed_says_so_in_one_line(tmp_path: Path, args: list[str]) -> None:
    assert in_shell(tmp_path, args, ">&-") == (
        cli.EXIT_BAD_INPUT,
        b"",
        "triples: error: cannot write the output: Bad file descriptor\n",
    )


@pytest.mark.parametrize("args", OUTPUT_COMMANDS)
def test_every_command_with_a_full_stdout_says_so_in_one_line(tmp_path: Path, args: list[str]) -> None:
    assert in_shell(tmp_path, args, "> /dev/full") == (
        cli.EXIT_BAD_INPUT,
        b"",
        "triples: error: cannot write the output: No space left on device\n",
    )


def test_with_stderr_closed_an_error_never_lands_on_stdout(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_bytes(b'[["new","g",1]')
    assert in_shell(tmp_path, ["run", "bad.json"], "2>&-") == (cli.EXIT_BAD_INPUT, b"", "")
    assert in_shell(tmp_path, ["run", "ops.json"], "2>&- >&-") == (cli.EXIT_BAD_INPUT, b"", "")
    assert in_shell(tmp_path, ["run", "bad.json"], "2> /dev/full") == (cli.EXIT_BAD_INPUT, b"", "")
    # With stdin closed, a command that reads it says so; one that reads a file is unaffected.
    assert in_shell(tmp_path, ["run"], "<&-") == (cli.EXIT_BAD_INPUT, b"", "triples run: error: <stdin>: not open\n")
    assert in_shell(tmp_path, ["run", "ops.json"], "<&-")[:2] == (
        cli.EXIT_OK,
        orjson.dumps(run([["new", "g", 1], ["status", "g"]])) + b"\n",
    )


def test_jsonl_ends_quietly_on_ctrl_c(coprocess: Coprocess) -> None:
    assert coprocess.ask(["new", "g", 1]) == run([["new", "g", 1]])[0]
    coprocess.process.send_signal(signal.SIGINT)  # it is waiting for the next line
    assert coprocess.finish() == (cli.EXIT_INTERRUPTED, "")


# ---------------------------------------------------------------- record


@pytest.mark.parametrize("stem", ["core-spec-seed1", "core-grid100-deal", "core-undo-chains"])
def test_record_reproduces_a_committed_fixture_byte_for_byte(invoke: Invoke, tmp_path: Path, stem: str) -> None:
    committed = (Path(__file__).parent.parent / "fixtures" / f"{stem}.json").read_bytes()
    (tmp_path / f"{stem}.json").write_bytes(orjson.dumps(orjson.loads(committed)["operations"]))
    assert invoke("record", f"{stem}.json") == (0, committed, "")


QUADS_GAME = [["new", "a", 3, "quads"], ["play", "a", [0, 1, 2, 3]], ["history", "a"]]


def test_record_names_the_fixture_after_the_file_stem(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "my-game.ops.json").write_bytes(orjson.dumps(QUADS_GAME))
    result = triples("record", "dir/my-game.ops.json", cwd=tmp_path)
    assert result == (0, cli.fixture_text("my-game.ops", QUADS_GAME, run(QUADS_GAME)), "")
    assert orjson.loads(result.stdout) == {"name": "my-game.ops", "operations": QUADS_GAME, "outputs": run(QUADS_GAME)}


@pytest.mark.parametrize(
    ("stdin", "args", "fixture"),
    [
        (orjson.dumps(QUADS_GAME), ["--name", "named"], cli.fixture_text("named", QUADS_GAME, run(QUADS_GAME))),
        (b"[]", [], b'{\n  "name": "stdin",\n  "operations": [],\n  "outputs": []\n}\n'),
    ],
    ids=["name-option", "empty-from-stdin"],
)
def test_record_from_stdin(invoke: Invoke, stdin: bytes, args: list[str], fixture: bytes) -> None:
    assert invoke("record", "-", *args, stdin=stdin) == (0, fixture, "")


def test_record_rejects_input_that_is_not_a_list() -> None:
    message = "triples record: error: <stdin>: expected a JSON array of operations, got an object\n"
    assert triples("record", "-", stdin=b"{}") == (2, b"", message)


def test_record_reads_every_shape_run_reads_and_replay_passes_what_it_wrote(tmp_path: Path) -> None:
    game = [["new", "g", 1], ["play", "g", [0, 2, 5]], ["status", "g"]]
    one_session = cli.fixture_text("ops", game, run(game))
    # One array (over lines or on one), and lines of operations: one session, one fixture.
    (tmp_path / "ops.json").write_bytes(orjson.dumps(game))
    (tmp_path / "ops.jsonl").write_bytes(b"".join(json_line(op) for op in game[:2]) + b"\n" + json_line(game[2]))
    assert triples("record", "ops.jsonl", cwd=tmp_path) == (0, one_session, "")
    assert triples("record", "ops.json", cwd=tmp_path) == (0, one_session, "")
    # Lines of arrays: one session a line, so one fixture a line, one after the other.
    batches = [game, [["table", "g"]], [["new", 7, 3, "pairs"], ["best", 7]]]
    (tmp_path / "games.jsonl").write_bytes(b"".join(json_line(batch) for batch in batches))
    recorded = triples("record", "games.jsonl", cwd=tmp_path)
    fixtures = b"".join(cli.fixture_text(f"games-{n}", batch, run(batch)) for n, batch in enumerate(batches, 1))
    assert recorded == (0, fixtures, "")
    (tmp_path / "games.json").write_bytes(recorded.stdout)
    lines = "".join(f"PASS games.json (games-{n})\n" for n in (1, 2, 3))
    assert triples("replay", "games.json", cwd=tmp_path) == (0, lines.encode(), "")
    (tmp_path / "games.json").write_bytes(recorded.stdout.replace(b"    52\n", b"    51\n"))
    failed = 'FAIL games.json (games-3): operation #1 ["best",7]: expected 51, got 52\n'
    assert triples("replay", "games.json", cwd=tmp_path) == (
        1,
        lines.replace("PASS games.json (games-3)\n", failed).encode(),
        "",
    )


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        (b'["new","g",1]\n\nnot json\n', "line 3: invalid JSON: invalid literal, expected 'null' at column 1"),
        (b'[["new","g",1]]\n\n5\n', "line 3: expected a JSON array of operations, got a number"),
        (
            b'["new","g",1]\n["table",\x00"g"]\n',
            "invalid JSON at line 2, column 10: a control character (byte 0x00), which JSON never holds",
        ),
    ],
    ids=["a-line-not-json", "a-line-of-arrays-not-an-array", "a-control-character"],
)
def test_record_refuses_what_a_fixture_cannot_hold(stdin: bytes, message: str) -> None:
    assert triples("record", "-", stdin=stdin) == (2, b"", f"triples record: error: <stdin>: {message}\n")


def test_record_keeps_integers_past_64_bits_and_replay_passes_them(tmp_path: Path) -> None:
    seed = int("7" * 400)
    operations = [["new", "g", seed], ["status", "g"], ["new", "h", [-(2**70)]]]
    (tmp_path / "big.json").write_text(json.dumps(operations))
    recorded = triples("record", "big.json", cwd=tmp_path)
    assert recorded.status == 0 and recorded.stderr == ""
    assert json.loads(recorded.stdout) == {"name": "big", "operations": operations, "outputs": run(operations)}
    assert b'["new","g",' + b"7" * 400 + b"]" in recorded.stdout
    (tmp_path / "fixture.json").write_bytes(recorded.stdout)
    assert triples("replay", "fixture.json", cwd=tmp_path) == (0, b"PASS fixture.json\n", "")


# ---------------------------------------------------------------- replay


def test_replay_passes_fixtures_whose_outputs_match(tmp_path: Path) -> None:
    write_fixture(tmp_path / "one.json", SPEC_EXAMPLE)
    write_fixture(tmp_path / "two.json", [["new", 5, 2, "sum15"], ["autoplay", 5], ["status", 5]])
    # JSON equality: an object's key order is not part of the output.
    reordered = run([["new", "g", 1], ["status", "g"]])
    reordered[1] = dict(reversed(list(reordered[1].items())))
    write_fixture(tmp_path / "three.json", [["new", "g", 1], ["status", "g"]], reordered)
    result = triples("replay", "one.json", "two.json", "three.json", cwd=tmp_path)
    assert result == (0, b"PASS one.json\nPASS two.json\nPASS three.json\n", "")


def changed(index: int, value: object) -> list[Any]:
    outputs = run(SPEC_EXAMPLE)
    outputs[index] = value
    return outputs


STATUS = {"cleared": 3, "stock": 39, "over": False}

FAILING = [
    # (fixture stem, outputs recorded, the FAIL line's text after the path)
    (
        "wrong-output",
        changed(1, "error: empty slot"),
        'operation #1 ["play","g",[5,0,2]]: expected "error: empty slot", got "ok"',
    ),
    (
        "false-is-not-0",
        changed(3, {**STATUS, "over": 0}),
        'operation #3 ["status","g"]: expected {"cleared":3,"over":0,"stock":39}, '
        'got {"cleared":3,"over":false,"stock":39}',
    ),
    ("3.0-is-not-3", changed(4, [[0.0, 2, 5]]), 'operation #4 ["history","g"]: expected [[0.0,2,5]], got [[0,2,5]]'),
]


def test_replay_reports_the_first_differing_operation(tmp_path: Path) -> None:
    write_fixture(tmp_path / "good.json", SPEC_EXAMPLE)
    for stem, outputs, _ in FAILING:
        write_fixture(tmp_path / f"{stem}.json", SPEC_EXAMPLE, outputs)
    two_wrong = changed(4, [])
    two_wrong[2] = []  # only the first difference is reported
    write_fixture(tmp_path / "two-wrong.json", SPEC_EXAMPLE, two_wrong)
    files = ["good.json", *(f"{stem}.json" for stem, _, _ in FAILING), "two-wrong.json"]
    result = triples("replay", *files, cwd=tmp_path)
    table = run(SPEC_EXAMPLE)[2]
    lines = [
        "PASS good.json",
        *(f"FAIL {stem}.json: {text}" for stem, _, text in FAILING),
        f'FAIL two-wrong.json: operation #2 ["table","g"]: expected [], got {orjson.dumps(table).decode()}',
    ]
    assert result == (1, "".join(line + "\n" for line in lines).encode(), "")


MALFORMED = [
    # (file name, content, what the error line says after "<file>: ")
    ("not-json.json", b'{"name": "x",', "invalid JSON at line 1, column 14: {msg}"),
    ("array.json", b"[1]", "not a fixture: expected a JSON object, got an array"),
    ("no-outputs.json", b'{"name": "x", "operations": []}', 'not a fixture: no "outputs" key'),
    ("bad-name.json", b'{"name": 1, "operations": [], "outputs": []}', 'not a fixture: "name" must be a string'),
    (
        "ops-object.json",
        b'{"name": "x", "operations": {}, "outputs": []}',
        'not a fixture: "operations" must be an array, not an object',
    ),
    (
        "short.json",
        b'{"name": "x", "operations": [["table", 1]], "outputs": []}',
        'not a fixture: "operations" and "outputs" differ in length (1 and 0)',
    ),
]


def test_replay_reports_each_unreadable_or_malformed_fixture_and_goes_on(tmp_path: Path) -> None:
    write_fixture(tmp_path / "good.json", SPEC_EXAMPLE)
    write_fixture(tmp_path / "bad.json", SPEC_EXAMPLE, changed(0, None))
    for name, content, _ in MALFORMED:
        (tmp_path / name).write_bytes(content)
    files = ["good.json", *(name for name, _, _ in MALFORMED), "missing.json", "bad.json"]
    result = triples("replay", *files, cwd=tmp_path)
    errors = [f"{name}: {with_orjson_message(text, content)}" for name, content, text in MALFORMED] + [
        "missing.json: No such file or directory"
    ]
    assert result.status == 2  # a malformed fixture outranks a failing one
    assert result.stdout.decode().splitlines() == [
        "PASS good.json",
        f"FAIL bad.json: operation #0 {orjson.dumps(SPEC_EXAMPLE[0]).decode()}: "
        f"expected null, got {orjson.dumps(SEED1_TABLE).decode()}",
    ]
    assert result.stderr.splitlines() == [f"triples replay: error: {error}" for error in errors]


def test_replay_passes_the_committed_fixtures(invoke: Invoke) -> None:
    folder = Path(__file__).parent.parent / "fixtures"
    paths = [str(folder / f"{stem}.json") for stem in ("core-spec-seed1", "core-undo-chains", "core-new-replaces")]
    assert invoke("replay", *paths) == (0, "".join(f"PASS {path}\n" for path in paths).encode(), "")


# ---------------------------------------------------------------- help, usage, version


@pytest.mark.parametrize(
    ("args", "usage", "epilog"),
    [
        ([], "usage: triples [-h] [--version] COMMAND ...", cli.TOOL_EPILOG),
        (["run"], "usage: triples run [-h] [--jsonl] [FILE]", cli.COMMANDS["run"].example),
        (["record"], "usage: triples record [-h] [--name NAME] FILE", cli.COMMANDS["record"].example),
        (["replay"], "usage: triples replay [-h] FIXTURE [FIXTURE ...]", cli.COMMANDS["replay"].example),
    ],
    ids=["tool", "run", "record", "replay"],
)
def test_help_shows_usage_and_an_example(invoke: Invoke, args: list[str], usage: str, epilog: str) -> None:
    result = invoke(*args, "--help")
    assert (result.status, result.stderr) == (0, "")
    text = result.stdout.decode()
    assert text.splitlines()[0] == usage
    assert text.endswith("\n\n" + epilog + "\n")
    assert "example" in epilog


@pytest.mark.parametrize("args", [["--help"], ["run", "-h"]], ids=["tool", "run"])
def test_help_is_the_same_in_a_subprocess(invoke: Invoke, args: list[str]) -> None:
    assert triples(*args) == invoke(*args)


def test_tool_help_lists_every_command(invoke: Invoke) -> None:
    text = invoke("-h").stdout.decode()
    listed = [line.split()[0] for line in text.split("commands:\n")[1].split("\n\n")[0].splitlines()[1:]]
    assert listed == list(cli.COMMANDS)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ["shuffle"],
            "triples: error: unknown command 'shuffle', and no such file (triples --help lists the commands)",
        ),
        (
            ["frob"],
            "triples: error: unknown command 'frob', and no such file (triples --help lists the commands)",
        ),
        (["--frob"], "triples: error: unrecognized arguments: --frob"),
        (["run", "--lines"], "triples run: error: unrecognized arguments: --lines"),
        (["run", "a", "b"], "triples run: error: unrecognized arguments: b"),
        (["replay"], "triples replay: error: the following arguments are required: FIXTURE"),
        (["record", "--name"], "triples record: error: argument --name: expected one argument"),
        (
            ["serve", "--port", "abc"],
            "triples serve: error: argument --port: abc: expected a port number from 0 to 65535",
        ),
        (["bestrun"], "triples bestrun: error: the following arguments are required: CONFIG"),
    ],
    ids=[
        "unknown-command",
        "frob",
        "unknown-tool-option",
        "unknown-option",
        "two-files",
        "replay-nothing",
        "name-without-value",
        "port",
        "bestrun-nothing",
    ],
)
def test_usage_errors_are_one_line_and_exit_2(invoke: Invoke, args: list[str], error: str) -> None:
    assert invoke(*args) == (2, b"", f"{error}\n")


def test_a_value_starting_with_a_minus_is_the_option_s_value(invoke: Invoke) -> None:
    # argparse alone would say "--name: expected one argument"; the value is the option's.
    result = invoke("record", "--name", "-x-", "-", stdin=b'[["new","g",1]]')
    assert result.status == 0 and result.stdout.startswith(b'{\n  "name": "-x-",')
    error = invoke("rate", "--seeds", "-5-3").stderr
    assert error.startswith("triples rate: error: ") and error.count("\n") == 1
    assert "-5-3" in error and "expected one argument" not in error


def test_a_usage_error_in_a_subprocess() -> None:
    assert triples("run", "--lines") == (2, b"", "triples run: error: unrecognized arguments: --lines\n")


def test_version() -> None:
    from triples import __version__

    assert triples("--version") == (0, f"triples {__version__}\n".encode(), "")


def test_console_script_is_the_same_tool() -> None:
    script = Path(sys.executable).with_name("triples")
    if not script.exists():
        pytest.skip("the triples console script is not installed next to this interpreter")
    done = subprocess.run([script, "run"], input=b'[["new","g",1]]', capture_output=True, timeout=TIMEOUT)
    assert (done.returncode, done.stdout, done.stderr) == (0, json_line(run([["new", "g", 1]])), b"")


# ---------------------------------------------------------------- in-process


def test_a_defect_is_one_line_and_exit_3_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.setattr("triples.doors.cli.replay.main", broken)
    assert cli.main(["replay", "x.json"]) == cli.EXIT_INTERNAL_ERROR
    assert capsys.readouterr() == ("", "triples: internal error: RuntimeError: boom\n")


def test_a_command_whose_module_cannot_be_imported_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "command_of_an_extra.py").write_text("import no_such_package_of_triples\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(cli.COMMANDS, "frob", cli.Command("frob", "needs an extra", "command_of_an_extra", "serve"))
    assert cli.main(["frob"]) == 2
    missing = "no module no_such_package_of_triples"
    hint = "pip install 'triples-solitaire[serve]'"
    assert capsys.readouterr() == ("", f"triples frob: error: needs the serve extra ({missing}): {hint}\n")
    monkeypatch.setitem(cli.COMMANDS, "frob", cli.Command("frob", "not installed", "triples.no_such_command"))
    assert cli.main(["frob"]) == cli.EXIT_INTERNAL_ERROR
    missing = "no module triples.no_such_command"
    assert capsys.readouterr() == ("", f"triples frob: error: this command is not available: {missing}\n")


# Start-up: what a quick batch must not load (nothing here is timed; benchmarks/startup.py is).
NOT_FOR_A_QUICK_BATCH = [
    "triples.engines.search",
    "triples.engines.fair",
    "triples.engines.difficulty",
    "triples.engines.strategies",
    "triples.games.quartets",
    "triples.games.uniscraper",
    "triples.doors.rating",
    "triples.doors.service",
    "triples.doors.cli.record",
    "triples.doors.cli.replay",
    "fastapi",
    "tqdm",
    "concurrent.futures",
    "multiprocessing",
    "pydantic",  # argument values of exactly their fields' types need no pydantic
    "pydantic_core",
    "importlib.metadata",
    "email",
    "zipfile",
]


def modules_after(tmp_path: Path, code: str) -> set[str]:
    """The modules a fresh interpreter holds after ``code``, run in ``tmp_path`` with pydantic's
    plugin setting left to the command line."""
    probe = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    env = {name: value for name, value in os.environ.items() if name != "PYDANTIC_DISABLE_PLUGINS"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, timeout=TIMEOUT, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr.decode()
    return set(done.stdout.decode().splitlines()[-1].split())


def test_a_quick_batch_loads_only_what_it_uses(tmp_path: Path) -> None:
    operations = [["new", "g", 1], ["moves", "g"], ["play", "g", [0, 2, 5]], ["status", "g"], ["undo", "g"]]
    (tmp_path / "ops.json").write_bytes(orjson.dumps(operations))
    modules = modules_after(tmp_path, "from triples.doors.cli import main\nassert main(['run', 'ops.json']) == 0")
    assert {
        "triples.interpreter.session",
        "triples.doors.cli.run",
        "triples.model.table",
    } <= modules  # the probe did run the batch
    assert sorted(name for name in NOT_FOR_A_QUICK_BATCH if name in modules) == []


def test_the_command_line_s_help_loads_no_command(tmp_path: Path) -> None:
    modules = modules_after(tmp_path, "from triples.doors.cli import main\nmain(['--help'])")
    assert "pydantic" not in modules
    assert sorted(name for name in modules if name.startswith("triples.")) == [
        "triples.doors",
        "triples.doors.cli",
        "triples.doors.cli.reading",
        "triples.doors.kit",
        "triples.doors.kit.exits",
        "triples.doors.kit.install",
        "triples.doors.kit.parsing",
        "triples.doors.kit.process",
    ]
    assert "orjson" not in modules


def test_import_triples_loads_nothing_but_the_package(tmp_path: Path) -> None:
    modules = modules_after(tmp_path, "import triples")
    assert sorted(name for name in modules if name.startswith(("triples", "pydantic", "orjson"))) == ["triples"]
    before = modules_after(tmp_path, "pass")
    assert sorted(modules - before) == ["triples"]  # not even ``typing``


def test_pydantic_asks_its_plugin_loader_for_get_plugins_only() -> None:
    """The command line stands in for pydantic's plugin loader with a module that has only
    ``get_plugins``: a pydantic that wants anything else from it must fail here, not for users."""
    import pydantic

    package = Path(pydantic.__file__).parent
    wanted = set()
    for source in package.rglob("*.py"):
        for line in source.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if len(words) >= 4 and words[0] == "from" and words[1].endswith("_loader") and words[2] == "import":
                wanted.update(name.strip("(), ") for name in words[3:])
    assert wanted == {"get_plugins"}


def test_the_command_line_gives_its_process_room_for_the_engines() -> None:
    # The library never changes the recursion limit; the command line's process starts with one
    # that leaves the engines room for any rule set.
    probe = "import sys; sys.setrecursionlimit(500); from triples.doors.cli import main; main(['--version']); "
    probe += "print(sys.getrecursionlimit())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.splitlines()[-1] == "10000"
