"""The opt-in columns of ``triples rate``: ``fair`` (``--fair``), ``p_random`` and ``band``
(``--difficulty``, which brings ``fair`` along since the band is read off it).

Each is computed on the seed's own deal, dealt afresh, so it does not depend on what the row's
strategy did to its table. The engines (``triples.engines.fair`` through the strategy registry, and
``triples.engines.difficulty``) are imported on first use, in whichever process rates the batch.
"""

from __future__ import annotations

from triples.doors.rating.errors import BadInput
from triples.doors.rating.rows import NAMED_ANALYSES, Column, Row, register_column
from triples.engines.strategies import play_out, strategy_named
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variant import Variant

FAIR = "fair"
P_RANDOM = "p_random"
BAND = "band"
# What --fair and --difficulty add to a row, in the order the columns are computed and written.
FAIR_COLUMNS: tuple[str, ...] = (FAIR,)
DIFFICULTY_COLUMNS: tuple[str, ...] = (FAIR, P_RANDOM, BAND)
# The band is defined against this strategy whatever the row's --strategy is: a player who
# follows the obvious rule of taking the highest cards, with no lookahead.
BAND_BASELINE = "high"


def dealt(variant: Variant, seed: int) -> Table:
    """The seed's deal, as ``["new", id, seed, variant]`` deals it."""
    return seeded(variant, seed)


def cleared_by(variant: Variant, seed: int, strategy: str) -> int:
    table = dealt(variant, seed)
    play_out(table, strategy_named(strategy))
    return table.cleared


def fair_cleared(variant: Variant, row: Row) -> int:
    """The cards the ``fair`` strategy clears on the seed's deal."""
    return cleared_by(variant, row.seed, FAIR)


def random_play_chance(variant: Variant, row: Row) -> float:
    """The chance that uniformly random slot moves clear the row's ``best``."""
    from triples.engines import difficulty

    try:
        return difficulty.p_random(dealt(variant, row.seed), row.best)
    except difficulty.TooManyStates as exc:
        raise BadInput(f"--difficulty: seed {row.seed} of {variant.name}: {exc}") from None


def difficulty_band(variant: Variant, row: Row) -> str:
    """``easy``, ``medium`` or ``hard`` from what ``high``, ``fair`` and perfect information clear."""
    from triples.engines import difficulty

    fair = row.extra.get(FAIR)
    if not isinstance(fair, int):  # computed before the band whenever --difficulty asks for both
        fair = fair_cleared(variant, row)
    high = cleared_by(variant, row.seed, BAND_BASELINE)
    return difficulty.band(high=high, fair=fair, best=row.best)


def has_random_play_chance(variant: Variant) -> bool:
    """Whether ``p_random`` is within reach on the variant's deals. With the whole deck on the
    table at once (grid100) random play can go astronomically many ways from the deal."""
    return variant.slots < variant.deck_size


register_column(Column(FAIR, int, 4), fair_cleared)
register_column(Column(P_RANDOM, float, 8, digits=4), random_play_chance)
register_column(Column(BAND, str, 6), difficulty_band)
NAMED_ANALYSES[FAIR_COLUMNS] = "fair"
NAMED_ANALYSES[DIFFICULTY_COLUMNS] = "difficulty"
