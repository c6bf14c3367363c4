"""``triples serve``: the interpreter over HTTP, and the deal explorer page.

``create_app`` loads FastAPI when first asked for: the command line imports
``triples.doors.service.command`` for ``serve``'s options and help, and that must not pay for
(or need) the web stack. ``ServiceSettings`` (``settings``) needs none of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from triples.doors.service.app import create_app
    from triples.doors.service.settings import ServiceSettings

__all__ = ["ServiceSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from triples.doors.service import app

        return app.create_app
    if name == "ServiceSettings":
        from triples.doors.service import settings

        return settings.ServiceSettings
    raise AttributeError(f"module 'triples.doors.service' has no attribute {name!r}")
