"""How hard a deal is for people: the random player's chance of ``best``, and a difficulty band.

``p_random`` is the exact probability that a player who picks uniformly at random among the
legal slot moves (every entry of ``moves`` equally likely) ends with ``best`` cleared. It is a
memoised recursion over the same states as the search: the stock position plus how many cards
of each value lie on the table.

Why that state is enough for a random player, who chooses among *slot* moves: a slot move takes
some value combination, and how many slot moves realise a combination depends only on the value
counts (a product of binomials, C(cards of value v, times v is used) over the combination's
values). Whichever of those slot moves is played, the table afterwards holds the same multiset of
values (the old one, minus the combination, plus the next cards of the stock), so the chance of
each next value state depends only on the current value state, not on which slot holds what. The
slot-level chain therefore lumps exactly into the value-level chain, with each value combination
weighted by its number of slot moves.

States from which the goal is out of reach (the cards left cannot make enough moves, by the
value-sum argument) are worth 0 without being expanded, and any state that has already cleared
the goal is worth 1. Unlike the search, which stops once a line reaches its upper bound, this
must weigh every line that can still reach the goal, so it visits about the states an
exhaustive best would (benchmarks/difficulty.py measures both).

``band`` sorts a deal into ``easy`` (the ``high`` strategy reaches ``best``), ``medium`` (a
player who sees only the table, playing ``fair``, can reach it but ``high`` does not) and
``hard`` (only perfect information reaches it).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, Literal, TypeVar

from triples.engines import search
from triples.engines.strategies import Strategy, play_out, strategy_named
from triples.model.derived import derived
from triples.model.table import Table
from triples.model.variant import Variant
from triples.support import caches, deadline
from triples.support.errors import TriplesError

Band = Literal["easy", "medium", "hard"]
BANDS: tuple[Band, ...] = ("easy", "medium", "hard")

# The recursion runs once with floats (fast) and once with Fractions (exact); the code is the
# same, only the numbers it is given as 0 and 1 differ.
Chance = TypeVar("Chance", float, Fraction)

# Far above what any deal of the registered variants but grid100 needs (the most seen over
# 500 seeds per variant is on docs/benchmarks.md, under 3,100); a fully dealt grid100 table needs
# astronomically many and is refused after some 3 to 10 seconds.
DEFAULT_MAX_STATES = 200_000
# The deadline is checked once per so many expanded states: 1024 on rules with few
# combinations, more often with more (``triples.support.deadline.check_mask``).


class TooManyStates(TriplesError):
    """The position's random-play state space is larger than the caller allowed."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"p_random needs more than {limit} states from this position")
        self.limit = limit


@dataclass(frozen=True)
class _Moves:
    """What the recursion needs about a variant, derived once per variant.

    A state's value counts are one int, ``key``: value v owns a field at ``shift[v]`` holding
    its count in binary, with a guard bit above it. Taking a combination's cards subtracts a
    constant (its ``need``) and a refilled card of value w adds ``1 << shift[w]``; a combination
    is playable when the subtraction borrows from no field, which one test on the guard bits
    tells: ``((key | guards) - need) & guards == guards``.
    """

    per_move: int
    target: int
    top: int
    shift: tuple[int, ...]
    mask: int  # a count field's bits, at the bottom
    guards: int
    # Per combination: its need, and each value it uses as (field shift, times used).
    combos: tuple[tuple[int, tuple[tuple[int, int], ...]], ...]
    # binomial[n][m] = C(n, m) for every count n a value can show and m up to per_move
    binomial: tuple[tuple[int, ...], ...]
    position_shift: int
    # Per table (``key``): the playable combinations, each as its need and its number of slot
    # moves, and the total of those: a pure function of the table, which recurs under many
    # stock positions and across deals (``_RandomPlay.options_of``).
    options: caches.Memo[int, Options]

    def memos(self) -> tuple[caches.Memo[int, Options]]:
        """Its memo, counted with it against the caches' budget (``triples.support.caches``)."""
        return (self.options,)


# A table's options: every slot move's count, and per playable combination (need, slot moves).
Options = tuple[int, tuple[tuple[int, int], ...]]
# Tables whose options each variant keeps (the oldest dropped first past it).
OPTIONS_KEPT = 200_000


def _build_moves(variant: Variant) -> _Moves:
    tables = derived(variant)
    layout = tables.counts  # the shared count layout: binary fields, a guard bit above each
    shift = layout.shift
    combos = tuple(
        (need, tuple((shift[v], m) for v, m in uses)) for need, uses in zip(layout.needs, tables.uses, strict=True)
    )
    return _Moves(
        per_move=tables.per_move,
        target=tables.target,
        top=tables.top,
        shift=shift,
        mask=layout.mask,
        guards=layout.guards,
        combos=combos,
        binomial=tables.binomial,
        position_shift=layout.end,
        options=caches.Memo("random play options", OPTIONS_KEPT),
    )


_moves_for = caches.per_variant("random play moves", _build_moves)


class _RandomPlay(Generic[Chance]):
    """One computation from one position. The table is only read."""

    def __init__(self, table: Table, goal: int, zero: Chance, one: Chance, max_states: int) -> None:
        self.moves = moves = _moves_for(table.variant)
        moves.options.trim()
        caches.settle()
        self.options = moves.options.data
        self.goal = goal
        self.zero: Chance = zero
        self.one: Chance = one
        self.max_states = max_states
        self.deck = table.deck_values
        self.size = len(self.deck)
        self.start = table.next_card
        # Per stock position p at or past the start: what the refill from p adds to the key.
        k = moves.per_move
        self.added = [0] * self.start + [
            sum(1 << moves.shift[w] for w in self.deck[p : p + k]) for p in range(self.start, self.size + 1)
        ]
        self.on_table = sum(1 for v in table.values if v)
        self.value = sum(table.values) + sum(self.deck[table.next_card :])
        self.key = sum(1 << moves.shift[v] for v in table.values if v)
        # cleared = base + stock position - cards on the table (0 for tables built by push/pop)
        self.base = table.cleared - (table.next_card - self.on_table)
        self.memo: dict[int, Chance] = {}
        # States with an empty stock, keyed by counts and cards still wanted. They recur within
        # a call, and would across deals too (grid: 3,000 distinct among 45,000 visits over 40
        # deals), but a memo kept across calls would make ``states``, and so whether
        # ``max_states`` is exceeded, depend on what the process computed before: per call.
        self.tails: dict[int, Chance] = {}
        self.states = 0
        self.check_mask = deadline.check_mask(len(moves.combos))

    def run(self) -> Chance:
        deadline.check()
        moves, p, n = self.moves, self.start, self.on_table
        cleared = self.base + p - n
        if cleared >= self.goal:
            return self.one
        more = min((n + self.size - p) // moves.per_move, self.value // moves.target)
        if cleared + more * moves.per_move < self.goal:
            return self.zero
        return self.chance(p, n, self.value, self.key)

    def options_of(self, key: int) -> Options:
        """The table's options (``_Moves.options``): per playable combination, its slot
        moves, a product of binomials (module docstring)."""
        moves = self.moves
        guards, binomial, mask = moves.guards, moves.binomial, moves.mask
        guarded = key | guards
        playable = []
        for need, uses in moves.combos:
            if (guarded - need) & guards == guards:
                ways = 1
                for at, m in uses:
                    ways *= binomial[(key >> at) & mask][m]
                playable.append((need, ways))
        found = self.options[key] = (sum(ways for _, ways in playable), tuple(playable))
        return found

    def chance(self, p: int, n: int, value: int, key: int) -> Chance:
        """The probability of reaching the goal from the state (stock position ``p``, ``n`` cards
        on the table, ``value`` the worth of every card not yet cleared, counts in ``key``).

        The caller has checked that the goal is not reached yet, still in reach, and that the
        state is not in the memo."""
        moves, memo = self.moves, self.memo
        self.states += 1
        if self.states > self.max_states:
            raise TooManyStates(self.max_states)
        if not self.states & self.check_mask:
            deadline.check()
        shift = moves.position_shift
        k = moves.per_move
        added = self.added[p]
        child_p = p + k if p + k < self.size else self.size
        child_n, child_value = n - k + child_p - p, value - moves.target
        child_cleared = self.base + child_p - child_n
        if child_p == self.size:
            # An empty stock: the state no longer depends on the deal, only on the counts and
            # on how many cards are still wanted, so states reached by several lines share it.
            child_memo, child_shifted = self.tails, (self.goal - child_cleared) << shift
        else:
            child_memo, child_shifted = memo, child_p << shift
        # Whether a child can still reach the goal depends on the cards left only, the same for
        # every child: m more moves need m * k cards and m * target of value.
        cards_left = child_n + self.size - child_p
        child_open = child_cleared + min(cards_left // k, child_value // moves.target) * k >= self.goal
        child_done = child_cleared >= self.goal
        zero, one = self.zero, self.one
        options = self.options.get(key)
        if options is None:
            options = self.options_of(key)
        total, playable = options
        weighted = zero
        for need, ways in playable:
            if child_done:
                weighted += ways * one
            elif child_open:
                child = key - need + added
                found = child_memo.get(child | child_shifted)
                if found is None:
                    found = self.chance(child_p, child_n, child_value, child)
                weighted += ways * found
        # No legal move: the game is over short of the goal.
        result = weighted / total if total else zero
        if p == self.size:
            self.tails[key | (self.goal - self.base - p + n) << shift] = result
        else:
            memo[key | p << shift] = result
        return result


def _goal(table: Table, goal: int | None) -> int:
    return search.best_cleared(table) if goal is None else goal


def _float_play(table: Table, goal: int | None, max_states: int) -> _RandomPlay[float]:
    return _RandomPlay(table, _goal(table, goal), 0.0, 1.0, max_states)


def p_random_exact(table: Table, goal: int | None = None, *, max_states: int = DEFAULT_MAX_STATES) -> Fraction:
    """The exact probability that uniformly random slot moves from here reach ``goal`` cleared
    (cards already cleared included); ``goal`` defaults to the position's exact ``best``.

    Raises TooManyStates when more than ``max_states`` states would be expanded."""
    return _RandomPlay(table, _goal(table, goal), Fraction(0), Fraction(1), max_states).run()


def p_random(table: Table, goal: int | None = None, *, max_states: int = DEFAULT_MAX_STATES) -> float:
    """``p_random_exact`` computed in floats: the same recursion, within about 1e-15 of it
    (benchmarks/difficulty.py and the tests compare the two)."""
    return _float_play(table, goal, max_states).run()


def random_states(table: Table, goal: int | None = None, *, max_states: int = DEFAULT_MAX_STATES) -> int:
    """How many states ``p_random`` expands from here: its effort, for benchmarks."""
    play = _float_play(table, goal, max_states)
    play.run()
    return play.states


# --- bands ------------------------------------------------------------------------------------


def band(*, high: int, fair: int, best: int) -> Band:
    """The difficulty band of a deal from the cleared counts of ``high``, ``fair`` and ``best``.

    ``easy``: the default strategy, which needs no thought, reaches best. ``medium``: a player
    who sees only the table can reach it (``fair`` does) but ``high`` does not. ``hard``: only
    perfect information reaches it. A count above ``best`` is a defect in the caller.
    """
    if high > best or fair > best:
        raise ValueError(f"cleared counts must not exceed best ({best}): high {high}, fair {fair}")
    if high == best:
        return "easy"
    if fair == best:
        return "medium"
    return "hard"


@dataclass(frozen=True)
class Difficulty:
    """Every difficulty measure of one position (cleared counts include cards already cleared).

    ``p_random`` is None when the position needs more states than allowed (a fully dealt
    grid100 table: see ``TooManyStates``)."""

    best: int
    high: int
    fair: int
    p_random: float | None
    band: Band


def played_out(table: Table, choose: Strategy) -> int:
    """What a strategy clears from the table's position, played on a copy (the table is kept)."""
    copy = Table(table.variant, table.deck)
    for move in table.history():
        copy.push(move)
    play_out(copy, choose)
    return copy.cleared


def assess(table: Table, *, fair: int | None = None, max_states: int = DEFAULT_MAX_STATES) -> Difficulty:
    """``best``, ``high``, ``fair``, ``p_random`` and the band of the table's position. ``fair`` is
    what the fair strategy clears from here, played now when not given. The table is only read."""
    best = search.best_cleared(table)
    high = played_out(table, strategy_named("high"))
    if fair is None:
        fair = played_out(table, strategy_named("fair"))
    try:
        chance: float | None = p_random(table, best, max_states=max_states)
    except TooManyStates:
        chance = None
    return Difficulty(best=best, high=high, fair=fair, p_random=chance, band=band(high=high, fair=fair, best=best))
