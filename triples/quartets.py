"""Quartets (docs/quartets.md): could every player of a watched game have played fair?

Four players hold hidden hands; only the actions are seen. A deal of the cards is *fair* for
a list of actions when, dealt that way, every asker held a card of the set asked for and
every "no" was true. Cards are physical: an action that no deal allows even with lying (a
card handed over or shown that is known to be elsewhere, a player who would have needed more
than a hand's worth of cards at the start) is an input error, like a broken turn rule.

What is known, and why it is enough. Every card that has moved (handed over or put aside)
has a known place from then on, and its starting owner is known too: the first time a card
moves, it leaves the hand it was dealt to. A card that has not moved is still where it was
dealt. So every fact an action states about the present is a fact about the deal:

- "x asks for a card of set s": x holds a card of s now. When a card of s that x holds is
  known (it was handed to x), this says nothing; otherwise some card of s that has not moved
  yet was dealt to x. Cards of s that move later either leave x (then the fact is proved and
  dropped) or leave someone else (then they could not have been x's), so one fact per player
  and set, over the cards of the set still unmoved, says all of it.
- "y: no" for an unmoved card: it was not dealt to y. For a card known to be in y's hand:
  a lie, cheating is certain.
- a card handed over by y, or shown by x, that had not moved: it was dealt to y (or x).

Deciding whether a deal meets all of these is a bipartite matching of the cards onto places
in the hands: each player has one place per "holds a card of set s" fact, taking only the
unmoved cards of s that may be theirs, and the rest of their hand in ordinary places, taking
any card that may be theirs. The sets are disjoint, so a deal meets the facts exactly when
some matching fills every place. The matching is written here (a few dozen cards; a library
would cost more to import than to run): places of one kind in one hand form a group with a
capacity, and an augmenting path is found by breadth-first search over cards and groups.

The answer for a prefix is monotone (facts only accumulate), so the matching is kept from
action to action: a new fact unseats at most a few cards, which are re-seated by augmenting
paths; once some card cannot be re-seated, cheating is certain from that action on and the
matching is no longer maintained. Every later action is still checked against the rules and
the physical facts: an input error anywhere in the list makes the whole answer that error,
even after cheating is certain (the list is not a game that can be judged).

Choices where the game's rules are silent: action lines are tokens separated by single spaces (the
contest reader, ``read_contest``, accepts any whitespace); asking for a card one holds is
foolish but fair, and that card counts as holding its set; a "no" for a card known to be in
the speaker's hand is cheating, not an input error; a quartet may be shown only on one's own
turn; the game is over when nobody holds cards (a player left holding every remaining card
may still show them).

The game is parameterised (players, sets, cards per set, hand size; the real game by
default) so that small versions, where every deal can be enumerated, run the same code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from string import ascii_uppercase

from triples.errors import TriplesError

UNMOVED = -1  # a card's place while it is still in the hand it was dealt to
ASIDE = -2  # a card's place once its quartet is put aside
NOBODY = -1

_NUMBER = re.compile(r"[0-9]+", re.ASCII)
_CARD = re.compile(r"[0-9]+[A-Z]", re.ASCII)
ACTION_SHAPES = "'x A y sk yes', 'x A y sk no' or 'x Q s'"


class QuartetsError(TriplesError):
    """An action list that is not a game: the message names the action and the broken rule."""

    def __init__(self, number: int, reason: str) -> None:
        super().__init__(f"action {number}: {reason}")
        self.number = number
        self.reason = reason


class IllegalAction(Exception):
    """Raised for the action being applied; ``Referee`` adds the action's number."""


class ContestFormatError(TriplesError):
    """Contest input whose layout is wrong (the count line, the number of lines)."""


@dataclass(frozen=True)
class QuartetsRules:
    """The size of a game: ``players`` hands of ``hand_size`` cards, together every card of
    ``sets`` sets of ``cards_per_set``. Players and sets are numbered from 1, the cards of a
    set lettered from A."""

    players: int = 4
    sets: int = 8
    cards_per_set: int = 4
    hand_size: int = 8

    def __post_init__(self) -> None:
        if self.players < 2 or self.sets < 1 or not 1 <= self.cards_per_set <= len(ascii_uppercase):
            raise ValueError("a game needs two players and sets of 1 to 26 cards")
        if self.players * self.hand_size != self.cards:
            raise ValueError("the hands must hold every card")

    @property
    def cards(self) -> int:
        return self.sets * self.cards_per_set

    def card_label(self, card: int) -> str:
        return f"{card // self.cards_per_set + 1}{ascii_uppercase[card % self.cards_per_set]}"

    def set_of(self, card: int) -> int:
        return card // self.cards_per_set

    def cards_of(self, set_index: int) -> range:
        return range(set_index * self.cards_per_set, (set_index + 1) * self.cards_per_set)


DEFAULT_RULES = QuartetsRules()


# ---------------------------------------------------------------- actions


@dataclass(frozen=True)
class Ask:
    """``asker A target card yes|no``; players and cards as 0-based indices."""

    asker: int
    target: int
    card: int
    handed_over: bool


@dataclass(frozen=True)
class ShowQuartet:
    """``player Q set``."""

    player: int
    set_index: int


Action = Ask | ShowQuartet


class ActionReader:
    """Parses action lines of one game size: tokens separated by single spaces."""

    def __init__(self, rules: QuartetsRules) -> None:
        self.players = {str(p + 1): p for p in range(rules.players)}
        self.sets = {str(s + 1): s for s in range(rules.sets)}
        self.cards = {rules.card_label(c): c for c in range(rules.cards)}

    def parse(self, line: str) -> Action:
        tokens = line.split(" ")
        if len(tokens) == 5 and tokens[1] == "A" and tokens[4] in ("yes", "no"):
            asker, target = self.player(tokens[0]), self.player(tokens[2])
            return Ask(asker, target, self.card(tokens[3]), tokens[4] == "yes")
        if len(tokens) == 3 and tokens[1] == "Q":
            player = self.player(tokens[0])
            set_index = self.sets.get(tokens[2])
            if set_index is None:
                raise IllegalAction(self.unknown("set", tokens[2], _NUMBER))
            return ShowQuartet(player, set_index)
        raise IllegalAction(f"not an action: expected {ACTION_SHAPES}")

    def player(self, token: str) -> int:
        player = self.players.get(token)
        if player is None:
            raise IllegalAction(self.unknown("player", token, _NUMBER))
        return player

    def card(self, token: str) -> int:
        card = self.cards.get(token)
        if card is None:
            raise IllegalAction(self.unknown("card", token, _CARD))
        return card

    @staticmethod
    def unknown(kind: str, token: str, shape: re.Pattern[str]) -> str:
        if shape.fullmatch(token):
            return f"{kind} {token} does not exist"
        return f"not an action: expected {ACTION_SHAPES}"


# ---------------------------------------------------------------- the deal, as a matching


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


# ---------------------------------------------------------------- the referee


class Referee:
    """Watches one game action by action: the public state (turn, hand sizes, where moved
    cards are), the physical facts, and whether a fair deal still exists."""

    def __init__(self, rules: QuartetsRules = DEFAULT_RULES, *, judge_each: bool = True) -> None:
        self.rules = rules
        self.reader = ActionReader(rules)
        self.hand_size = [rules.hand_size] * rules.players
        self.turn = 0
        self.place = [UNMOVED] * rules.cards  # UNMOVED, ASIDE or the player holding the card
        self.known_held = [[0] * rules.sets for _ in range(rules.players)]  # moved cards per hand and set
        self.dealt_count = [0] * rules.players  # cards known to have been dealt to each player
        self.aside = [False] * rules.sets
        self.deals = FairDeals(rules)
        self.judge_each = judge_each  # False: only record facts, for fair_deal_from_scratch
        self.actions = 0
        self.certain_after: int | None = None

    def watch(self, line: str) -> None:
        """Apply one action line; QuartetsError when it is not a legal action here."""
        self.actions += 1
        try:
            action = self.reader.parse(line)
            if isinstance(action, Ask):
                self.ask(action)
            else:
                self.show(action)
        except IllegalAction as exc:
            raise QuartetsError(self.actions, str(exc)) from None
        if self.judge_each and self.certain_after is None and not self.deals.reseat():
            self.certain_after = self.actions

    def fair_deal_from_scratch(self) -> bool:
        """Whether a fair deal exists for the actions so far, by a matching built anew."""
        return self.deals.possible and self.deals.solve_from_scratch()

    @property
    def judging(self) -> bool:
        """Facts about the deal are still worth recording (cheating is not certain yet)."""
        return self.certain_after is None

    def check_turn(self, player: int) -> None:
        if self.turn == NOBODY:
            raise IllegalAction("the game is over")
        if player != self.turn:
            raise IllegalAction(f"player {player + 1} acts out of turn: it is player {self.turn + 1}'s turn")

    def ask(self, action: Ask) -> None:
        asker, target, card = action.asker, action.target, action.card
        self.check_turn(asker)
        if target == asker:
            raise IllegalAction(f"player {asker + 1} asks themselves")
        if self.hand_size[target] == 0:
            raise IllegalAction(f"player {target + 1} has left the game")
        set_index = self.rules.set_of(card)
        if self.aside[set_index]:
            raise IllegalAction(f"card {self.rules.card_label(card)} is put aside")
        if self.judging and not self.known_held[asker][set_index]:
            self.deals.holds_one_of(asker, set_index)
        if action.handed_over:
            self.hand_over(card, target, asker)
        else:
            self.denied(card, target)

    def hand_over(self, card: int, giver: int, taker: int) -> None:
        place = self.place[card]
        set_index = self.rules.set_of(card)
        if place == UNMOVED:
            self.first_move(card, giver)
        elif place != giver:
            raise IllegalAction(f"card {self.rules.card_label(card)} is in player {place + 1}'s hand")
        else:
            self.known_held[giver][set_index] -= 1
        self.place[card] = taker
        self.known_held[taker][set_index] += 1
        self.hand_size[giver] -= 1
        self.hand_size[taker] += 1

    def denied(self, card: int, target: int) -> None:
        place = self.place[card]
        if self.judging:
            if place == UNMOVED:
                self.deals.not_dealt(card, target)
            elif place == target:  # the card was handed to them in plain sight
                self.deals.contradiction()
        self.turn = target

    def first_move(self, card: int, owner: int) -> None:
        """``card`` leaves the hand it was dealt to, ``owner``'s."""
        if self.dealt_count[owner] == self.rules.hand_size:
            raise IllegalAction(
                f"player {owner + 1} would have needed more than {self.rules.hand_size} cards at the start"
            )
        self.dealt_count[owner] += 1
        if self.judging:
            self.deals.dealt(card, owner)

    def show(self, action: ShowQuartet) -> None:
        player, set_index = action.player, action.set_index
        self.check_turn(player)
        if self.aside[set_index]:
            raise IllegalAction(f"quartet {set_index + 1} is already put aside")
        cards = self.rules.cards_of(set_index)
        for card in cards:
            place = self.place[card]
            if place not in (UNMOVED, player):
                raise IllegalAction(f"card {self.rules.card_label(card)} is in player {place + 1}'s hand")
        for card in cards:
            if self.place[card] == UNMOVED:
                self.first_move(card, player)
            self.place[card] = ASIDE
        self.aside[set_index] = True
        self.known_held[player][set_index] = 0
        self.hand_size[player] -= len(cards)
        if self.hand_size[player] == 0:
            self.turn = self.next_holder(player)

    def next_holder(self, player: int) -> int:
        players = self.rules.players
        for step in range(1, players):
            other = (player + step) % players
            if self.hand_size[other]:
                return other
        return NOBODY


# ---------------------------------------------------------------- answers


@dataclass(frozen=True)
class Verdict:
    """``certain_after``: the first action after which no fair deal exists, or None."""

    certain_after: int | None

    def as_json(self) -> dict[str, bool | int]:
        if self.certain_after is None:
            return {"cheated": False}
        return {"cheated": True, "certain_after": self.certain_after}

    def contest_lines(self) -> str:
        return "yes\n" if self.certain_after is None else f"no\n{self.certain_after}\n"


def judge(actions: Sequence[str], rules: QuartetsRules = DEFAULT_RULES) -> Verdict:
    """Whether some deal makes every action fair; QuartetsError for the first illegal action."""
    referee = Referee(rules)
    for line in actions:
        referee.watch(line)
    return Verdict(referee.certain_after)


def judge_every_prefix(actions: Sequence[str], rules: QuartetsRules = DEFAULT_RULES) -> Verdict:
    """The slow baseline: each prefix replayed and matched from scratch, until one has no fair
    deal (input errors are those of ``judge``, found on the way)."""
    for n in range(1, len(actions) + 1):
        referee = Referee(rules, judge_each=False)
        for line in actions[:n]:
            referee.watch(line)
        if not referee.fair_deal_from_scratch():
            return Verdict(n)
    return Verdict(None)


def read_contest(text: str) -> list[str]:
    """The action lines of the contest format: a count line, then that many actions (tokens
    separated by any whitespace; blank lines at the end are ignored)."""
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise ContestFormatError("empty input: expected the number of actions on the first line")
    count = lines[0].strip()
    if not _NUMBER.fullmatch(count):
        raise ContestFormatError("the first line must be the number of actions")
    expected, given = int(count), len(lines) - 1
    if expected != given:
        raise ContestFormatError(f"{expected} actions announced, {given} given")
    return [" ".join(line.split()) for line in lines[1:]]
