"""Triples: a rules engine and exact solver for sum solitaires."""

from __future__ import annotations

from triples.api import run

__all__ = ["run"]
__version__ = "0.1.0"
