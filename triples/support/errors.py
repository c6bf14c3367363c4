"""The one exception family the interpreter turns into ``"error: ..."`` strings."""

from __future__ import annotations


class TriplesError(Exception):
    """A rejected request; the message is the text after ``error: ``."""
