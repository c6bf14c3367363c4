"""Golden playthroughs: what the engines answer on hundreds of deals per rule set, pinned in files.

Each file of ``fixtures/golden/`` holds one rule set: a first line naming it (the variant as
``new`` takes it), then one line per deal with what ``run()`` answers for ``solve`` (the exact
line, not only its length) and for ``autoplay`` with every strategy, and what the search
proved on the fresh deal (``best``, its starting ``bound`` and the ``states`` it expanded).
The fair player, the slowest, is pinned on the first ``FAIR_DEALS`` deals of each file.

``python -m tests.golden`` writes the files anew from the engines as they are: run it only
when a change of answers is meant, and say so in the commit.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson

from triples import run
from triples.engines.search import analyse
from triples.model.deal import deal
from triples.model.variants import parse_variant

GOLDEN = Path(__file__).resolve().parent.parent / "fixtures" / "golden"
STRATEGIES = ("high", "first", "lookahead", "fair")
FAIR_DEALS = 100

# (file stem, the variant as ``new`` takes it, how many deals from seed 1)
RULE_SETS: tuple[tuple[str, Any, int], ...] = (
    ("classic", "classic", 300),
    ("pairs", "pairs", 300),
    ("quads", "quads", 300),
    ("sum15", "sum15", 300),
    ("grid", "grid", 300),
    ("grid100", "grid100", 200),
    ("classic-slots11-target21", {"base": "classic", "slots": 11, "target": 21}, 200),
    ("pairs-court-11-11-11-target12", {"base": "pairs", "court": [11, 11, 11], "target": 12}, 200),
    # More slots than cards: every card is dealt at once and the slots past the deck stay empty.
    ("sum15-one-suit-12-slots", {"base": "sum15", "suits": 1, "slots": 12}, 200),
    ("classic-one-suit-16-slots-target15", {"base": "classic", "suits": 1, "slots": 16, "target": 15}, 200),
    (
        "numeric-two-suits-top7-20-slots-four-a-move",
        {"base": "sum15", "suits": 2, "top_rank": 7, "slots": 20, "per_move": 4, "target": 14},
        200,
    ),
)


def playthrough(spec: Any, seed: int, *, with_fair: bool) -> dict[str, Any]:
    """One deal's line of a golden file, computed afresh."""
    proved = analyse(deal(parse_variant(spec), seed))
    operations: list[Any] = [["new", "g", seed, spec], ["solve", "g"]]
    for name in STRATEGIES:
        if name != "fair" or with_fair:
            operations += [["new", "g", seed, spec], ["autoplay", "g", name]]
    outputs = run(operations)
    solved = outputs[1]
    autoplays = outputs[3::2]
    names = [name for name in STRATEGIES if name != "fair" or with_fair]
    return {
        "seed": seed,
        "best": proved.best,
        "bound": proved.bound,
        "states": proved.states,
        "solve": solved,
        "autoplay": dict(zip(names, autoplays, strict=True)),
    }


def dumps(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def write_all() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for stem, spec, deals in RULE_SETS:
        lines = [dumps({"variant": spec, "name": parse_variant(spec).name, "deals": deals})]
        lines += [dumps(playthrough(spec, seed, with_fair=seed <= FAIR_DEALS)) for seed in range(1, deals + 1)]
        (GOLDEN / f"{stem}.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        print(f"{stem}: {deals} deals", file=sys.stderr)


if __name__ == "__main__":
    write_all()
