"""Whether some deal of the cards meets the facts the actions state: a bipartite matching.

Deciding whether a deal meets all of the facts is a bipartite matching of the cards onto places
in the hands: each player has one place per "holds a card of set s" fact, taking only the
unmoved cards of s that may be theirs, and the rest of their hand in ordinary places, taking
any card that may be theirs. The sets are disjoint, so a deal meets the facts exactly when
some matching fills every place. The matching is written here (a few dozen cards; a library
would cost more to import than to run): places of one kind in one hand form a group with a
capacity, and an augmenting path is found by breadth-first search over cards and groups.

The matching is kept from action to action: a new fact unseats at most a few cards, which are
re-seated by augmenting paths.
"""

from __future__ import annotations

from collections.abc import Iterable

from triples.games.quartets.rules import NOBODY, QuartetsRules


class FairDeals:
    """What the actions so far say about the deal, and one deal that meets it all (a matching
    of cards onto groups of places) while some does.

    Group ``p`` (for each player p) is p's ordinary places; group ``players + p * sets + s``
    is p's one place for a card of set s, open (capacity 1) while the fact "p was dealt an
    unmoved card of s" stands. The capacities always add up to the number of cards, so a
    deal exists exactly when every card is seated.
    """

    def __init__(self, rules: QuartetsRules) -> None:
        self.rules = rules
        players, sets = rules.players, rules.sets
        self.dealt_to = [NOBODY] * rules.cards  # known starting owner: set when a card first moves
        self.not_dealt_to = [0] * rules.cards  # bit p: the card was not dealt to player p
        groups = players + players * sets
        self.capacity = [rules.hand_size] * players + [0] * (players * sets)
        self.seated: list[set[int]] = [set() for _ in range(groups)]
        self.seat = [c // rules.hand_size for c in range(rules.cards)]
        for card, group in enumerate(self.seat):
            self.seated[group].add(card)
        self.unseated: list[int] = []
        self.possible = True

    # -- facts

    def set_place(self, player: int, set_index: int) -> int:
        return self.rules.players + player * self.rules.sets + set_index

    def owner(self, group: int) -> int:
        players = self.rules.players
        return group if group < players else (group - players) // self.rules.sets

    def holds_one_of(self, player: int, set_index: int) -> None:
        """``player`` was dealt one of the unmoved cards of ``set_index``."""
        place = self.set_place(player, set_index)
        if self.capacity[place]:
            return
        self.capacity[place] = 1
        self.capacity[player] -= 1
        if self.capacity[player] < 0:  # more such facts than places in the hand
            self.possible = False
            return
        ordinary = self.seated[player]
        if len(ordinary) > self.capacity[player]:
            card = next((c for c in ordinary if self.fits(c, place)), None)
            if card is not None:
                self.move(card, place)
            else:
                self.unseat(min(ordinary))

    def not_dealt(self, card: int, player: int) -> None:
        bit = 1 << player
        if self.not_dealt_to[card] & bit:
            return
        self.not_dealt_to[card] |= bit
        if self.owner(self.seat[card]) == player:
            self.unseat(card)

    def dealt(self, card: int, player: int) -> None:
        """``card`` moves for the first time, out of ``player``'s hand."""
        self.dealt_to[card] = player
        place = self.set_place(player, self.rules.set_of(card))
        if self.capacity[place]:  # the fact "player held one of the set" is proved: close the place
            self.capacity[place] = 0
            self.capacity[player] += 1
            for other in list(self.seated[place]):
                self.move(other, player)
        if self.seat[card] != player:
            self.unseat(card)

    def contradiction(self) -> None:
        self.possible = False

    # -- the matching

    def fits(self, card: int, group: int) -> bool:
        player = self.owner(group)
        if self.not_dealt_to[card] >> player & 1:
            return False
        dealt_to = self.dealt_to[card]
        if group < self.rules.players:
            return dealt_to in (NOBODY, player)
        return (
            dealt_to == NOBODY
            and self.capacity[group] > 0
            and self.rules.set_of(card) == (group - self.rules.players) % self.rules.sets
        )

    def move(self, card: int, group: int) -> None:
        old = self.seat[card]
        if old >= 0:
            self.seated[old].discard(card)
        self.seated[group].add(card)
        self.seat[card] = group

    def unseat(self, card: int) -> None:
        if self.seat[card] == NOBODY:
            return
        self.seated[self.seat[card]].discard(card)
        self.seat[card] = NOBODY
        self.unseated.append(card)

    def groups_for(self, card: int) -> Iterable[int]:
        players = self.rules.players
        yield from range(players)
        if self.dealt_to[card] == NOBODY:
            set_index = self.rules.set_of(card)
            for player in range(players):
                place = self.set_place(player, set_index)
                if self.capacity[place]:
                    yield place

    def reseat(self) -> bool:
        """Seat every unseated card by augmenting paths; False when some card cannot be."""
        while self.possible and self.unseated:
            card = self.unseated.pop()
            if self.seat[card] == NOBODY and not self.augment(card):
                self.possible = False
        return self.possible

    def augment(self, start: int) -> bool:
        """Seat ``start`` by moving cards along a shortest chain to a group with a free place."""
        entered_by: dict[int, int] = {}  # group -> the card that would move into it
        queue, seen = [start], {start}
        for card in queue:
            for group in self.groups_for(card):
                if group in entered_by or not self.fits(card, group):
                    continue
                entered_by[group] = card
                if len(self.seated[group]) < self.capacity[group]:
                    self.shift_along(entered_by, group)
                    return True
                for other in self.seated[group]:
                    if other not in seen:
                        seen.add(other)
                        queue.append(other)
        return False

    def shift_along(self, entered_by: dict[int, int], group: int) -> None:
        while True:
            card = entered_by[group]
            left = self.seat[card]
            self.move(card, group)
            if left == NOBODY:
                return
            group = left

    def solve_from_scratch(self) -> bool:
        """Forget the matching and seat every card again (the slow way, for comparison)."""
        for group in self.seated:
            group.clear()
        self.seat = [NOBODY] * self.rules.cards
        self.unseated = []
        if min(self.capacity) < 0:
            return False
        return all(self.augment(card) for card in range(self.rules.cards))
