"""Exit statuses of the ``triples`` tool, and the one error every command reports with, in one
place that every command can import.

0 ok; 1 a replayed fixture failed; 2 bad input or usage; 3 internal error (a defect: please
report it); 130 interrupted (Ctrl-C); 141 stdout closed by the reader (as if killed by SIGPIPE).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REPLAY_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 3
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141


class CommandError(Exception):
    """A failure a command reports on one stderr line, with the exit status it ends in.

    Kept apart from the interpreter's ``TriplesError``: this is the command line's model of a
    failure, whatever door raised it.
    """

    def __init__(self, message: str, status: int = EXIT_BAD_INPUT) -> None:
        super().__init__(message)
        self.status = status


class BadInput(CommandError):
    """A request a command refuses: reported in one line, exit status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_BAD_INPUT)
