"""The command line: ``triples run``, ``record``, ``replay`` (and ``rate``, from triples.rate).

Commands register themselves in ``COMMANDS``; ``main`` gives argparse only the chosen
command's arguments, so a command's module (and whatever it imports) is loaded only when that
command runs. Every failure ends as one line on stderr and an exit status, never a traceback.

Exit status: 0 ok; 1 a replayed fixture failed; 2 bad input or usage (unreadable file, invalid
JSON, not a list, malformed fixture, unknown option); 3 internal error (a defect: please
report it); 130 interrupted (Ctrl-C); 141 stdout closed by the reader (as if killed by SIGPIPE).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from triples.exits import (  # re-exported: commands here and their tests name them as triples.cli's
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REPLAY_FAILED,
    CommandError,
)
from triples.install import install_hint

_LONG_DIGITS = re.compile(rb"[0-9]{20}|-[0-9]{19}")  # the shortest integers past 64 bits

STDIN = "-"
STDIN_LABEL = "<stdin>"

AddArguments = Callable[[argparse.ArgumentParser], None]
Runner = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Command:
    name: str
    summary: str  # one line in ``triples --help``
    description: str
    example: str  # the epilog of ``triples NAME --help``
    add_arguments: AddArguments
    run: Runner


COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    COMMANDS[command.name] = command
    return command


def command(
    name: str, *, summary: str, description: str, example: str, arguments: AddArguments
) -> Callable[[Runner], Runner]:
    """Register the decorated function as the runner of command ``name``."""

    def decorate(run: Runner) -> Runner:
        register(Command(name, summary, description, example, arguments, run))
        return run

    return decorate


# ---------------------------------------------------------------- reading operations


def label(path: str) -> str:
    return STDIN_LABEL if path == STDIN else path


def standard_input() -> BinaryIO:
    if sys.stdin is None:  # started with stdin closed
        raise CommandError(f"{STDIN_LABEL}: not open")
    return sys.stdin.buffer


def read_input(path: str) -> bytes:
    if path == STDIN:
        return standard_input().read()
    try:
        with open(path, "rb") as file:
            return file.read()
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from None


def json_kind(value: object) -> str:
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


def load_json(data: bytes) -> Any:
    """orjson's reading of ``data``, except that integers past 64 bits stay integers.

    orjson reads such integers as floats, which would turn a position or seed of 2^64 into a
    usage error instead of the range error run() gives it. Only a run of 20 digits (19 after a
    minus) can hold one, so the standard library re-reads just those inputs (it keeps
    integers exact).
    """
    import orjson

    value = orjson.loads(data)
    if _LONG_DIGITS.search(data) is None:
        return value
    import json

    try:
        return json.loads(data)
    except (RecursionError, ValueError):  # nesting orjson allows but the stdlib cannot reach
        return value


def parse_json(data: bytes, source: str) -> Any:
    import orjson

    try:
        return load_json(data)
    except orjson.JSONDecodeError as exc:
        raise CommandError(f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None


def read_operations(path: str) -> list[Any]:
    """The JSON array of operations in ``path`` (``-``: stdin)."""
    operations = parse_json(read_input(path), label(path))
    if not isinstance(operations, list):
        raise CommandError(f"{label(path)}: expected a JSON array of operations, got {json_kind(operations)}")
    return operations


def write(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


# ---------------------------------------------------------------- run


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIN, help="the operations; stdin when omitted or '-'"
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="JSON Lines: one operation per input line, one output per output line, "
        "each written and flushed as soon as it is answered",
    )


@command(
    "run",
    summary="apply operations in one session and print their outputs",
    description="""\
Apply operations in one session and print their outputs.

By default FILE (or stdin) holds one JSON array of operations, and stdout gets
one JSON array of outputs, one per operation.

With --jsonl, every input line is one operation and every output line is its
answer, written and flushed before the next line is read, so another program
can drive triples as a coprocess. Blank lines are skipped (they get no answer);
a line that is not JSON is answered with "error: invalid JSON: ..." and the
stream goes on. Memory does not grow with the length of the stream.""",
    example="""\
examples:
  echo '[["new","g",1],["status","g"]]' | triples run
  triples run operations.json
  printf '%s\\n' '["new","g",1]' '["moves","g"]' | triples run --jsonl""",
    arguments=add_run_arguments,
)
def run_command(args: argparse.Namespace) -> int:
    if args.jsonl:
        return run_jsonl(args.file)
    import orjson

    from triples.api import run

    operations = read_operations(args.file)
    write(orjson.dumps(run(operations)) + b"\n")
    return EXIT_OK


def run_jsonl(path: str) -> int:
    if path == STDIN:
        answer_lines(standard_input(), sys.stdout.buffer)
        return EXIT_OK
    try:
        file = open(path, "rb")  # noqa: SIM115 (only the opening is a user's mistake to report)
    except OSError as exc:
        raise CommandError(f"{label(path)}: {exc.strerror or exc}") from None
    with file:
        answer_lines(file, sys.stdout.buffer)
    return EXIT_OK


def json_problem(line: bytes) -> str:
    """What is wrong with a line that is not JSON, with a column counted within the line."""
    import orjson

    try:
        orjson.loads(line.rstrip(b"\r\n"))  # else an unfinished line would end "at line 2"
    except orjson.JSONDecodeError as exc:
        return f"{exc.msg} at column {exc.colno}"
    return "not a JSON value"  # unreachable: the line failed to parse a moment ago


def answer_lines(lines: Iterable[bytes], out: BinaryIO) -> None:
    """Answer each operation line as it arrives: only the current line is held in memory."""
    import orjson

    from triples.session import Session

    session = Session()
    loads, dumps, decode_error = load_json, orjson.dumps, orjson.JSONDecodeError
    for line in lines:
        if not line.strip(b" \t\r\n"):  # blank by JSON's own whitespace, not Python's
            continue
        try:
            operation = loads(line)
        except decode_error:
            output: Any = f"error: invalid JSON: {json_problem(line)}"
        else:
            output = session.apply(operation)
        out.write(dumps(output) + b"\n")
        out.flush()


# ---------------------------------------------------------------- record


def add_record_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a JSON array of operations ('-': stdin)")
    parser.add_argument("--name", help="the fixture's name (default: FILE's name without its extension)")


@command(
    "record",
    summary="run a file of operations and print it as a replayable fixture",
    description="""\
Run the operations of FILE in one session and print a fixture to stdout:
{"name": ..., "operations": [...], "outputs": [...]} in the layout of the
fixtures/ folder (one operation or output per line). The name is FILE's name
without its extension unless --name says otherwise.""",
    example="""\
example:
  triples record worked_example.json > fixtures/worked_example.json""",
    arguments=add_record_arguments,
)
def record_command(args: argparse.Namespace) -> int:
    import orjson

    from triples.api import run

    operations = read_operations(args.file)
    name = args.name if args.name is not None else "stdin" if args.file == STDIN else Path(args.file).stem
    try:
        text = fixture_text(name, operations, run(operations))
    except orjson.JSONEncodeError as exc:  # orjson writes less nesting than it reads
        raise CommandError(f"{label(args.file)}: cannot write these operations as a fixture: {exc}") from None
    write(text)
    return EXIT_OK


def fixture_text(name: str, operations: list[Any], outputs: list[Any]) -> bytes:
    """The fixtures/ layout: one compact JSON operation or output per line, so that a diff of
    a fixture shows which steps changed."""
    import orjson

    def block(items: list[Any]) -> bytes:
        if not items:
            return b"[]"
        return b"[\n" + b",\n".join(b"    " + orjson.dumps(item) for item in items) + b"\n  ]"

    name_line = b'{\n  "name": ' + orjson.dumps(name)
    return name_line + b',\n  "operations": ' + block(operations) + b',\n  "outputs": ' + block(outputs) + b"\n}\n"


# ---------------------------------------------------------------- replay


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("fixtures", metavar="FIXTURE", nargs="+", help="fixture files to replay")


@command(
    "replay",
    summary="replay fixtures and report PASS or FAIL for each",
    description="""\
Replay each fixture's operations in a fresh session and compare every output
with the recorded one, as JSON (an object's key order does not matter; true is
not 1). One line per fixture on stdout:

  PASS <path>
  FAIL <path>: operation #<i> <operation>: expected <output>, got <output>

where #<i> is the 0-based index of the first operation whose output differs.
A fixture that cannot be read or is not a fixture gets one line on stderr
instead, and the others are still replayed.

Exit status: 0 all passed, 1 some fixture failed, 2 some fixture could not be
read or was malformed.""",
    example="""\
example:
  triples replay fixtures/*.json""",
    arguments=add_replay_arguments,
)
def replay_command(args: argparse.Namespace) -> int:
    status = EXIT_OK
    for path in args.fixtures:
        try:
            line = replay(path)
        except CommandError as exc:
            report_error("replay", str(exc))
            status = max(status, exc.status)
            continue
        write(line.encode() + b"\n")
        if not line.startswith("PASS"):
            status = max(status, EXIT_REPLAY_FAILED)
    return status


def read_fixture(path: str) -> tuple[list[Any], list[Any]]:
    """A fixture's operations and outputs, or CommandError saying what is wrong with it."""
    fixture = parse_json(read_input(path), path)
    if not isinstance(fixture, dict):
        raise CommandError(f"{path}: not a fixture: expected a JSON object, got {json_kind(fixture)}")
    for key in ("name", "operations", "outputs"):
        if key not in fixture:
            raise CommandError(f'{path}: not a fixture: no "{key}" key')
    if not isinstance(fixture["name"], str):
        raise CommandError(f'{path}: not a fixture: "name" must be a string')
    operations, outputs = fixture["operations"], fixture["outputs"]
    for key, value in (("operations", operations), ("outputs", outputs)):
        if not isinstance(value, list):
            raise CommandError(f'{path}: not a fixture: "{key}" must be an array, not {json_kind(value)}')
    if len(operations) != len(outputs):
        raise CommandError(
            f'{path}: not a fixture: "operations" and "outputs" differ in length ({len(operations)} and {len(outputs)})'
        )
    return operations, outputs


def replay(path: str) -> str:
    """The PASS or FAIL line of one fixture."""
    from triples.api import run

    operations, expected = read_fixture(path)
    for index, (operation, want, got) in enumerate(zip(operations, expected, run(operations), strict=True)):
        if not same_json(want, got):
            return f"FAIL {path}: operation #{index} {show(operation)}: expected {show(want)}, got {show(got)}"
    return f"PASS {path}"


def canonical(value: object) -> bytes | None:
    """The JSON text of ``value`` with sorted keys; None when orjson cannot write it (too deep)."""
    import orjson

    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None


def same_json(a: object, b: object) -> bool:
    # Python's == says True == 1 and 1 == 1.0; fixtures mean JSON, where they differ.
    text = canonical(a)
    return text is not None and text == canonical(b)


def show(value: object) -> str:
    text = canonical(value)
    return "<too deeply nested to show>" if text is None else text.decode()


# ---------------------------------------------------------------- rate (triples/rate/)


def import_rate() -> Any:
    import importlib

    try:
        return importlib.import_module("triples.rate")
    except ModuleNotFoundError as exc:
        if exc.name != "triples.rate":
            raise
        raise CommandError("this command is not available: no module triples.rate", EXIT_INTERNAL_ERROR) from None


def add_rate_arguments(parser: argparse.ArgumentParser) -> None:
    import_rate().add_arguments(parser)


def rate_command(args: argparse.Namespace) -> int:
    status: int = import_rate().main(args)
    return status


register(
    Command(
        "rate",
        summary="rate seeds: autoplay and best score per deal, with a summary",
        description="Rate seeds: how much the reference player and the best line clear on each deal.",
        example="""\
examples:
  triples rate --variant classic --seeds 0-99
  triples rate --seeds 1-100000 --format jsonl --out classic.jsonl --scheduler tcp://head:8786""",
        add_arguments=add_rate_arguments,
        run=rate_command,
    )
)


# ---------------------------------------------------------------- pick (triples/rate/pick.py)


def import_pick() -> Any:
    import_rate()  # the same refusal when the rate package is missing
    import importlib

    return importlib.import_module("triples.rate.pick")


def add_pick_arguments(parser: argparse.ArgumentParser) -> None:
    import_pick().add_arguments(parser)


def pick_command(args: argparse.Namespace) -> int:
    status: int = import_pick().main(args)
    return status


register(
    Command(
        "pick",
        summary="pick the first deals of a difficulty band: easy, medium or hard",
        description="""\
Pick deals by difficulty: rate seeds in order (as rate --difficulty does) and print the
first N of the band. easy: the high strategy reaches best; medium: the fair player, who
cannot see the stock, does and high does not; hard: only perfect information does.""",
        example="""exit status: 0 found N deals, 1 the range holds fewer (those found are printed), 2 bad input

examples:
  triples pick --variant sum15 --seeds 1-500 --band medium --count 5
  triples pick --variant classic --seeds 1-10000 --band hard --min-best 45 --out classic.jsonl --format jsonl""",
        add_arguments=add_pick_arguments,
        run=pick_command,
    )
)


# ---------------------------------------------------------------- calendar (triples/rate/calendar.py)


def import_calendar() -> Any:
    import_rate()  # the same refusal when the rate package is missing
    import importlib

    return importlib.import_module("triples.rate.calendar")


def add_calendar_arguments(parser: argparse.ArgumentParser) -> None:
    import_calendar().add_arguments(parser)


def calendar_command(args: argparse.Namespace) -> int:
    status: int = import_calendar().main(args)
    return status


register(
    Command(
        "calendar",
        summary="a deal for each date, by a weekly pattern of difficulty bands",
        description="""\
Give each date from --start a deal: the date's band comes from --pattern (seven bands are
Monday to Sunday; any other number repeats from the start date), and its deal is the lowest
seed of --seeds of that band that the variant's calendar does not use yet. The calendar is
kept in the --db store: dates already set never change, so running again only fills new ones.""",
        example="""\
exit status: 0 every date has a deal, 1 the range ran out of a band (the dates filled
so far are kept), 2 bad input

examples:
  triples calendar --start 2026-01-05 --days 14 --pattern easy,easy,medium,easy,medium,easy,hard
  triples calendar --variant sum15 --db season.db --start 2026-01-05 --days 91 \\
      --pattern easy,easy,medium,easy,medium,medium,hard --seeds 1-5000 --format csv""",
        add_arguments=add_calendar_arguments,
        run=calendar_command,
    )
)


# ---------------------------------------------------------------- bestrun (triples/pyramid.py)


def add_bestrun_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", metavar="CONFIG", nargs="+", help="a Uniscraper config (see docs/uniscraper.md)")


@command(
    "bestrun",
    summary="the best run of Uniscraper pyramid configs",
    description="""\
Print the best run of each Uniscraper config (the pyramid solitaire of
docs/uniscraper.md), one JSON list of positions per line, in the order given: the
longest run of free cards, each one rank from the last, and among the longest
the lexicographically smallest list of positions.

A CONFIG is the play card then positions 1..36, each one of 23456789TJQKA or
'.' for a card that is gone. An invalid config gets one line on stderr,
"triples bestrun: error: <config>: bad config: <reason>", and no line on
stdout; the other configs are still answered, and the exit status is 2.""",
    example="""\
example:
  triples bestrun KJQKA2A 'K.'
  [4,5,6,3,2,1]
  []""",
    arguments=add_bestrun_arguments,
)
def bestrun_command(args: argparse.Namespace) -> int:
    import json

    import orjson

    from triples.pyramid import ConfigError, best_run

    status = EXIT_OK
    for config in args.configs:
        try:
            positions = best_run(config)
        except ConfigError as exc:  # json quotes any config, even one with a lone surrogate
            report_error("bestrun", f"{json.dumps(config)}: {exc}")
            status = EXIT_BAD_INPUT
            continue
        write(orjson.dumps(positions) + b"\n")
    return status


# ---------------------------------------------------------------- serve (triples/service/)

SERVE_PACKAGES = {"fastapi", "starlette", "uvicorn", "pydantic_settings", "anyio", "h11"}


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port: {text!r} (an integer from 0 to 65535)")
    return int(text)


def worker_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid worker count: {text!r} (an integer from 1)")
    return int(text)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--workers", type=worker_count, default=1, help="server processes (default: 1)")
    parser.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log each request")
    parser.add_argument(
        "--db", metavar="FILE", help="serve GET /daily from the calendar in this store (triples calendar)"
    )


@command(
    "serve",
    summary="serve the interpreter over HTTP, with the deal explorer page",
    description="""\
Serve the interpreter over HTTP (docs/service.md) until Ctrl-C:

  POST /run     a JSON array of operations -> the JSON array of outputs,
                exactly what run() (and `triples run`) gives, one fresh
                session per request; bad requests get {"error": ...}
                with a 4xx status (400 invalid JSON or not an array,
                413 body over 1 MiB or more than 10,000 operations)
  GET  /health  {"ok": true, "version": ...}
  GET  /daily/{YYYY-MM-DD}, /daily/today
                the deal of the day from the calendar in --db FILE
  GET  /        the deal explorer: play a deal in the browser
  GET  /docs    the OpenAPI page

Listens on 127.0.0.1 (this machine only) unless --host says otherwise.
Needs the serve extra: pip install 'triples-solitaire[serve]'.""",
    example="""\
example:
  triples serve --port 8000
  curl -s localhost:8000/run -d '[["new","g",1],["play","g",[0,2,5]],["status","g"]]'
  then browse to http://127.0.0.1:8000/?variant=classic&seed=1""",
    arguments=add_serve_arguments,
)
def serve_command(args: argparse.Namespace) -> int:
    try:
        from triples.service.server import CannotListen, serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_PACKAGES:
            raise
        raise CommandError(f"needs the serve extra (no module {exc.name}): {install_hint('serve')}") from None
    if args.db is not None:
        serve_daily_from(args.db)
    try:
        serve(args.host, args.port, args.workers, args.access_log)
    except CannotListen as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def serve_daily_from(db: str) -> None:
    """Check the store of ``serve --db`` now (one line if it cannot be used) and hand it to the
    server's processes, which import the application by name."""
    from triples.service.daily import DB_ENVIRONMENT, check_store
    from triples.store import StoreError

    try:
        check_store(db)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    os.environ[DB_ENVIRONMENT] = os.path.abspath(db)


# ---------------------------------------------------------------- quartets (triples/quartets.py)


def add_quartets_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIN, help="the watched game; stdin when omitted or '-'"
    )


@command(
    "quartets",
    summary="could every player of a watched Quartets game have played fair?",
    description="""\
Read a watched Quartets game (docs/quartets.md) in the contest format: a first
line with the number of actions, then one action per line ('x A y sk yes',
'x A y sk no' or 'x Q s'). Print "yes" when some deal of the cards makes every
action fair; else "no" and, on the next line, the number of the first action
after which cheating is certain.

An action that breaks a rule other than the two kinds of cheating, or that no
deal allows even with lying, gets one line on stderr, "triples quartets:
error: action <n>: <reason>", and exit status 2.""",
    example="""\
example:
  printf '4\\n1 A 2 3C no\\n2 A 3 3A yes\\n2 A 4 3D yes\\n2 A 1 3C no\\n' | triples quartets
  no
  4""",
    arguments=add_quartets_arguments,
)
def quartets_command(args: argparse.Namespace) -> int:
    from triples.quartets import ContestFormatError, QuartetsError, judge, read_contest

    data = read_input(args.file)
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise CommandError(f"{label(args.file)}: not UTF-8 text") from None
    try:
        actions = read_contest(text)
    except ContestFormatError as exc:
        raise CommandError(f"{label(args.file)}: {exc}") from None
    try:
        verdict = judge(actions)
    except QuartetsError as exc:
        raise CommandError(str(exc)) from None
    write(verdict.contest_lines().encode())
    return EXIT_OK


# ---------------------------------------------------------------- the tool


TOOL_DESCRIPTION = "Triples: a rules engine and exact solver for sum solitaires."
TOOL_EPILOG = """\
exit status:
  0 ok, 1 a replayed fixture failed or pick found too few deals,
  2 bad input or usage, 3 internal error, 130 interrupted, 141 stdout closed early

examples:
  echo '[["new","g",1],["status","g"]]' | triples run
  triples replay fixtures/*.json
  triples run --help"""


def build_parser(chosen: str | None) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser | None]:
    """The parser of the tool, with the arguments of the ``chosen`` command only, and the
    chosen command's own parser."""
    from triples import __version__

    parser = argparse.ArgumentParser(
        prog="triples",
        description=TOOL_DESCRIPTION,
        epilog=TOOL_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"triples {__version__}")
    chosen_parser = None
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    for cmd in COMMANDS.values():
        sub = subparsers.add_parser(
            cmd.name,
            help=cmd.summary,
            description=cmd.description,
            epilog=cmd.example,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if cmd.name == chosen:
            cmd.add_arguments(sub)
            chosen_parser = sub
    return parser, chosen_parser


def chosen_command(argv: Sequence[str]) -> str | None:
    # The tool's own options take no values, so its first non-option word is the command.
    return next((word for word in argv if not word.startswith("-")), None)


def report_error(command_name: str | None, message: str) -> None:
    prog = "triples" if command_name is None else f"triples {command_name}"
    print(f"{prog}: error: {message}", file=sys.stderr)


def dispatch(argv: Sequence[str]) -> int:
    chosen = chosen_command(argv)
    name = chosen if chosen in COMMANDS else None
    try:
        parser, command_parser = build_parser(name)
        try:
            args, extras = parser.parse_known_args(argv)
            if extras:  # said by the command's parser, so that its usage line is the one shown
                (command_parser or parser).error(f"unrecognized arguments: {' '.join(extras)}")
        except SystemExit as exc:  # --help, --version and usage errors have printed already
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        return COMMANDS[args.command].run(args)
    except CommandError as exc:
        report_error(name, str(exc))
        return exc.status


def silence_stdout() -> None:
    """Point stdout at /dev/null: the reader has gone, and the interpreter's last flush of
    what is still buffered would otherwise fail again and print a warning."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return dispatch(list(sys.argv[1:] if argv is None else argv))
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        print(f"triples: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
