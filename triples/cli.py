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
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

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
from triples.jsonio import json_kind

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


def parse_json(data: bytes, source: str) -> Any:
    from triples.jsonio import JSONInputError, loads

    try:
        return loads(data)
    except JSONInputError as exc:
        raise CommandError(f"{source}: {exc}") from None


def read_operations(path: str) -> list[Any]:
    """The JSON array of operations in ``path`` (``-``: stdin)."""
    operations = parse_json(read_input(path), label(path))
    if not isinstance(operations, list):
        raise CommandError(f"{label(path)}: expected a JSON array of operations, got {json_kind(operations)}")
    return operations


def write(data: bytes) -> None:
    from triples.batch import write_all

    write_all(sys.stdout.buffer, data)


# ---------------------------------------------------------------- run


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIN, help="the operations; stdin when omitted or '-'"
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="read JSON Lines from the first line on, answering each line as soon as it arrives "
        "(without it, the first answer waits for the second line, which shows that the input is lines)",
    )


RUN_DESCRIPTION = """\
Apply operations and print their outputs. FILE (or stdin) holds one of three
shapes, and the shape decides the mode:

  one JSON array of operations      -> one JSON array of outputs (one session)
  JSON Lines, one operation a line  -> one output a line, all in one session,
                                       each answered as soon as its line arrives
  JSON Lines, one array of          -> one output array a line, each line
  operations a line                    its own fresh session

The input is read as lines when it holds more than one non-blank line and its
first non-blank line is a complete JSON value. Blank lines are skipped (they
get no answer); a line that is not JSON is answered with "error: invalid JSON:
..." and the stream goes on. Memory does not grow with the length of a stream.

--jsonl reads lines from the start, so a program that waits for each answer
before writing the next line (a coprocess) gets the first one at once.
`triples` and `python -m triples` with no command do what `triples run` does."""


@command(
    "run",
    summary="apply operations and print their outputs (the default command)",
    description=RUN_DESCRIPTION,
    example="""\
examples:
  echo '[["new","g",1],["status","g"]]' | triples run
  triples run operations.json
  printf '%s\\n' '["new","g",1]' '["moves","g"]' | triples run
  printf '%s\\n' '[["new","g",1],["best","g"]]' '[["new","g",2],["best","g"]]' | triples
  triples --jsonl < operations.jsonl""",
    arguments=add_run_arguments,
)
def run_command(args: argparse.Namespace) -> int:
    from triples.batch import answer
    from triples.jsonio import JSONInputError

    source = label(args.file)
    if args.file == STDIN:
        stream = standard_input()
    else:
        try:
            stream = open(args.file, "rb")  # noqa: SIM115 (only the opening is a user's mistake to report)
        except OSError as exc:
            raise CommandError(f"{source}: {exc.strerror or exc}") from None
    try:
        answer(stream, sys.stdout.buffer, lines=args.jsonl)
    except JSONInputError as exc:
        raise CommandError(f"{source}: {exc}") from None
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    return EXIT_OK


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


# ---------------------------------------------------------------- sweep (triples/rate/sweep.py)


def import_sweep() -> Any:
    import_rate()  # the same refusal when the rate package is missing
    import importlib

    return importlib.import_module("triples.rate.sweep")


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    import_sweep().add_arguments(parser)


def sweep_command(args: argparse.Namespace) -> int:
    status: int = import_sweep().main(args)
    return status


register(
    Command(
        "sweep",
        summary="rate seeds under every combination of varied rules",
        description="""\
Sweep rules: rate the same seeds under every combination of the --vary values laid over the
--variant base (the first --vary outermost), one row per rule set with its canonical name,
mean best, win rates with 95% Wilson intervals, and with --fair/--difficulty the fair player
and the bands. Each row is what triples rate reports for that variant and those seeds.""",
        example="""\
examples:
  triples sweep --variant classic --vary target=18..22 --vary slots=9..11 --seeds 1-1000 --plot sweep.png
  triples sweep --variant sum15 --vary per_move=2,3 --seeds 1-500 --difficulty --plot hard.png --measure hard
  triples sweep --variant '{"base": "pairs", "suits": 2}' --vary court=10/10/10,11/12/13 --seeds 1-200 \\
      --format csv --out pairs.csv""",
        add_arguments=add_sweep_arguments,
        run=sweep_command,
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

SERVE_PACKAGES = {
    "fastapi",
    "starlette",
    "uvicorn",
    "pydantic_settings",
    "anyio",
    "h11",
    "prometheus_client",
    "fastapi_offline",
}


def port_number(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"invalid port: {text!r} (an integer from 0 to 65535)")
    return int(text)


def worker_count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"invalid worker count: {text!r} (an integer from 1)")
    return int(text)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < 1e9:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"invalid time limit: {text!r} (a number of seconds above 0)")
    return value


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)"
    )
    parser.add_argument("--port", type=port_number, default=8000, help="port to listen on (default: 8000)")
    parser.add_argument("--workers", type=worker_count, default=1, help="server processes (default: 1)")
    parser.add_argument(
        "--time-limit",
        type=seconds,
        default=10.0,
        metavar="SECONDS",
        help="a request still running after this long is answered 503 and its work stops (default: 10)",
    )
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
                413 body over 1 MiB or more than 10,000 operations);
                503 past the time limit, or when too many requests wait
                (with Retry-After)
  GET  /health  {"ok": true, "version": ...}
  GET  /metrics counters in Prometheus's text format
  GET  /daily/{YYYY-MM-DD}, /daily/today
                the deal of the day from the calendar in --db FILE
  GET  /        the deal explorer: play a deal in the browser
  GET  /docs    the OpenAPI page (works offline)

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
        serve(args.host, args.port, args.workers, args.access_log, args.time_limit)
    except CannotListen as exc:
        raise CommandError(str(exc)) from None
    return EXIT_OK


def serve_daily_from(db: str) -> None:
    """Check the store of ``serve --db`` now (one line if it cannot be used) and hand it to the
    server's processes, which import the application by name."""
    from triples.store import SERVE_DB_VARIABLE, StoreError, open_store

    try:
        open_store(db).close()  # a missing store is made now
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    os.environ[SERVE_DB_VARIABLE] = os.path.abspath(db)


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


class UsageError(Exception):
    """A command line argparse refuses: reported on one line, ``<prog>: error: <message>``."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, except that a usage error raises instead of printing the usage: the
    usage is for --help, an error is one line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(self.prog, message)


def build_parser(chosen: str | None) -> tuple[ArgumentParser, ArgumentParser | None]:
    """The parser of the tool, with the arguments of the ``chosen`` command only, and the
    chosen command's own parser."""
    from triples import __version__

    parser = ArgumentParser(
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


TOOL_OPTIONS = frozenset({"-h", "--help", "--version"})
RUN_OPTIONS = frozenset({STDIN, "--jsonl"})


def chosen_command(argv: Sequence[str]) -> str | None:
    # The tool's own options take no values, so its first non-option word is the command.
    return next((word for word in argv if not word.startswith("-")), None)


def looks_like_a_file(word: str) -> bool:
    return os.path.exists(word) or "/" in word or "." in word


def with_command(argv: list[str]) -> list[str]:
    """``argv`` with the command it means: no command means ``run`` (of stdin, or of the files
    named); a word that is neither a command nor a file is an unknown command."""
    chosen = chosen_command(argv)
    if chosen in COMMANDS or argv[0] in TOOL_OPTIONS:
        return argv
    if chosen is None:  # options only: run's (``-``, ``--jsonl``), or ones nobody knows
        unknown = [word for word in argv if word not in RUN_OPTIONS]
        if unknown:
            raise UsageError("triples", f"unrecognized arguments: {' '.join(unknown)}")
        return ["run", *argv]
    if looks_like_a_file(chosen):
        return ["run", *argv]
    raise UsageError("triples", f"unknown command '{chosen}', and no such file (triples --help lists the commands)")


def joined_values(argv: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with ``--option -5-3`` written ``--option=-5-3`` where the option takes a value:
    argparse would read a value that starts with '-' (and is not a plain negative number) as
    another option, and say the first one has no value."""
    takes_value = {
        name
        for name, action in parser._option_string_actions.items()  # no public listing of a parser's options
        if action.nargs is None and name.startswith("--")
    }
    known = set(parser._option_string_actions)
    joined: list[str] = []
    for word in argv:
        previous = joined[-1] if joined else ""
        if previous in takes_value and word.startswith("-") and word not in known and "=" not in previous:
            joined[-1] = f"{previous}={word}"
        else:
            joined.append(word)
    return joined


def short_help() -> str:
    parser, _ = build_parser(None)
    return parser.format_help()


def report_error(command_name: str | None, message: str) -> None:
    prog = "triples" if command_name is None else f"triples {command_name}"
    print(f"{prog}: error: {message}", file=sys.stderr)


def stdin_is_a_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def dispatch(argv: list[str]) -> int:
    name: str | None = None
    try:
        if not argv and stdin_is_a_terminal():  # nothing piped in: say what the tool does, not wait
            write(short_help().encode())
            return EXIT_OK
        argv = with_command(argv) if argv else ["run"]
        chosen = chosen_command(argv)
        name = chosen if chosen in COMMANDS else None
        parser, command_parser = build_parser(name)
        if command_parser is not None:
            argv = joined_values(argv, command_parser)
        try:
            args, extras = parser.parse_known_args(argv)
            if extras:  # said by the command's parser, so that its name is the one shown
                (command_parser or parser).error(f"unrecognized arguments: {' '.join(extras)}")
        except SystemExit as exc:  # --help and --version have printed already
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        return COMMANDS[args.command].run(args)
    except UsageError as exc:
        print(f"{exc.prog}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
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
