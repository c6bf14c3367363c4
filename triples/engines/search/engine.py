"""The search's engine: one depth-first branch and bound from one position (``_Search``).

The stock phase lives here (``search``: states are the stock position plus the table's value
counts in the binary layout, ``layouts``); its first incumbent, the dive, in ``dive``; the
packing phase, once the stock is empty, in ``packing``. What a variant's searches share
between them (``kit.Kit``: the layouts, the bound family, and memos of bounds, candidate
moves and unary keys, each a pure function of its key) is kept per variant by
``triples.support.caches``; everything a search changes lives in its own object.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from itertools import accumulate, islice

from triples.engines.search.bounds import LP_MAX_COMBOS, packing_weights, value_bound
from triples.engines.search.dive import Dive
from triples.engines.search.kit import kit_for
from triples.engines.search.packing import PackingPhase, Stop
from triples.engines.search.state import Move
from triples.model.derived import Combo
from triples.model.rules import histogram
from triples.model.variant import Variant
from triples.support import deadline


@dataclass(frozen=True)
class SearchResult:
    """What the search proved about a position.

    ``best`` is the largest total cleared any line reaches (cards already cleared included),
    ``states`` how many states the search expanded (its effort: memo hits and states cut off
    by the bound are not counted), ``line`` one line of value combinations reaching ``best``
    and ``bound`` the upper bound at the start (``best == bound`` means the bound proved it).
    """

    best: int
    states: int
    line: tuple[Combo, ...]
    bound: int


class _Search(PackingPhase, Dive):
    """One search from one position. All mutable state lives here; the table is only read."""

    __slots__ = ()

    def __init__(
        self, variant: Variant, deck: Sequence[int], *, lines: bool = True, packed: dict[int, int] | None = None
    ) -> None:
        """``deck`` holds values, top first; ``lines``: whether ``run`` completes a line found
        through the memo (``FixedDeck`` needs only the number); ``packed``: the packing
        phase's memo, when the caller shares one between searches (without it, a search that
        keeps no lines shares its variant's, ``kit.Kit.packing``; one that does, its own)."""
        self.variant = variant
        self.deck = deck
        self.size = len(deck)
        # Entries depend on the deck only, never on the root: every root over this deck
        # order can share them (``FixedDeck``).
        self.memo: dict[int, int] = {}
        self.lines = lines
        kit = kit_for(variant)
        # The packing phase's entries: a table's worth once the stock is empty, whatever the
        # deck and the root. A line rebuilt through an entry another search settled would
        # depend on what ran before, so only a search without lines reads the shared memo.
        if packed is None:
            packed = {} if lines else kit.packing.data
        self.packed = packed
        self.family, self.moves = kit.family, kit.moves
        self.rules = rule = kit.rules
        self.check_mask = deadline.check_mask(len(rule.combos))
        kit.trim()
        self.bounds, self.candidates, self.unary = kit.bounds.data, kit.candidates.data, kit.unary.data
        self.dive_moves, self.freest_moves, self.mobility = (
            kit.dive_moves.data,
            kit.freest_moves.data,
            kit.mobility.data,
        )
        # Per stock position p: the stock deck[p:] as a binary-layout histogram. The table's
        # key plus this is the multiset the bound reads; the difference of two is a refill.
        self.stock_left = list(accumulate(map(rule.units.__getitem__, reversed(deck)), initial=0))
        self.stock_left.reverse()
        self.table_mask = (1 << rule.stock_shift) - 1
        # The hot loop's constants, one attribute look-up each.
        self.per_move, self.target, self.stock_shift = rule.per_move, rule.target, rule.stock_shift
        self.guards, self.ones = rule.guards, rule.ones

    def root(self, values: Sequence[int], next_card: int, cleared: int) -> None:
        """Start a search from the position with ``values`` on the table (0 for an empty slot),
        the stock ``deck[next_card:]`` and ``cleared`` cards already cleared."""
        rule = self.rules
        # The counts serve the packing phase only: ``from_stock`` and ``into_packing`` fill
        # them when the search gets there.
        self.counts = histogram(values, rule.top) if next_card >= self.size else [0] * (rule.top + 1)
        # The stock phase's memo key (binary layout, position above).
        self.state = sum(map(rule.units.__getitem__, values)) + (next_card << rule.stock_shift)
        self.start = next_card
        self.on_table = len(values) - values.count(0)
        # What every card not yet cleared, on the table or in the stock, is worth.
        self.value = sum(values) + sum(islice(self.deck, next_card, None))
        # Every dealt card is cleared or on the table, so this is 0 for any table built by
        # push/pop; keeping it makes the answer the table's own cleared plus what is gained.
        self.base = cleared - (next_card - self.on_table)
        self.states = 0
        self.path: list[Combo] = []
        self.best = cleared
        self.best_line: tuple[Combo, ...] = ()
        # The state the incumbent's line goes on from, when it was found in the memo.
        self.pending: tuple[int, int, bool] | None = None
        self.cap = cleared
        # Dual weights for the packing phase (packing_weights), when the root has no stock.
        self.weights: list[float] | None = None

    def weighed(self, pool: Sequence[int]) -> int:
        """The packing bound: whole moves weigh at least 1 each (see ``packing_weights``)."""
        weights = self.weights
        if weights is None:
            return self.size
        total = sum(w * c for w, c in zip(weights, pool, strict=False))
        # The slack absorbs float error in the sum; it can only loosen the bound.
        return int(total + 1e-6) * self.rules.per_move

    def root_cap(self) -> int:
        """The root's upper bound on the total cleared (every card not yet cleared counts, on
        the table or in the stock, whatever their order); sets ``cap`` and returns the weight
        of those cards under the family (``Family.weighed``)."""
        p, n = self.start, self.on_table
        rest = (self.state & self.table_mask) + self.stock_left[p]
        family = self.family
        weight = family.weighed(rest.to_bytes(self.rules.top + 1, "little")) if family is not None else 0
        cap = self.bounds.get(rest, -1)
        if cap < 0:
            cap = self.bound_of(rest, n + self.size - p, self.value, weight)
        self.cap = self.base + p - n + cap
        return weight

    def run(self) -> SearchResult:
        deadline.check()  # a search may be one of many short ones: each starts with a check
        p, n = self.start, self.on_table
        weight = self.root_cap()
        if p < self.size:
            if not self.memo.get(self.state, 0) & 1:
                self.dive()
                # A second try pays where the bound is every card left (on sum15 it then
                # reaches it about half the time the dive does not); elsewhere it rarely
                # does (classic: under 2%). Only without lines: where it succeeds it changes
                # which of the best lines is found, and ``solve``'s line must not change.
                if self.best < self.cap and not self.lines and self.cap - self.base - p + n == n + self.size - p:
                    self.second_dive()
        else:
            self.key = self.rules.unary_key(self.counts)
            # A lookahead greedy line: packing is where a good incumbent pays (with a stock the
            # plain dive; a lookahead pass there was measured 5-35% slower overall).
            self.greedy()
            if self.best < self.cap and len(self.rules.combos) <= LP_MAX_COMBOS:
                self.weights = packing_weights(self.variant, self.counts)
                self.cap = min(self.cap, self.base + p - n + self.weighed(self.counts))
        if self.best < self.cap:
            with suppress(Stop):
                self.search(p, n, self.value, self.state, self.memo.get(self.state), -1, weight)
        if self.pending is not None and self.lines:
            self.best_line += self.line_from(*self.pending)
        return SearchResult(best=self.best, states=self.states, line=self.best_line, bound=self.cap)

    def line_from(self, key: int, p: int, unary: bool) -> tuple[Combo, ...]:
        """A best line from a state the memo settled: a fresh search of it (whose own line is
        complete, rebuilt the same way from deeper states if need be)."""
        values = self.table_values(key, unary)
        rebuilt = _Search(self.variant, self.deck)
        rebuilt.root(values, p, 0)
        return rebuilt.run().line

    def table_values(self, key: int, unary: bool) -> list[int]:
        """The table's values from a key in either layout (the stock position, if any, above)."""
        rule = self.rules
        if unary:
            counts = [(key & rule.fields[v]).bit_count() for v in range(rule.top + 1)]
        else:
            mask = (1 << rule.binary_width) - 1
            counts = [(key >> rule.offsets[v]) & mask if v else 0 for v in range(rule.top + 1)]
        return [v for v in range(1, rule.top + 1) for _ in range(counts[v])]

    def candidates_of(self, present: int) -> tuple[Move, ...]:
        """The moves whose values all lie in ``present`` (guard bits of the values on a
        table), remembered per pattern."""
        candidates = self.candidates[present] = tuple(
            [move for move, ones in zip(self.moves, self.rules.spans, strict=True) if present & ones == ones]
        )
        return candidates

    def bound_of(self, rest: int, cards: int, value: int, weight: int) -> int:
        """``bound`` for the multiset ``rest`` (binary layout) of ``cards`` cards worth
        ``value`` and weighing ``weight`` under the family (``Family.weighed``), remembered
        per multiset."""
        rule = self.rules
        cap = -1
        family = self.family
        if family is not None:
            # Below the value sum's count of moves the family is the tighter bound (its test
            # of the cards left over would rarely cut further: on classic, never).
            moves = family.lightest(weight)
            if moves < cards // rule.per_move and moves < value // rule.target:
                cap = moves * rule.per_move
        if cap < 0:
            pool = rest.to_bytes(rule.top + 1, "little")  # byte v: value v's count, byte 0 empty
            cap = value_bound(rule, cards, value, pool)
        self.bounds[rest] = cap
        return cap

    def improve(self, cleared: int) -> None:
        self.best, self.best_line, self.pending = cleared, tuple(self.path), None
        if cleared >= self.cap:
            raise Stop

    def improve_through(self, cleared: int, key: int, p: int, combo: Combo | None, unary: bool = False) -> None:
        """A new incumbent of ``cleared`` through a state settled exactly in the memo (after
        ``combo``, when given, from the current path), whose line this search never walked:
        the state is kept, and ``run`` rebuilds the line from it.

        A state's memo entry is what it can still clear, but in the packing phase one state
        is reached with different totals cleared (a card set aside is not cleared), and a
        memo shared by several roots (``FixedDeck``) holds states settled by earlier roots."""
        path = tuple(self.path) if combo is None else (*self.path, combo)
        self.best, self.best_line, self.pending = cleared, path, (key, p, unary)
        if cleared >= self.cap:
            raise Stop

    def search(self, p: int, n: int, value: int, state: int, entry: int | None, bound: int, weight: int) -> int:
        """What the state can still clear, as ``bound << 1 | exact``, while the stock lasts.
        ``value`` is what the cards not yet cleared are worth; ``state`` is the memo key: the
        table's counts in the binary layout, the stock position above. The caller has looked
        up the state's memo ``entry`` already, and its multiset's ``bound`` (-1: not known).
        ``weight`` is the multiset's weight under the family (``Family.weighed``)."""
        size = self.size
        cleared = self.base + p - n
        if cleared > self.best:
            self.improve(cleared)
        memo = self.memo
        if entry is not None and (entry & 1 or cleared + (entry >> 1) <= self.best):
            if cleared + (entry >> 1) > self.best:
                self.improve_through(cleared + (entry >> 1), state, p, None)
            return entry
        if p == size:
            # Stored under this key too, so that the parent's look-up settles it next time.
            entry = memo[state] = self.from_stock(n, value, state)
            return entry
        table = state & self.table_mask
        # Every card not yet cleared is on the table or in the stock; a move's refill only
        # moves cards from one to the other, so a child's multiset is this minus the move.
        rest = table + self.stock_left[p]
        bounds = self.bounds
        if entry is not None:
            cap = entry >> 1
        else:
            # The bound before the moves: a state it cuts tests none.
            cap = bound if bound >= 0 else bounds.get(rest, -1)
            if cap < 0:
                cap = self.bound_of(rest, n + size - p, value, weight)
            if cleared + cap <= self.best:
                memo[state] = cap << 1
                return cap << 1
        k = self.per_move
        child_p = p + k if p + k < size else size
        # The refill's cards join the table, and the position advances past them.
        refilled = state + rest - table - self.stock_left[child_p] + (child_p - p << self.stock_shift)
        child_n = n - k + child_p - p
        child_value = value - self.target
        child_cleared = cleared + k
        # With every guard bit set, subtracting a move's delta borrows a field's guard bit
        # exactly when the field holds fewer cards than the combination takes (and never
        # further). The guard bits of the values present: few patterns recur (under 800 on
        # classic and quads), and each narrows the combinations to test to those it can supply.
        guards = self.guards
        raised = table | guards
        present = raised - self.ones & guards
        candidates = self.candidates.get(present)
        if candidates is None:
            candidates = self.candidates_of(present)
        if child_p == size:
            playable = tuple([move for move in candidates if raised - move[1] & guards == guards])
            if not playable:
                memo[state] = 1
                return 1
            self.states += 1
            return self.into_packing(state, cap, playable, refilled, child_n, child_value, child_cleared)
        # Otherwise the playable list is not built: each candidate is tested in the loop (most
        # tables occur once, so a list would be built for one use).
        path = self.path
        # Counted now, taken back below when no candidate turns out playable (a Stop can
        # only come from a playable one).
        self.states += 1
        if not self.states & self.check_mask:
            deadline.check()
        exact_best = bound_best = 0
        for combo, delta, lost in candidates:
            if raised - delta & guards != guards:
                continue
            child = refilled - delta
            # A child settled by the memo, or cut by its entry or its multiset's known bound,
            # costs no call: on classic most children are one of these.
            result = memo.get(child)
            if result is None:
                cut = bounds.get(rest - delta, -1)
                if cut < 0 or child_cleared + cut > self.best:
                    path.append(combo)
                    result = self.search(child_p, child_n, child_value, child, None, cut, weight - lost)
                    path.pop()
                else:
                    result = cut << 1
            elif result & 1:
                if child_cleared + (result >> 1) > self.best:
                    self.improve_through(child_cleared + (result >> 1), child, child_p, combo)
            elif child_cleared + (result >> 1) > self.best:
                path.append(combo)
                result = self.search(child_p, child_n, child_value, child, result, -1, weight - lost)
                path.pop()
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        if not bound_best and not exact_best:
            # Nothing was playable: every move gains at least ``k``.
            self.states -= 1
            memo[state] = 1
            return 1
        # ``settle``, inlined: this is the hot path.
        found = exact_best if exact_best > bound_best else bound_best
        if found > cap:
            found = cap
        entry = found << 1 | (exact_best >= found)
        memo[state] = entry
        return entry
