"""The command line: ``triples run``, ``record``, ``replay`` and the commands of other modules.

Commands are listed in ``COMMANDS``, each with the name of the module that holds its options
(``add_arguments``), its help (``DESCRIPTION``, ``EXAMPLE``) and its run (``main``). ``main``
gives argparse only the chosen command's arguments and imports only the chosen command's
module, so a command's module (and whatever it imports) is loaded only when that command runs.
Every failure ends as one line on stderr and an exit status, never a traceback.

Exit status: 0 ok; 1 a replayed fixture failed; 2 bad input or usage (unreadable file, invalid
JSON, not a list, malformed fixture, unknown option), or output that cannot be written (stdout
closed, a full disk); 3 internal error (a defect: please report it); 130 interrupted (Ctrl-C);
141 stdout closed by the reader (as if killed by SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from triples.doors.cli.reading import STDIN, report_error, report_line, write
from triples.doors.kit.exits import (  # re-exported: tests name them as triples.doors.cli's
    EXIT_BAD_INPUT,
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_REPLAY_FAILED,
    CommandError,
)
from triples.doors.kit.install import needs_extra
from triples.doors.kit.parsing import ArgumentParser, UsageError
from triples.doors.kit.process import tune_for_the_engines

__all__ = [
    "COMMANDS",
    "EXIT_BAD_INPUT",
    "EXIT_BROKEN_PIPE",
    "EXIT_INTERNAL_ERROR",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_REPLAY_FAILED",
    "TOOL_EPILOG",
    "Command",
    "CommandError",
    "fixture_text",
    "main",
]


@dataclass(frozen=True)
class Command:
    """A command of the tool: the one line ``triples --help`` shows for it, and the module that
    holds the rest (``DESCRIPTION``, ``EXAMPLE``, ``add_arguments(parser)``, ``main(args) -> int``),
    imported only when the command is chosen."""

    name: str
    summary: str
    module_name: str
    extra: str | None = None  # the optional extra the module needs, named in the install hint

    def module(self) -> ModuleType:
        """The command's module; a missing one is a one-line refusal, not a traceback."""
        try:
            return importlib.import_module(self.module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if self.module_name == missing or self.module_name.startswith(missing + "."):
                raise CommandError(f"this command is not available: no module {missing}", EXIT_INTERNAL_ERROR) from None
            if self.extra is None:
                raise
            raise CommandError(needs_extra(self.extra, missing)) from None

    @property
    def description(self) -> str:
        text: str = self.module().DESCRIPTION
        return text

    @property
    def example(self) -> str:
        text: str = self.module().EXAMPLE
        return text

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        self.module().add_arguments(parser)

    def run(self, args: argparse.Namespace) -> int:
        status: int = self.module().main(args)
        return status


# In the order ``triples --help`` lists them.
COMMANDS: dict[str, Command] = {
    command.name: command
    for command in (
        Command("run", "apply operations and print their outputs (the default command)", "triples.doors.cli.run"),
        Command("record", "run a file of operations and print it as a replayable fixture", "triples.doors.cli.record"),
        Command("replay", "replay fixtures and report PASS or FAIL for each", "triples.doors.cli.replay"),
        Command("rate", "rate seeds: autoplay and best score per deal, with a summary", "triples.doors.rating.rate"),
        Command("pick", "pick the first deals of a difficulty band: easy, medium or hard", "triples.doors.rating.pick"),
        Command("sweep", "rate seeds under every combination of varied rules", "triples.doors.rating.sweep"),
        Command(
            "calendar", "a deal for each date, by a weekly pattern of difficulty bands", "triples.doors.rating.calendar"
        ),
        Command(
            "explain", "why a deal is hard: where the fair player falls below the best", "triples.doors.cli.explain"
        ),
        Command("audit", "was each finished attempt of a day played blind?", "triples.doors.cli.audit"),
        Command(
            "calibrate", "the difficulty bands against real play, with a fitted map", "triples.doors.cli.calibrate"
        ),
        Command("bestrun", "the best run of Uniscraper pyramid configs", "triples.doors.cli.bestrun"),
        Command(
            "serve",
            "serve the interpreter over HTTP, with the deal explorer page",
            "triples.doors.service.command",
            extra="serve",
        ),
        Command(
            "quartets", "could every player of a watched Quartets game have played fair?", "triples.doors.cli.quartets"
        ),
    )
}


def __getattr__(name: str) -> Any:
    # ``fixture_text`` (the fixtures' layout) belongs to ``record``: loaded when asked for.
    if name == "fixture_text":
        from triples.doors.cli.record import fixture_text

        return fixture_text
    raise AttributeError(f"module 'triples.doors.cli' has no attribute {name!r}")


# ---------------------------------------------------------------- the tool


TOOL_DESCRIPTION = "Triples: a rules engine and exact solver for sum solitaires."
TOOL_EPILOG = """\
exit status:
  0 ok, 1 a replayed fixture failed or pick found too few deals,
  2 bad input or usage, or output that cannot be written (stdout closed, a full
  disk), 3 internal error, 130 interrupted, 141 stdout closed early

examples:
  echo '[["new","g",1],["status","g"]]' | triples run
  triples replay fixtures/*.json
  triples run --help"""


class CommandsFormatter(argparse.RawDescriptionHelpFormatter):
    """The tool's help: each command's summary beside its name, the longest name included
    (argparse measures a command's name as if it were two columns less indented than it is)."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        longest = max(map(len, COMMANDS), default=0)
        self._action_max_length = max(self._action_max_length, self._current_indent + 2 + longest)


def build_parser(chosen: str | None) -> tuple[ArgumentParser, ArgumentParser | None]:
    """The parser of the tool and the chosen command's own parser: with a ``chosen`` command,
    that command alone (the words to parse name it), else every command for the tool's help."""
    from triples import __version__

    parser = ArgumentParser(
        prog="triples",
        description=TOOL_DESCRIPTION,
        epilog=TOOL_EPILOG,
        formatter_class=CommandsFormatter,
    )
    parser.add_argument("--version", action="version", version=f"triples {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands", required=True)
    if chosen is None:  # the tool's help lists every command
        for cmd in COMMANDS.values():
            subparsers.add_parser(cmd.name, help=cmd.summary)
        return parser, None
    # The chosen command alone: each parser costs argparse's look-ups of translations (start-up).
    cmd = COMMANDS[chosen]
    chosen_parser = subparsers.add_parser(
        cmd.name,
        help=cmd.summary,
        description=cmd.description,
        epilog=cmd.example,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    cmd.add_arguments(chosen_parser)
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
        report_line(f"{exc.prog}: error: {exc}")
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


def standard_streams() -> None:
    """Hold file descriptors 0, 1 and 2 open, whatever the caller closed (``>&-``, ``2>&-``).

    A closed one would be taken by the next file opened (a rows file would become "stderr"),
    and Python leaves ``sys.stdout`` or ``sys.stderr`` as None, where ``print`` writes to
    stdout instead. So a closed stdin or stderr is held by ``/dev/null`` (what is written to
    stderr is lost, the exit status still says what happened), and a closed stdout by
    ``/dev/null`` opened for reading only: what the command writes there fails as a write to a
    closed stdout does (EBADF), and is reported on stderr in one line.
    """
    for fd, mode in ((0, os.O_WRONLY), (1, os.O_RDONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
        except OSError:
            held = os.open(os.devnull, mode)
            if held != fd:
                os.dup2(held, fd)
                os.close(held)
            if fd == 1:
                sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (for the whole run)
            elif fd == 2:
                sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 (for the whole run)


def cannot_write(exc: OSError) -> str:
    """The one line for output that cannot be written: stdout closed or full, or a file."""
    where = f"cannot write {exc.filename}" if exc.filename else "cannot write the output"
    return f"{where}: {exc.strerror or exc}"


def without_pydantic_plugins() -> None:
    """Tell pydantic, before it builds a model, that this process uses no plugins.

    To find plugins pydantic imports ``importlib.metadata`` (and with it ``email``, ``zipfile``,
    ``csv``, ...) and reads every installed distribution's metadata when it builds its first
    model: about a tenth of the command's start-up, for plugins the command line never uses.
    ``PYDANTIC_DISABLE_PLUGINS`` (pydantic's own switch, left as the user set it) skips the
    reading; its loader module is then replaced by one that finds none, as pydantic's would,
    which skips the imports too. Only the command line's process does this: the library
    (``import triples``) leaves plugins to its user.
    """
    if os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__") not in ("__all__", "1", "true"):
        return  # some plugins by name: pydantic's loader decides which
    loader = ModuleType("pydantic.plugin._loader", "No pydantic plugins: the command line uses none.")
    loader.get_plugins = no_plugins  # type: ignore[attr-defined]
    sys.modules.setdefault(loader.__name__, loader)


def no_plugins() -> tuple[()]:
    return ()


def main(argv: Sequence[str] | None = None) -> int:
    standard_streams()
    without_pydantic_plugins()
    tune_for_the_engines()
    try:
        status = dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # here, not at exit, so that a reader gone before the last write is seen
        return status
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except OSError as exc:  # stdout closed (EBADF) or full (ENOSPC), or a file that cannot be written
        silence_stdout()  # what is still buffered would fail again at exit
        report_error(None, cannot_write(exc))
        return EXIT_BAD_INPUT
    except Exception as exc:
        report_line(f"triples: internal error: {type(exc).__name__}: {exc}")
        return EXIT_INTERNAL_ERROR
