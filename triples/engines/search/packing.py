"""The search's packing phase: once the stock is empty, any set of disjoint combinations can
be played in any order, so the search packs instead of playing moves in order.

It takes the smallest value left and either puts it in a combination with values no smaller,
or sets one card of it aside for good, so each packing is generated once rather than once per
ordering; cards no playable combination can use are dropped first. States are unary keys
(``layouts``). A fully dealt table (grid100) is all packing, and a one-step lookahead greedy
line (``greedy``) is its first incumbent.
"""

from __future__ import annotations

from triples.engines.search.bounds import value_bound
from triples.engines.search.state import Move, SearchState
from triples.model.derived import Combo
from triples.support import deadline

# The deadline is checked once per ``check_mask`` + 1 expanded states: 1024 on rules with few
# combinations, more often on rules with more, where a state's work grows with them
# (``triples.support.deadline.check_mask``).


class Stop(Exception):
    """The incumbent reached the root's upper bound: nothing can beat it."""


class PackingPhase(SearchState):
    """The packing phase's methods of ``engine._Search``, over the search's state."""

    __slots__ = ()

    def greedy(self) -> None:
        """The incumbent for a position with an empty stock: each turn play the combination
        that leaves the most combinations playable (ties to the first in high-cards-first
        order).

        Without a refill a move only takes cards away, so what stays playable is the playable
        set minus the combinations needing a card it took: as bit sets, a few int operations
        per candidate, which keeps grid100's 33 turns of some 50 candidates cheap.
        """
        rule = self.rules
        k, combos, needs, uses, holders, bits = (
            rule.per_move,
            rule.combos,
            rule.needs,
            rule.uses,
            rule.holders,
            rule.bits,
        )
        counts = list(self.counts)
        key, n = self.key, self.on_table
        line: list[Combo] = []
        while True:
            deadline.check()
            playable = [i for i, need in enumerate(needs) if key & need == need]
            if not playable:
                break
            playable_set = sum(1 << i for i in playable)
            chosen, chosen_score = playable[0], -1
            for i in playable:
                if not i & 255:
                    deadline.check()
                lost = 0
                for v, m in uses[i]:
                    lost |= holders[v][counts[v] - m]
                score = (playable_set & ~lost).bit_count()
                if score > chosen_score:
                    chosen, chosen_score = i, score
            combo = combos[chosen]
            for v in combo:
                counts[v] -= 1
                key ^= bits[v][counts[v]]
            n -= k
            line.append(combo)
        cleared = self.base + self.start - n
        if cleared > self.best:
            self.best, self.best_line, self.pending = cleared, tuple(line), None

    def from_stock(self, n: int, value: int, state: int) -> int:
        """A root with an empty stock: ``pack`` its table."""
        key, self.counts[:] = self.unary_of(state & self.table_mask)
        return self.pack(n, value, key, self.base + self.size - n)

    def unary_of(self, table: int) -> tuple[int, tuple[int, ...]]:
        """The unary key and the counts of a table (binary layout), remembered per table: on
        sum15 and grid, where most states are packing, converting costs a tenth of the time."""
        converted = self.unary.get(table)
        if converted is None:
            rule = self.rules
            counts = tuple(table.to_bytes(rule.top + 1, "little"))  # byte v: value v's count
            key = rule.unary_key(counts)
            converted = self.unary[table] = (key, counts)
        return converted

    def into_packing(
        self,
        state: int,
        cap: int,
        playable: tuple[Move, ...],
        refilled: int,
        n: int,
        value: int,
        cleared: int,
    ) -> int:
        """``search``'s loop for the moves that take the stock's last cards: each child is a
        packing state, handed to ``pack`` in its layout (``pack`` checks its own memo)."""
        k, mask, counts, path = self.rules.per_move, self.table_mask, self.counts, self.path
        exact_best = bound_best = 0
        for combo, delta, _ in playable:
            key, counts[:] = self.unary_of((refilled - delta) & mask)
            path.append(combo)
            result = self.pack(n, value, key, cleared)
            path.pop()
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        return self.settle(self.memo, state, cap, exact_best, bound_best)

    def pack(self, n: int, value: int, key: int, cleared: int) -> int:
        """The same once the stock is empty, where any disjoint combinations can be played in
        any order. ``cleared`` is passed in because a card set aside leaves the state without
        being cleared; ``value`` is what the table is worth."""
        if cleared > self.best:
            self.improve(cleared)
        rule = self.rules
        # Its own dict, keyed by the unary key alone: a table's worth once the stock is empty
        # depends on nothing else (not the deck, its length or the root).
        memo = self.packed
        memo_key = key
        entry = memo.get(memo_key)
        if entry is not None and (entry & 1 or cleared + (entry >> 1) <= self.best):
            if cleared + (entry >> 1) > self.best:
                self.improve_through(cleared + (entry >> 1), key, self.size, None, unary=True)
            return entry
        counts, top = self.counts, rule.top
        blocked = 0
        for v in range(1, top + 1):
            blocked |= rule.holders[v][counts[v]]
        playable = rule.every & ~blocked
        if not playable:
            memo[memo_key] = 1
            return 1
        # A card that no playable combination uses will never be cleared, since taking cards
        # only ever removes combinations: drop it. The smaller state shares its memo entry
        # with every state that differs from it only in such dead cards, and bounds tighter.
        dead = [v for v in range(1, top + 1) if counts[v] and not playable & rule.containing[v]]
        if dead:
            core = key
            for v in dead:
                core &= ~rule.fields[v]
                n -= counts[v]
                value -= v * counts[v]
            dropped = [counts[v] for v in dead]
            for v in dead:
                counts[v] = 0
            entry = self.pack(n, value, core, cleared)
            for v, count in zip(dead, dropped, strict=True):
                counts[v] = count
            memo[memo_key] = entry
            return entry
        if entry is not None:
            cap = entry >> 1
        else:
            cap = value_bound(rule, n, value, counts)
            if self.weights is not None:
                cap = min(cap, self.weighed(counts))
            if cleared + cap <= self.best:
                memo[memo_key] = cap << 1
                return cap << 1
        k, target, width = rule.per_move, rule.target, rule.width
        bits, path = rule.bits, self.path
        self.states += 1
        if not self.states & self.check_mask:
            deadline.check()
        low = ((key & -key).bit_length() - 1) // width + 1
        exact_best = bound_best = 0
        for combo, need in rule.by_low[low]:
            if key & need != need:
                continue
            child = key
            for v in combo:
                counts[v] -= 1
                child ^= bits[v][counts[v]]
            result = memo.get(child, 0)
            if not result & 1:
                path.append(combo)
                result = self.pack(n - k, value - target, child, cleared + k)
                path.pop()
            elif cleared + k + (result >> 1) > self.best:
                # A Stop here leaves counts changed: the search is over, the rebuild reads the key.
                self.improve_through(cleared + k + (result >> 1), child, self.size, combo, unary=True)
            for v in combo:
                counts[v] += 1
            gained = k + (result >> 1)
            if result & 1:
                if gained > exact_best:
                    exact_best = gained
                    if exact_best >= cap:
                        break
            elif gained > bound_best:
                bound_best = gained
        if exact_best < cap:
            # No line uses this card of the smallest value: set it aside for good.
            counts[low] -= 1
            result = self.pack(n - 1, value - low, key ^ bits[low][counts[low]], cleared)
            counts[low] += 1
            gained = result >> 1
            if result & 1:
                exact_best = max(exact_best, gained)
            else:
                bound_best = max(bound_best, gained)
        return self.settle(memo, memo_key, cap, exact_best, bound_best)

    def settle(self, memo: dict[int, int], memo_key: int, cap: int, exact_best: int, bound_best: int) -> int:
        """Store and return a state's result: exact when the best exact child is at least every
        child's bound; otherwise only the largest bound is known. (Every exact child has
        already raised the incumbent, walked or not: ``improve_through``.)"""
        found = min(cap, max(exact_best, bound_best))
        entry = found << 1 | (exact_best >= found)
        memo[memo_key] = entry
        return entry
