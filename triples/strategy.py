"""Auto-play strategies, looked up by name; each picks one of the current legal moves."""

from __future__ import annotations

from collections.abc import Callable

from triples import rules
from triples.errors import TriplesError
from triples.table import Move, Table

Strategy = Callable[[Table], "Move | None"]
STRATEGIES: dict[str, Strategy] = {}


class UnknownStrategy(TriplesError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown strategy '{name}'")


def strategy(name: str) -> Callable[[Strategy], Strategy]:
    def register(choose: Strategy) -> Strategy:
        STRATEGIES[name] = choose
        return choose

    return register


def strategy_named(name: str) -> Strategy:
    try:
        return STRATEGIES[name]
    except KeyError:
        raise UnknownStrategy(name) from None


def play_out(table: Table, choose: Strategy) -> list[Move]:
    """Play ``choose``'s moves until none is legal; the moves made, in order."""
    played: list[Move] = []
    while (move := choose(table)) is not None:
        table.push(move)
        played.append(move)
    return played


@strategy("high")
def high_cards_first(table: Table) -> Move | None:
    """The move whose values, sorted high to low, are largest; ties to the smallest slot list."""
    variant = table.variant
    counts = rules.histogram(table.values, variant.max_value)
    combos = rules.value_combos(counts, variant.per_move, variant.target)
    if not combos:
        return None
    # Every slot move of one value combination shares its value list, so the winner is the
    # best combination realised by its lowest slots.
    top = max(combos, key=lambda combo: combo[::-1])
    return rules.first_slots(top, rules.slots_by_value(table.values))
