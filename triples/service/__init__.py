"""``triples serve``: the interpreter over HTTP, and the deal explorer page.

Importing this package loads FastAPI; the command line imports it only for ``serve``.
"""

from __future__ import annotations

from triples.service.app import ServiceSettings, create_app

__all__ = ["ServiceSettings", "create_app"]
