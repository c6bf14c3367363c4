"""How one seed is rated into a row: the core columns, then the opt-in analyses asked for.

Each seed is dealt twice from the same shuffle, exactly as ``["new", id, seed, variant]`` deals
it: one table is played out by the strategy, the other goes to the exact search. The opt-in
columns (``fair`` with ``--fair``; ``fair``, ``p_random`` and ``band`` with ``--difficulty``)
are each computed on the seed's own deal, dealt afresh, so they do not depend on what the row's
strategy did to its table. The engines are imported on first use, in whichever process rates
the batch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import replace
from types import MappingProxyType

from triples.doors.kit.rows_file import Value
from triples.doors.rating.rows import (
    BAND,
    FAIR,
    P_RANDOM,
    Provenance,
    RateOptions,
    Row,
    installed_version,
    row_values,
)
from triples.engines import search
from triples.engines.strategies import Strategy, play_out, strategy_named
from triples.model.deal import seeded
from triples.model.table import Table
from triples.model.variant import Variant
from triples.model.variants import parse_variant

# The band is defined against this strategy whatever the row's --strategy is: a player who
# follows the obvious rule of taking the highest cards, with no lookahead.
BAND_BASELINE = "high"

Analysis = Callable[[Variant, Row], Value | None]
"""An opt-in column's value for one seed, from the variant and the seed's row so far: its core
columns and the opt-in columns listed before this one (so a column can build on another)."""


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


def random_play_chance(variant: Variant, row: Row) -> float | None:
    """The chance that uniformly random slot moves clear the row's ``best``."""
    from triples.engines import difficulty

    try:
        return difficulty.p_random(dealt(variant, row.seed), row.best)
    except difficulty.TooManyStates:
        return None  # as the ``rating`` operation answers it: past the state limit the chance is unknown


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


# The analysis of each opt-in column of ``triples.doors.rating.rows.COLUMNS``, by name.
_ANALYSES: dict[str, Analysis] = {FAIR: fair_cleared, P_RANDOM: random_play_chance, BAND: difficulty_band}
ANALYSES: Mapping[str, Analysis] = MappingProxyType(_ANALYSES)


def rate_seed(variant: Variant, choose: Strategy, seed: int, made: Provenance | None = None) -> Row:
    """The core columns of a seed's row (``ms``: their cost), marked as ``made``."""
    made = made or Provenance("", "", "", "")
    start = time.perf_counter()
    played = seeded(variant, seed)
    result = search.analyse(played)  # only reads the table, so the same deal is then played out
    play_out(played, choose)
    ms = (time.perf_counter() - start) * 1000.0
    return Row(
        seed=seed,
        autoplay=played.cleared,
        best=result.best,
        gap=result.best - played.cleared,
        won=result.best == variant.deck_size,
        states=result.states,
        ms=round(ms, 3),
        version=made.version,
        variant=made.variant,
        strategy=made.strategy,
        analyses=made.analyses,
    )


def rate_batch(options: RateOptions, seeds: list[int]) -> list[Row]:
    """The rows of a batch of seeds: the task that every executor runs, wherever it runs."""
    return list(rate_rows(options, seeds))


def rate_rows(options: RateOptions, seeds: list[int]) -> Iterator[Row]:
    """Each seed's whole row as soon as it is done; its ``ms`` covers the opt-in columns too."""
    variant = parse_variant(options.variant)
    choose = strategy_named(options.strategy)
    made = options.provenance(installed_version())
    analyses = [(name, ANALYSES[name]) for name in options.columns]
    for seed in seeds:
        start = time.perf_counter()
        row = with_analyses(variant, rate_seed(variant, choose, seed, made), analyses)
        yield replace(row, ms=round((time.perf_counter() - start) * 1000.0, 3))


def with_analyses(variant: Variant, row: Row, analyses: list[tuple[str, Analysis]]) -> Row:
    """The row with each analysis's column added in turn; each sees the columns before it."""
    for name, analysis in analyses:
        row = Row.from_values({**row_values(row), name: analysis(variant, row)})
    return row
