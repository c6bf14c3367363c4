"""``triples serve``: the interpreter over HTTP, and the deal explorer page.

``create_app`` and ``ServiceSettings`` load FastAPI when first asked for: the command line
imports ``triples.doors.service.command`` for ``serve``'s options and help, and that must not pay for
(or need) the web stack.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from triples.doors.service.app import ServiceSettings, create_app

__all__ = ["ServiceSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from triples.doors.service import app

        return getattr(app, name)
    raise AttributeError(f"module 'triples.doors.service' has no attribute {name!r}")
