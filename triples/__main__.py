"""``python -m triples``: the same tool as the ``triples`` console script."""

from __future__ import annotations

import sys

from triples.cli import main

if __name__ == "__main__":
    sys.exit(main())
