"""Quartets (docs/quartets.md), checked against a brute force that tries every deal.

The brute force below shares nothing with triples.games.quartets: it deals the cards every possible
way into small games, plays each action on each deal's real hands, drops the deals an action
is physically impossible in (a card handed over that the giver does not hold, a quartet not
held), and calls an action list fair while some remaining deal has every ask made holding a
card of its set and every "no" true. Random games come from simulated play of a random deal,
with lies, asks without a card of the set, surprising "yes" answers and illegal final actions
mixed in.
"""

from __future__ import annotations

import io
import itertools
import random
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from triples import run
from triples.doors import cli
from triples.games.quartets import (
    DEFAULT_RULES,
    QuartetsError,
    QuartetsRules,
    Referee,
    Verdict,
    judge,
    judge_every_prefix,
    read_contest,
)

SPEC_CHEATED = ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3C no"]
SPEC_FAIR = ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3B no", "1 A 4 5B yes", "1 Q 5"]
SHAPES = "not an action: expected 'x A y sk yes', 'x A y sk no' or 'x Q s'"


def answer(actions: list[str], rules: QuartetsRules = DEFAULT_RULES) -> object:
    """Our answer as the interpreter words it (without the interpreter)."""
    try:
        return judge(actions, rules).as_json()
    except QuartetsError as exc:
        return f"error: {exc}"


# ---------------------------------------------------------------- the rules' examples


def test_spec_example_cheated() -> None:
    assert run([["quartets", SPEC_CHEATED]]) == [{"cheated": True, "certain_after": 4}]


def test_spec_example_fair() -> None:
    assert run([["quartets", SPEC_FAIR]]) == [{"cheated": False}]


def test_spec_examples_agree_up_to_action_4() -> None:
    assert answer(SPEC_CHEATED[:3]) == answer(SPEC_FAIR[:3]) == {"cheated": False}


# ---------------------------------------------------------------- hand-made games

CHEATS = {
    # asking for a card without holding one of its set
    "asker-gave-away-whole-set": (
        ["1 A 2 2A no", "2 A 1 2A yes", "2 A 1 2B yes", "2 A 1 2C yes", "2 A 1 2D yes", "2 A 1 2A no"],
        5,
    ),
    "set-shown-by-another-player": (["1 A 2 3C no", "2 A 3 3A no", "3 A 4 4A no", "4 Q 3"], 4),
    # every card of set 4 leaves player 2's hand: player 1 was dealt none of it yet asked
    "whole-set-elsewhere-before-ask": (["1 A 2 4A yes", "1 A 2 4B yes", "1 A 2 4C yes", "1 A 2 4D yes"], 4),
    # saying "no" while holding the card
    "no-for-a-card-handed-over-in-sight": (["1 A 2 5A yes", "1 A 3 5B no", "3 A 1 5A no"], 3),
    "no-then-yes-for-the-same-card": (["1 A 2 6A no", "2 A 3 6B no", "3 A 2 6A yes"], 3),
    "no-then-shows-its-quartet": (["1 A 2 1A no", "2 A 1 7A no", "1 A 2 7B yes", "1 A 2 7C yes", "1 Q 7"], 5),
    # a contradiction between one player's asks and another's answers
    "two-players-lack-the-last-card": (["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3C no"], 4),
    # cheating certain early stays certain whatever follows
    "certain-stays-certain": (["1 A 2 5A yes", "1 A 3 5B no", "3 A 1 5A no", "1 A 2 6A no", "2 A 1 6B no"], 3),
}

FAIR_GAMES = {
    "empty": [],
    "one-no": ["1 A 2 3C no"],
    "foolish-ask-for-own-card": ["1 A 2 1A yes", "1 A 3 1A no"],
    "ask-for-card-held-by-third-player": ["1 A 2 1A yes", "1 A 3 1B no", "3 A 4 1A no"],
    "no-after-giving-card-away": ["1 A 2 2A yes", "1 A 2 2B no", "2 A 1 2B no"],
    "asker-holds-only-the-received-card": ["1 A 2 2A yes", "1 A 3 2A no", "3 A 1 2A yes", "3 A 4 2B no"],
    "spec-fair": SPEC_FAIR,
}


@pytest.mark.parametrize(("actions", "certain_after"), CHEATS.values(), ids=CHEATS.keys())
def test_cheating_is_certain_after(actions: list[str], certain_after: int) -> None:
    assert answer(actions) == {"cheated": True, "certain_after": certain_after}
    assert answer(actions[: certain_after - 1]) == {"cheated": False}


@pytest.mark.parametrize("actions", FAIR_GAMES.values(), ids=FAIR_GAMES.keys())
def test_fair_games(actions: list[str]) -> None:
    assert answer(actions) == {"cheated": False}


ERRORS = {
    "garbage": (["hello"], "action 1: " + SHAPES),
    "empty-line": ([""], "action 1: " + SHAPES),
    "double-space": (["1  A 2 3C no"], "action 1: " + SHAPES),
    "trailing-space": (["1 A 2 3C no "], "action 1: " + SHAPES),
    "lower-case-answer": (["1 A 2 3C No"], "action 1: " + SHAPES),
    "unknown-verb": (["1 B 2 3C no"], "action 1: " + SHAPES),
    "quartet-extra-token": (["1 Q 3 3"], "action 1: " + SHAPES),
    "negative-player": (["-1 A 2 3C no"], "action 1: " + SHAPES),
    "lower-case-card": (["1 A 2 3c no"], "action 1: " + SHAPES),
    "set-not-a-number": (["1 Q x"], "action 1: " + SHAPES),
    "player-0": (["0 A 2 3C no"], "action 1: player 0 does not exist"),
    "player-5": (["1 A 5 3C no"], "action 1: player 5 does not exist"),
    "leading-zero-player": (["01 A 2 3C no"], "action 1: player 01 does not exist"),
    "card-9A": (["1 A 2 9A no"], "action 1: card 9A does not exist"),
    "card-3E": (["1 A 2 3E no"], "action 1: card 3E does not exist"),
    "set-0": (["1 Q 0"], "action 1: set 0 does not exist"),
    "set-9": (["1 Q 9"], "action 1: set 9 does not exist"),
    "out-of-turn-ask": (["2 A 1 3C no"], "action 1: player 2 acts out of turn: it is player 1's turn"),
    "out-of-turn-after-no": (
        ["1 A 2 3C no", "1 A 2 3C no"],
        "action 2: player 1 acts out of turn: it is player 2's turn",
    ),
    "out-of-turn-quartet": (["1 A 2 3C no", "1 Q 3"], "action 2: player 1 acts out of turn: it is player 2's turn"),
    "asks-themselves": (["1 A 1 3C no"], "action 1: player 1 asks themselves"),
    "asks-player-who-left": (
        [f"1 A 2 {s}{c} yes" for s in (1, 2) for c in "ABCD"] + ["1 A 2 1A no"],
        "action 9: player 2 has left the game",
    ),
    "card-put-aside": (
        ["1 A 2 1A yes", "1 A 2 1B yes", "1 A 2 1C yes", "1 A 2 1D yes", "1 Q 1", "1 A 3 1B no"],
        "action 6: card 1B is put aside",
    ),
    "second-quartet": (
        ["1 A 2 1A yes", "1 A 2 1B yes", "1 A 2 1C yes", "1 A 2 1D yes", "1 Q 1", "1 Q 1"],
        "action 6: quartet 1 is already put aside",
    ),
    "yes-for-card-in-askers-hand": (["1 A 2 3C yes", "1 A 3 3C yes"], "action 2: card 3C is in player 1's hand"),
    "yes-for-card-in-third-hand": (
        ["1 A 2 3C yes", "1 A 3 3D no", "3 A 2 3C yes"],
        "action 3: card 3C is in player 1's hand",
    ),
    "quartet-with-a-card-elsewhere": (
        ["1 A 2 3C yes", "1 A 3 3D no", "3 Q 3"],
        "action 3: card 3C is in player 1's hand",
    ),
    "giver-needs-nine-cards": (
        ["1 A 2 1A no", "2 A 1 1B yes", "2 A 1 1C no"]
        + [f"1 A 2 {s}{c} yes" for s in (2, 3) for c in "ABCD"]
        + ["1 A 2 4A yes"],
        "action 12: player 2 would have needed more than 8 cards at the start",
    ),
    "shower-needs-nine-cards": (
        ["1 A 2 1A no", "2 A 1 1B yes", "2 Q 2", "2 Q 3", "2 Q 4"],
        "action 5: player 2 would have needed more than 8 cards at the start",
    ),
    "error-after-cheating-is-certain": ([*SPEC_CHEATED, "1 A 1 3C no"], "action 5: player 1 asks themselves"),
    "first-error-wins": (["1 A 1 3C no", "9 Q 9"], "action 1: player 1 asks themselves"),
}


@pytest.mark.parametrize(("actions", "message"), ERRORS.values(), ids=ERRORS.keys())
def test_input_errors(actions: list[str], message: str) -> None:
    assert run([["quartets", actions]]) == [f"error: {message}"]


def test_after_the_last_quartet_any_action_is_an_error() -> None:
    rng = random.Random(5)
    for _ in range(5):
        simulation = Simulation(DEFAULT_RULES, rng, cheat_rate=0.0)
        actions = simulation.play(100_000, error_rate=0.0)
        assert simulation.turn is None
        assert answer(actions) == {"cheated": False}
        assert answer([*actions, "1 Q 1"]) == f"error: action {len(actions) + 1}: the game is over"


TURN_SKIPS_WHO_LEFT = [  # deal: 1 has 1A 1B, 2 has 2A 2B, 3 has 3A 4A, 4 has 3B 4B
    "1 A 3 1A no",
    "3 A 4 3B yes",
    "3 Q 3",
    "3 A 4 4B yes",  # 4 leaves
    "3 Q 4",  # 3 leaves on their turn: 4 has left, so the turn goes round to 1
]


def test_turn_passes_to_the_next_player_still_holding_cards() -> None:
    rules = QuartetsRules(players=4, sets=4, cards_per_set=2, hand_size=2)
    assert answer(TURN_SKIPS_WHO_LEFT, rules) == {"cheated": False}
    broken = [*TURN_SKIPS_WHO_LEFT, "2 A 1 2A no"]
    assert answer(broken, rules) == "error: action 6: player 2 acts out of turn: it is player 1's turn"
    assert answer([*TURN_SKIPS_WHO_LEFT, "1 A 4 1A no"], rules) == "error: action 6: player 4 has left the game"


# ---------------------------------------------------------------- the contest format


CONTEST = {
    "count-and-lines": ("2\n1 A 2 3C no\n2 A 1 3C no\n", ["1 A 2 3C no", "2 A 1 3C no"]),
    "crlf-and-extra-spaces": ("2\r\n 1  A 2 3C no \r\n2 A 1\t3C no\r\n\r\n", ["1 A 2 3C no", "2 A 1 3C no"]),
    "no-actions": ("0\n", []),
    "no-final-newline": ("1\n1 Q 1", ["1 Q 1"]),
}


@pytest.mark.parametrize(("text", "actions"), CONTEST.values(), ids=CONTEST.keys())
def test_read_contest(text: str, actions: list[str]) -> None:
    assert read_contest(text) == actions


def test_verdict_contest_lines() -> None:
    assert [Verdict(None).contest_lines(), Verdict(7).contest_lines()] == ["yes\n", "no\n7\n"]


def triples_quartets(*args: str, stdin: bytes = b"") -> tuple[int, str, str]:
    """The command as a user runs it, in a subprocess."""
    done = subprocess.run(
        [sys.executable, "-m", "triples", "quartets", *args], input=stdin, capture_output=True, timeout=60
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


@pytest.fixture
def quartets_in_process(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], tuple[int, str, str]]:
    """``triples quartets`` on stdin through ``cli.main`` in this process (a subprocess per
    case would pay the interpreter's start-up each time)."""

    def call(stdin: bytes) -> tuple[int, str, str]:
        stdout, stderr = io.BytesIO(), io.BytesIO()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(stdout, write_through=True))
        monkeypatch.setattr(sys, "stderr", io.TextIOWrapper(stderr, write_through=True))
        status = cli.main(["quartets"])
        return status, stdout.getvalue().decode(), stderr.getvalue().decode()

    return call


def contest_text(actions: list[str]) -> bytes:
    return "\n".join([str(len(actions)), *actions, ""]).encode()


CLI_CASES = {
    "cheated": (contest_text(SPEC_CHEATED), (0, "no\n4\n", "")),
    "fair": (contest_text(SPEC_FAIR), (0, "yes\n", "")),
    "empty-game": (b"0\n", (0, "yes\n", "")),
    "action-error": (
        contest_text(["1 A 2 3C no", "1 A 2 3C no"]),
        (2, "", "triples quartets: error: action 2: player 1 acts out of turn: it is player 2's turn\n"),
    ),
    "count-too-large": (
        b"3\n1 A 2 3C no\n",
        (2, "", "triples quartets: error: <stdin>: 3 actions announced, 1 given\n"),
    ),
    "count-too-small": (
        b"0\n1 A 2 3C no\n",
        (2, "", "triples quartets: error: <stdin>: 0 actions announced, 1 given\n"),
    ),
    "count-not-a-number": (
        b"two\n1 A 2 3C no\n",
        (2, "", "triples quartets: error: <stdin>: the first line must be the number of actions\n"),
    ),
    "empty-input": (
        b"",
        (2, "", "triples quartets: error: <stdin>: empty input: expected the number of actions on the first line\n"),
    ),
    "not-utf8": (b"1\n1 Q \xff\n", (2, "", "triples quartets: error: <stdin>: not UTF-8 text\n")),
}


@pytest.mark.parametrize(("stdin", "expected"), CLI_CASES.values(), ids=CLI_CASES.keys())
def test_command_on_stdin(
    quartets_in_process: Callable[[bytes], tuple[int, str, str]], stdin: bytes, expected: tuple[int, str, str]
) -> None:
    assert quartets_in_process(stdin) == expected


def test_command_in_a_subprocess_reads_a_file_or_dash(tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_bytes(contest_text(SPEC_CHEATED))
    assert triples_quartets(str(path)) == (0, "no\n4\n", "")
    assert triples_quartets("-", stdin=contest_text(["1 A 1 3C no"])) == (
        2,
        "",
        "triples quartets: error: action 1: player 1 asks themselves\n",
    )
    missing = tmp_path / "missing.txt"
    assert triples_quartets(str(missing)) == (2, "", f"triples quartets: error: {missing}: No such file or directory\n")


# ---------------------------------------------------------------- the interpreter

USAGE = 'error: usage: ["quartets", actions]'
USAGE_CASES = {
    "no-actions": ["quartets"],
    "not-a-list": ["quartets", "1 A 2 3C no"],
    "not-strings": ["quartets", [1]],
    "null-item": ["quartets", ["1 A 2 3C no", None]],
    "nested": ["quartets", [["1 A 2 3C no"]]],
    "extra-argument": ["quartets", [], 1],
    "an-object": ["quartets", {"actions": []}],
}


@pytest.mark.parametrize("operation", USAGE_CASES.values(), ids=USAGE_CASES.keys())
def test_usage_errors(operation: list[object]) -> None:
    assert run([operation]) == [USAGE]


def test_lone_surrogate_line_is_an_error_that_stays_json() -> None:
    assert run([["quartets", ["\ud800"]]]) == ["error: action 1: " + SHAPES]


# ---------------------------------------------------------------- the brute force


@dataclass
class Hands:
    """One deal's real hands as play goes on."""

    hands: list[set[str]]
    fair: bool = True


@dataclass
class BruteGame:
    """Every deal of a small game, played action by action; the public state is read off them."""

    rules: QuartetsRules
    deals: list[Hands]
    turn: int | None = 1
    aside: set[int] = field(default_factory=set)

    @classmethod
    def start(cls, rules: QuartetsRules) -> BruteGame:
        return cls(rules, [Hands([set(hand) for hand in hands]) for hands in every_deal(rules)])

    def sizes(self) -> list[int]:
        return [len(hand) for hand in self.deals[0].hands]

    def rule_break(self, tokens: list[str]) -> str | None:
        sizes = self.sizes()
        actor = int(tokens[0])
        if self.turn is None:
            return "over"
        if actor != self.turn:
            return "turn"
        if tokens[1] == "Q":
            return "twice" if int(tokens[2]) in self.aside else None
        target = int(tokens[2])
        if target == actor:
            return "self"
        if sizes[target - 1] == 0:
            return "left"
        return "aside" if int(tokens[3][:-1]) in self.aside else None

    def play(self, line: str) -> str | None:
        """Apply one action to every deal; the kind of input error it is, if any."""
        tokens = line.split(" ")
        problem = self.rule_break(tokens)
        if problem:
            return problem
        actor = int(tokens[0]) - 1
        survivors = []
        for deal in self.deals:
            hands = deal.hands
            if tokens[1] == "Q":
                quartet = {f"{tokens[2]}{letter}" for letter in "ABCDEFGH"[: self.rules.cards_per_set]}
                if not quartet <= hands[actor]:
                    continue
                hands[actor] -= quartet
            else:
                target, card = int(tokens[2]) - 1, tokens[3]
                set_label = card[:-1]
                if not any(held[:-1] == set_label for held in hands[actor]):
                    deal.fair = False
                if tokens[4] == "yes":
                    if card not in hands[target]:
                        continue
                    hands[target].remove(card)
                    hands[actor].add(card)
                elif card in hands[target]:
                    deal.fair = False
            survivors.append(deal)
        if not survivors:
            return "physical"
        self.deals = survivors
        if tokens[1] == "Q":
            self.aside.add(int(tokens[2]))
            sizes = self.sizes()
            if sizes[actor] == 0:
                order = [(actor + step) % self.rules.players for step in range(1, self.rules.players)]
                self.turn = next((p + 1 for p in order if sizes[p]), None)
        elif tokens[4] == "no":
            self.turn = int(tokens[2])
        return None


def every_deal(rules: QuartetsRules) -> Iterator[list[list[str]]]:
    cards = [f"{s}{letter}" for s in range(1, rules.sets + 1) for letter in "ABCDEFGH"[: rules.cards_per_set]]

    def deal(left: list[str], players: int) -> Iterator[list[list[str]]]:
        if players == 1:
            yield [left]
            return
        for hand in itertools.combinations(left, rules.hand_size):
            rest = [c for c in left if c not in hand]
            for others in deal(rest, players - 1):
                yield [list(hand), *others]

    yield from deal(cards, rules.players)


def brute_answer(rules: QuartetsRules, actions: list[str]) -> tuple[str, int | None]:
    """("cheated", n) / ("fair", None) / (error kind, action number)."""
    game = BruteGame.start(rules)
    certain_after = None
    for number, line in enumerate(actions, 1):
        problem = game.play(line)
        if problem:
            return problem, number
        if certain_after is None and not any(deal.fair for deal in game.deals):
            certain_after = number
    return ("fair", None) if certain_after is None else ("cheated", certain_after)


ERROR_KINDS = [
    ("over", re.compile(r"the game is over$")),
    ("turn", re.compile(r"acts out of turn")),
    ("self", re.compile(r"asks themselves$")),
    ("left", re.compile(r"has left the game$")),
    ("aside", re.compile(r"^card \S+ is put aside$")),
    ("twice", re.compile(r"^quartet \S+ is already put aside$")),
    ("physical", re.compile(r"'s hand$|would have needed more than")),
]


def our_answer(rules: QuartetsRules, actions: list[str]) -> tuple[str, int | None]:
    try:
        verdict = judge(actions, rules)
    except QuartetsError as exc:
        kind = next(kind for kind, pattern in ERROR_KINDS if pattern.search(exc.reason))
        return kind, exc.number
    return ("fair", None) if verdict.certain_after is None else ("cheated", verdict.certain_after)


# ---------------------------------------------------------------- random games


class Simulation:
    """Play from a random deal: mostly fair moves, with lies, asks without a card of the set,
    surprising "yes" answers (the deal is changed behind the scenes to one that allows them),
    and sometimes one illegal action to end on."""

    def __init__(
        self, rules: QuartetsRules, rng: random.Random, cheat_rate: float, quartet_chance: float = 0.4
    ) -> None:
        self.rules, self.rng, self.cheat_rate, self.quartet_chance = rules, rng, cheat_rate, quartet_chance
        self.letters = "ABCDEFGH"[: rules.cards_per_set]
        cards = [f"{s}{c}" for s in range(1, rules.sets + 1) for c in self.letters]
        rng.shuffle(cards)
        size = rules.hand_size
        self.hands = [set(cards[p * size : (p + 1) * size]) for p in range(rules.players)]
        self.moved: set[str] = set()
        self.aside: set[int] = set()
        self.turn: int | None = 0
        self.actions: list[str] = []

    def sets_in(self, player: int) -> set[int]:
        return {int(card[:-1]) for card in self.hands[player]}

    def cards_of(self, set_number: int) -> list[str]:
        return [f"{set_number}{c}" for c in self.letters]

    def live_sets(self) -> list[int]:
        return [s for s in range(1, self.rules.sets + 1) if s not in self.aside]

    def play(self, length: int, error_rate: float) -> list[str]:
        while len(self.actions) < length and self.turn is not None:
            if self.rng.random() < error_rate:
                self.actions.append(self.illegal_or_odd())
                return self.actions
            self.step(self.turn)
        if self.turn is None and self.rng.random() < 10 * error_rate:  # an action after the end
            self.actions.append(self.illegal_or_odd())
        return self.actions

    def step(self, player: int) -> None:
        rng = self.rng
        complete = [s for s in self.sets_in(player) if set(self.cards_of(s)) <= self.hands[player]]
        targets = [p for p in range(self.rules.players) if p != player and self.hands[p]]
        if complete and (not targets or rng.random() < self.quartet_chance):
            self.show(player, rng.choice(complete))
            return
        target = rng.choice(targets)
        held = sorted(self.sets_in(player))
        unheld = [s for s in self.live_sets() if s not in held]
        cheat = unheld and rng.random() < self.cheat_rate
        set_number = rng.choice(unheld if cheat else held)
        card = rng.choice(self.cards_of(set_number))
        if card in self.hands[target]:
            yes = not rng.random() < self.cheat_rate
        else:
            yes = self.cheat_rate > 0 and rng.random() < 0.15 and self.surprise(card, target)
        self.ask(player, target, card, yes)

    def surprise(self, card: str, target: int) -> bool:
        """Swap ``card`` with an unmoved card of ``target`` in the deal, if both are unmoved:
        the past stays physically possible (its fairness may change: only games with cheats
        get surprises), and now ``target`` holds the card."""
        swaps = sorted(self.hands[target] - self.moved)
        if card in self.moved or not swaps:
            return False
        other = self.rng.choice(swaps)
        holder = next(p for p, hand in enumerate(self.hands) if card in hand)
        self.hands[holder].remove(card)
        self.hands[holder].add(other)
        self.hands[target].remove(other)
        self.hands[target].add(card)
        return True

    def ask(self, player: int, target: int, card: str, yes: bool) -> None:
        self.actions.append(f"{player + 1} A {target + 1} {card} {'yes' if yes else 'no'}")
        if yes:
            self.hands[target].remove(card)
            self.hands[player].add(card)
            self.moved.add(card)
        else:
            self.turn = target

    def show(self, player: int, set_number: int) -> None:
        self.actions.append(f"{player + 1} Q {set_number}")
        self.hands[player] -= set(self.cards_of(set_number))
        self.aside.add(set_number)
        if not self.hands[player]:
            players = self.rules.players
            order = [(player + step) % players for step in range(1, players)]
            self.turn = next((p for p in order if self.hands[p]), None)

    def illegal_or_odd(self) -> str:
        """An action that breaks a rule, or may be physically impossible, or is just random."""
        rng, players = self.rng, self.rules.players
        turn = self.turn if self.turn is not None else rng.randrange(players)
        others = [p for p in range(players) if p != turn]
        any_card = f"{rng.randint(1, self.rules.sets)}{rng.choice(self.letters)}"
        answer = rng.choice(["yes", "no"])
        choices = [
            f"{rng.choice(others) + 1} A {turn + 1} {any_card} {answer}",
            f"{turn + 1} A {turn + 1} {any_card} {answer}",
            f"{turn + 1} A {rng.choice(others) + 1} {any_card} {answer}",
            f"{turn + 1} A {rng.choice(others) + 1} {any_card} yes",
            f"{turn + 1} Q {rng.randint(1, self.rules.sets)}",
            f"{rng.choice(others) + 1} Q {rng.randint(1, self.rules.sets)}",
        ]
        elsewhere = [
            (card, holder) for holder, hand in enumerate(self.hands) for card in hand & self.moved if holder in others
        ]
        if elsewhere:  # a card handed over in sight, asked for from someone who cannot have it
            card, holder = rng.choice(elsewhere)
            target = rng.choice([p for p in others if p != holder] or [holder])
            choices.append(f"{turn + 1} A {target + 1} {card} yes")
        return rng.choice(choices)


SMALL_GAMES = {
    "2p-2x2": (QuartetsRules(players=2, sets=2, cards_per_set=2, hand_size=2), 600),
    "2p-3x2": (QuartetsRules(players=2, sets=3, cards_per_set=2, hand_size=3), 700),
    "2p-2x3": (QuartetsRules(players=2, sets=2, cards_per_set=3, hand_size=3), 600),
    "3p-3x2": (QuartetsRules(players=3, sets=3, cards_per_set=2, hand_size=2), 700),
    "3p-2x3": (QuartetsRules(players=3, sets=2, cards_per_set=3, hand_size=2), 500),
    "2p-4x2": (QuartetsRules(players=2, sets=4, cards_per_set=2, hand_size=4), 400),
    "4p-2x2": (QuartetsRules(players=4, sets=2, cards_per_set=2, hand_size=1), 400),
}


@pytest.mark.parametrize(("rules", "games"), SMALL_GAMES.values(), ids=SMALL_GAMES.keys())
def test_agrees_with_the_brute_force_on_random_games(rules: QuartetsRules, games: int) -> None:
    rng = random.Random(f"quartets {rules}")
    outcomes: dict[str, int] = {}
    for game in range(games):
        cheat_rate = rng.choice([0.0, 0.05, 0.2])
        actions = Simulation(rules, rng, cheat_rate).play(rng.randint(1, 25), error_rate=rng.choice([0.0, 0.03]))
        expected = brute_answer(rules, actions)
        assert our_answer(rules, actions) == expected, (game, actions)
        outcomes[expected[0]] = outcomes.get(expected[0], 0) + 1
    # the random games reach every kind of answer, so the agreement means something
    assert outcomes.get("fair", 0) > games // 10
    assert outcomes.get("cheated", 0) > games // 20
    assert sum(outcomes.values()) - outcomes.get("fair", 0) - outcomes.get("cheated", 0) > games // 20


def test_random_games_reach_every_kind_of_input_error() -> None:
    rules = SMALL_GAMES["3p-3x2"][0]
    rng = random.Random(12)
    kinds = set()
    for _ in range(600):
        actions = Simulation(rules, rng, 0.1).play(rng.randint(1, 25), error_rate=0.05)
        kinds.add(brute_answer(rules, actions)[0])
    assert kinds == {"fair", "cheated", "over", "turn", "self", "left", "aside", "twice", "physical"}


# ---------------------------------------------------------------- the real game, long games


def test_fair_play_is_never_called_cheating() -> None:
    rng = random.Random(2026)
    for _ in range(60):
        actions = Simulation(DEFAULT_RULES, rng, cheat_rate=0.0).play(rng.randint(50, 400), error_rate=0.0)
        assert answer(actions) == {"cheated": False}, actions


def test_the_kept_matching_agrees_with_matching_every_prefix_from_scratch() -> None:
    rng = random.Random(7)
    for _ in range(40):
        actions = Simulation(DEFAULT_RULES, rng, cheat_rate=0.03).play(rng.randint(20, 120), error_rate=0.0)
        assert judge(actions) == judge_every_prefix(actions), actions


@pytest.mark.parametrize("cheat_rate", [0.0, 0.0005], ids=["fair", "rare-cheats"])
def test_long_games(cheat_rate: float) -> None:
    rng = random.Random(99)
    actions = Simulation(DEFAULT_RULES, rng, cheat_rate, quartet_chance=0.0).play(3000, error_rate=0.0)
    assert len(actions) == 3000
    verdict = judge(actions)
    if cheat_rate == 0.0:
        assert verdict == Verdict(None)
    else:
        assert verdict.certain_after is not None
        assert judge(actions[: verdict.certain_after - 1]) == Verdict(None)


def test_referee_reports_state_after_each_action() -> None:
    referee = Referee()
    for line in SPEC_CHEATED[:3]:
        referee.watch(line)
    assert (referee.turn, referee.hand_size, referee.certain_after) == (1, [8, 10, 7, 7], None)
    referee.watch(SPEC_CHEATED[3])
    assert referee.certain_after == 4


def test_rules_must_deal_every_card() -> None:
    with pytest.raises(ValueError, match="the hands must hold every card"):
        QuartetsRules(players=3, sets=8, cards_per_set=4, hand_size=8)
    with pytest.raises(ValueError, match="a game needs two players"):
        QuartetsRules(players=1, sets=2, cards_per_set=4, hand_size=8)
