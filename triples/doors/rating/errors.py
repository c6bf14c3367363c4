"""What ``triples rate`` and ``triples pick`` refuse: the command line's one error model
(``triples.doors.kit.exits.CommandError``), so whichever door reports them, they are one line and exit 2."""

from __future__ import annotations

from triples.doors.kit.exits import EXIT_BAD_INPUT, CommandError


class BadInput(CommandError):
    """A request the command refuses: reported in one line, exit status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_BAD_INPUT)


class ResumeRefused(BadInput):
    """A rows file that cannot be resumed by this run (not rows, or rows made otherwise); the
    file is left byte for byte as it was."""


class ClusterError(CommandError):
    """The cluster could not do the work (its workers lack triples, or keep dying on a batch):
    reported in one line, exit status 2."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_BAD_INPUT)
