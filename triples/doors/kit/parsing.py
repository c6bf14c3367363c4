"""The command line's one argparse error model: a usage error raises ``UsageError``, which the
command line reports on one line (``<prog>: error: <message>``, exit status 2), instead of
argparse printing the usage block and exiting from deep inside a parse. Every command's parser
is one of these (argparse makes subcommands' parsers of their parent's class)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


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

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse drops an OSError here; a reader gone before --help or --version is a closed
        # pipe like any other (exit 141), so it is let through.
        if message:
            (file or sys.stderr).write(message)
