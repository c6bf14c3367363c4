"""The referee of a watched Quartets game: the public state, the facts about the deal, the verdict.

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

Whether some deal meets them all is ``FairDeals``'s matching (triples/games/quartets/deals.py).

The answer for a prefix is monotone (facts only accumulate), so the matching is kept from
action to action; once some card cannot be re-seated, cheating is certain from that action on
and the matching is no longer maintained. Every later action is still checked against the
rules and the physical facts: an input error anywhere in the list makes the whole answer that
error, even after cheating is certain (the list is not a game that can be judged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from triples.games.quartets.actions import ActionReader, Ask, ShowQuartet
from triples.games.quartets.deals import FairDeals
from triples.games.quartets.rules import DEFAULT_RULES, NOBODY, IllegalAction, QuartetsError, QuartetsRules
from triples.support import deadline

UNMOVED = -1  # a card's place while it is still in the hand it was dealt to
ASIDE = -2  # a card's place once its quartet is put aside


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
        deadline.check()  # a long game is long to judge: under a time limit it stops
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
