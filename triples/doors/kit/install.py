"""The distribution's name on the package index, and the install hints that name its extras.

The import name and the command are ``triples``; the distribution is published under a name of
its own, since ``triples`` on the package index is an unrelated project.
"""

from __future__ import annotations

DISTRIBUTION = "triples-solitaire"


def install_hint(extra: str) -> str:
    """The command that installs an optional extra, e.g. ``pip install 'triples-solitaire[serve]'``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def needs_extra(extra: str, missing: str | None) -> str:
    """The one-line refusal of a command whose extra is not installed (``missing``: the module
    that could not be imported)."""
    return f"needs the {extra} extra (no module {missing}): {install_hint(extra)}"
