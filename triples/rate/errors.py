"""What ``triples rate`` refuses."""

from __future__ import annotations

from triples.errors import TriplesError


class BadInput(TriplesError):
    """A request ``triples rate`` refuses: reported in one line, exit status 2."""


class ClusterError(TriplesError):
    """The cluster could not do the work (its workers lack triples, or keep dying on a batch):
    reported in one line, exit status 2."""
