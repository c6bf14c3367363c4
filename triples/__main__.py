from __future__ import annotations

import sys

from triples.cli import main

sys.exit(main())
