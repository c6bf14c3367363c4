"""Quartets (docs/quartets.md): could every player of a watched game have played fair?

Four players hold hidden hands; only the actions are seen. A deal of the cards is *fair* for
a list of actions when, dealt that way, every asker held a card of the set asked for and
every "no" was true. Cards are physical: an action that no deal allows even with lying (a
card handed over or shown that is known to be elsewhere, a player who would have needed more
than a hand's worth of cards at the start) is an input error, like a broken turn rule.

The package, in reading order: ``rules`` (the size of a game and the errors), ``actions``
(action lines and the contest format), ``referee`` (the public state kept action by action,
the facts it learns about the deal, and the verdict) and ``deals`` (whether some deal meets
those facts, as a matching kept from action to action).

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

from triples.games.quartets.actions import (
    ACTION_SHAPES,
    Action,
    ActionReader,
    Ask,
    ContestFormatError,
    ShowQuartet,
    read_contest,
)
from triples.games.quartets.deals import FairDeals
from triples.games.quartets.referee import Referee, Verdict, judge, judge_every_prefix
from triples.games.quartets.rules import DEFAULT_RULES, NOBODY, IllegalAction, QuartetsError, QuartetsRules

__all__ = [
    "ACTION_SHAPES",
    "DEFAULT_RULES",
    "NOBODY",
    "Action",
    "ActionReader",
    "Ask",
    "ContestFormatError",
    "FairDeals",
    "IllegalAction",
    "QuartetsError",
    "QuartetsRules",
    "Referee",
    "ShowQuartet",
    "Verdict",
    "judge",
    "judge_every_prefix",
    "read_contest",
]
