"""An independent, deliberately naive model of the SPEC and the hypothesis strategies the
property tests share.

The model knows nothing of ``triples.model.table`` or ``triples.model.rules``: it replays a game from its
deck and its move list, checks a move by reading the SPEC's six rules top to bottom, and finds
moves by trying every slot combination. The properties compare the engine against it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import orjson
from hypothesis import strategies as st

from triples.model.variant import Variant
from triples.model.variants import FIELDS as VARIANT_FIELDS
from triples.model.variants import VARIANTS, parse_variant
from triples.support.errors import TriplesError

VARIANT_NAMES: list[str] = sorted(VARIANTS)
# Variants small enough to try every slot combination on each step (grid100 has C(100, 3)).
SMALL_VARIANT_NAMES: list[str] = [name for name in VARIANT_NAMES if VARIANTS[name].slots <= 12]
GAME_IDS: list[str | int] = ["g", 1, "1"]
ANY_ERROR = object()  # a prediction: some "error: ..." string, its text not pinned by the SPEC
ADOPT = object()  # autoplay with a strategy the model has no copy of: checked, then adopted
SEARCHED = object()  # best or solve on a live game: checked against brute_best
QUARTETS = object()  # quartets on a list of lines: a verdict or an action error (tests/test_quartets.py pins them)


def is_game_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def escaped(text: str) -> str:
    """A caller's text as an error message echoes it: lone surrogates as backslash escapes."""
    return text.encode(errors="backslashreplace").decode()


def card_value(variant: Variant, code: str) -> int:
    rank = code[:-1]
    if rank == "A":
        return 1
    if rank in ("J", "Q", "K"):
        assert variant.court is not None
        return variant.court[("J", "Q", "K").index(rank)]
    return int(rank)


@dataclass
class Position:
    table: list[str | None]
    stock: list[str]
    cleared: list[str]


@dataclass
class ReferenceGame:
    """A game as the SPEC describes it: a deck (top first) and the moves played, sorted."""

    variant: Variant
    deck: list[str]
    moves: list[list[int]] = field(default_factory=list)

    def position(self) -> Position:
        slots = self.variant.slots
        table: list[str | None] = [*self.deck[:slots], *[None] * max(0, slots - len(self.deck))]
        next_card = min(slots, len(self.deck))
        cleared: list[str] = []
        for move in self.moves:
            for slot in sorted(move):  # refill in increasing slot order
                card = table[slot]
                assert card is not None
                cleared.append(card)
                table[slot] = self.deck[next_card] if next_card < len(self.deck) else None
                next_card += next_card < len(self.deck)
        return Position(table, self.deck[next_card:], cleared)

    def values(self) -> list[int]:
        return [0 if c is None else card_value(self.variant, c) for c in self.position().table]

    def play_output(self, positions: object) -> str:
        """The SPEC's answer to ``["play", id, positions]``: the first failing rule, or ok."""
        variant = self.variant
        k = variant.per_move
        if not isinstance(positions, list) or len(positions) != k:
            return f"error: pick exactly {k} cards"
        if not all(is_int(p) for p in positions):
            return "error: positions must be integers"
        if any(not 0 <= p < variant.slots for p in positions):
            return "error: position out of range"
        if len(set(positions)) != len(positions):
            return "error: positions must be distinct"
        values = self.values()
        if any(values[p] == 0 for p in positions):
            return "error: empty slot"
        total = sum(values[p] for p in positions)
        if total != variant.target:
            return f"error: cards sum to {total}, need {variant.target}"
        return "ok"

    def autoplay(self, choose: Any) -> list[list[int]]:
        """Play ``choose``'s moves to the end; the moves played."""
        played = []
        while (move := choose(self.variant, self.values())) is not None:
            self.moves.append(move)
            played.append(move)
        return played

    def legal_moves(self) -> list[list[int]]:
        return slot_moves(self.variant, self.values())

    def over(self) -> bool:
        values = self.values()
        occupied = [slot for slot, v in enumerate(values) if v]
        k, target = self.variant.per_move, self.variant.target
        return not any(sum(values[s] for s in c) == target for c in combinations(occupied, k))

    def status(self) -> dict[str, Any]:
        position = self.position()
        return {"cleared": len(position.cleared), "stock": len(position.stock), "over": self.over()}


def slot_moves(variant: Variant, values: list[int]) -> list[list[int]]:
    """Every legal slot move on these values, lexicographic (combinations come out sorted)."""
    occupied = [slot for slot, v in enumerate(values) if v]
    combos = combinations(occupied, variant.per_move)
    return [list(c) for c in combos if sum(values[s] for s in c) == variant.target]


def choose_high(variant: Variant, values: list[int]) -> list[int] | None:
    """SPEC 5: values high to low, largest element by element; ties to the smallest slot list."""
    moves = slot_moves(variant, values)
    if not moves:
        return None
    return max(moves, key=lambda m: (sorted((values[s] for s in m), reverse=True), [-s for s in m]))


def choose_first(variant: Variant, values: list[int]) -> list[int] | None:
    """The lexicographically first legal move."""
    moves = slot_moves(variant, values)
    return moves[0] if moves else None


def choose_lookahead(variant: Variant, values: list[int]) -> list[int] | None:
    """Most legal moves left once the move's cards are gone (no refill); ties to the smallest
    ascending value list, then the smallest slot list."""

    def left_after(move: list[int]) -> int:
        rest = [0 if slot in move else v for slot, v in enumerate(values)]
        return len(slot_moves(variant, rest))

    moves = slot_moves(variant, values)
    if not moves:
        return None
    return min(moves, key=lambda m: (-left_after(m), sorted(values[s] for s in m), m))


REFERENCE_STRATEGIES: dict[str, Any] = {"high": choose_high, "first": choose_first, "lookahead": choose_lookahead}


def brute_best(variant: Variant, deck_values: list[int], table_values: list[int], next_card: int) -> int:
    """The most cards any line can still clear, by trying every value combination in every
    state. Slots never matter to a score, so a state is the sorted values and the stock position."""
    k, target = variant.per_move, variant.target
    memo: dict[tuple[tuple[int, ...], int], int] = {}

    def go(table: tuple[int, ...], stock_at: int) -> int:
        found = memo.get((table, stock_at))
        if found is not None:
            return found
        best = 0
        for combo in set(combinations(table, k)):
            if sum(combo) == target:
                rest = list(table)
                for v in combo:
                    rest.remove(v)
                refill = deck_values[stock_at : stock_at + k]
                best = max(best, k + go(tuple(sorted(rest + refill)), stock_at + len(refill)))
        memo[(table, stock_at)] = best
        return best

    return go(tuple(sorted(v for v in table_values if v)), next_card)


def naive_factory_order(variant: Variant) -> list[str]:
    """SPEC section 3's factory order, spelled out again: suits S, H, D, C (the first `suits`), ranks ascending."""
    if variant.deck == "standard":
        ranks = ["A", *map(str, range(2, 11)), "J", "Q", "K"]
    else:
        ranks = [str(v) for v in range(1, variant.top_rank + 1)]
    return [rank + suit for suit in "SHDC"[: variant.suits] for rank in ranks]


def lcg_shuffle(cards: list[str], seed: int) -> list[str]:
    """The deal read off its definition, independently of triples.model.shuffle: a 32-bit LCG
    (state = 1664525 * state + 1013904223 mod 2^32, Python's % for every step, each draw the
    state's high 16 bits) driving a Fisher-Yates from the last card down with draw % (i + 1),
    card 0 dealt first (to slot 0)."""
    deck = list(cards)
    state = seed % 2**32
    for i in range(len(deck) - 1, 0, -1):
        state = (1664525 * state + 1013904223) % 2**32
        j = (state // 65536) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def naive_deal(variant: Variant, seed: int) -> list[str]:
    """The deal of ``variant``'s factory order, shuffled by ``lcg_shuffle``."""
    return lcg_shuffle(naive_factory_order(variant), seed)


def naive_value_deck(variant: Variant, values: list[int]) -> list[str] | None:
    """SPEC section 8 read literally: a numeric deck as plain values, the n-th copy of a value
    taking the n-th suit of S, H, D, C; None unless each value is there as often as in the deck."""
    if sorted(values) != sorted(int(code[:-1]) for code in naive_factory_order(variant)):
        return None
    seen: dict[int, int] = {}
    codes = []
    for v in values:
        codes.append(f"{v}{'SHDC'[seen.get(v, 0)]}")
        seen[v] = seen.get(v, 0) + 1
    return codes


# --- Uniscraper (SPEC section 9), read literally ---------------------------------------------

PYRAMID_RANKS = "23456789TJQKA"
PYRAMID_ROWS = [list(range(r * (r - 1) // 2 + 1, r * (r + 1) // 2 + 1)) for r in range(1, 9)]  # positions by row


def naive_pyramid(config: str) -> tuple[str, dict[int, str]] | None:
    """The play card and the cards by position of a valid config; None for an invalid one."""
    if not 1 <= len(config) <= 37 or any(c not in PYRAMID_RANKS + "." for c in config) or config[0] == ".":
        return None
    if any(config.count(rank) > 4 for rank in PYRAMID_RANKS):
        return None
    cards = {p: c for p, c in enumerate(config[1:], start=1) if c != "."}
    for r in range(1, 8):
        for c, p in enumerate(PYRAMID_ROWS[r]):
            over = [PYRAMID_ROWS[r - 1][x] for x in (c - 1, c) if 0 <= x < r]
            if p in cards and any(q not in cards for q in over):
                return None
    return config[0], cards


def pyramid_free(cards: dict[int, str]) -> list[int]:
    """The positions no card covers, ascending: row r column c is covered by row r+1 columns c, c+1."""
    free = []
    for r, row in enumerate(PYRAMID_ROWS):
        for c, p in enumerate(row):
            below = [] if r == 7 else [PYRAMID_ROWS[r + 1][c], PYRAMID_ROWS[r + 1][c + 1]]
            if p in cards and not any(q in cards for q in below):
                free.append(p)
    return free


def next_to(a: str, b: str) -> bool:
    return (PYRAMID_RANKS.index(a) - PYRAMID_RANKS.index(b)) % 13 in (1, 12)


def all_runs(config: str) -> list[list[int]]:
    """Every run from a valid config, the empty one included, by trying every free card at every
    step (no memo: exponential, for small pyramids only)."""
    parsed = naive_pyramid(config)
    assert parsed is not None, config
    play, cards = parsed
    runs: list[list[int]] = []

    def extend(run: list[int], play: str, cards: dict[int, str]) -> None:
        runs.append(run)
        for p in pyramid_free(cards):
            if next_to(cards[p], play):
                rest = dict(cards)
                del rest[p]
                extend([*run, p], cards[p], rest)

    extend([], play, cards)
    return runs


def brute_bestrun(config: str) -> list[int]:
    """SPEC section 9's best run: the longest, then the lexicographically smallest."""
    return min(all_runs(config), key=lambda run: (-len(run), run))


# --- hypothesis strategies -------------------------------------------------------------------

ODD_STRINGS = ["", " ", "new", "play", "NEW", "g", "classic", "AH", "10H", "1H", "\x00", "é", "🂡", "a" * 300]
MAX_SEED_64 = 2**64 - 1
ODD_INTEGERS = [0, 1, -1, 2**31, 2**32 - 1, 2**32, 2**63 - 1, 2**63, MAX_SEED_64, MAX_SEED_64 + 1, -(2**64), 10**30]

# Lone surrogates: not encodable as UTF-8, yet Python's json.loads makes them from "\ud800".
surrogate_text = st.text(st.characters(categories=["Cs", "Lu"]), min_size=1, max_size=3)
odd_text = st.text(max_size=8) | st.sampled_from(ODD_STRINGS) | surrogate_text

json_scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=14),
    st.integers(),
    st.sampled_from(ODD_INTEGERS),
    st.floats(),
    st.text(max_size=6),
    st.sampled_from(ODD_STRINGS),
    surrogate_text,
)


def nested(depth: int) -> Any:
    """A list nested ``depth`` deep: arbitrary depth without a recursive strategy's cost."""
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


json_values: st.SearchStrategy[Any] = st.one_of(
    st.recursive(
        json_scalars,
        lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=3),
        max_leaves=10,
    ),
    st.integers(min_value=0, max_value=3000).map(nested),
)
game_ids: st.SearchStrategy[Any] = st.sampled_from(GAME_IDS) | json_scalars


@st.composite
def decks(draw: st.DrawFn, variant: Variant) -> list[Any]:
    """A permutation of the variant's deck, sometimes spoiled so that it is no longer one."""
    deck: list[Any] = draw(st.permutations([c.code for c in variant.cards]))
    if variant.deck == "numeric" and draw(st.booleans()):  # SPEC section 8: the deck as plain values
        deck = [int(code[:-1]) for code in deck]
    spoil = draw(st.sampled_from(["none", "none", "drop", "duplicate", "foreign", "not-a-string", "extra"]))
    if spoil == "drop":
        del deck[draw(st.integers(0, len(deck) - 1))]
    elif spoil == "duplicate":
        deck[draw(st.integers(0, len(deck) - 1))] = deck[draw(st.integers(0, len(deck) - 1))]
    elif spoil == "foreign":
        foreign = ["1H", "KS", "0H", "AX", "ah", "10", 0, 10, 26, -1]
        deck[draw(st.integers(0, len(deck) - 1))] = draw(st.sampled_from(foreign))
    elif spoil == "not-a-string":
        deck[draw(st.integers(0, len(deck) - 1))] = draw(json_scalars)
    elif spoil == "extra":
        deck.append(deck[0])
    return deck


@st.composite
def new_operations(draw: st.DrawFn, ids: st.SearchStrategy[Any] = game_ids) -> list[Any]:
    name = draw(st.sampled_from(VARIANT_NAMES))
    variant = VARIANTS[name]
    source = draw(
        st.one_of(
            st.integers(min_value=0, max_value=MAX_SEED_64),
            st.integers(),
            st.integers(min_value=-50, max_value=50),
            decks(variant),
            json_values,
        )
    )
    tail = draw(
        st.sampled_from(["named", "named", "default", "garbage", "extra"])
        if name == "classic"
        else st.sampled_from(["named", "named", "named", "garbage"])
    )
    op: list[Any] = ["new", draw(ids), source]
    if tail == "named":
        op.append(name)
    elif tail == "garbage":
        op.append(draw(json_scalars | odd_text))
    elif tail == "extra":
        op += [name, draw(json_values)]
    return op


def positions_lists(slots: int = 12, k: int = 3) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(st.integers(min_value=-1, max_value=slots), min_size=k, max_size=k),
        st.lists(st.integers(min_value=-1, max_value=slots), min_size=max(0, k - 1), max_size=k + 1),
        st.lists(json_scalars, min_size=k, max_size=k),
        json_values,
    )


READ_OPERATIONS = ["table", "status", "history", "moves"]


def _strategy_names() -> list[str]:
    from triples.engines.strategies import STRATEGIES

    return sorted(STRATEGIES)


strategy_names: st.SearchStrategy[Any] = st.sampled_from(_strategy_names()) | odd_text | json_scalars


@st.composite
def small_pyramids(draw: st.DrawFn) -> str:
    """A valid config of at most 5 rows (cheap for brute_bestrun), often of few ranks so that
    runs are long: a pyramid filled row by row, then a few free cards taken away."""
    size = draw(st.sampled_from([0, 1, 3, 6, 10, 15]))
    ranks = draw(st.sampled_from(["2A3K", PYRAMID_RANKS, "KA"]))
    cards = draw(st.permutations([rank for rank in ranks for _ in range(4)]))[: size + 1]
    held = dict(enumerate(cards[1:], start=1))  # a prefix in row order: no card over a gap
    for _ in range(draw(st.integers(0, 4))):
        free = pyramid_free(held)
        if free:
            del held[draw(st.sampled_from(free))]
    return cards[0] + "".join(held.get(p, ".") for p in range(1, size + 1))


SPEC_CONFIGS = ["6KQJT98765432AKQJT98765432AKQJT987654", "KJQKA2A", "KAKJA.TK..JQ...Q", "A2A2KAK2", "K."]
uniscraper_configs: st.SearchStrategy[Any] = (
    st.sampled_from(SPEC_CONFIGS)
    | small_pyramids()
    | st.text(alphabet=PYRAMID_RANKS + ".", max_size=11)
    | st.text(alphabet=PYRAMID_RANKS + ".", min_size=36, max_size=39).filter(lambda c: naive_pyramid(c) is None)
    | odd_text
    | json_scalars
)


@st.composite
def operations(draw: st.DrawFn) -> Any:
    """One operation, valid or not, with no knowledge of the session it will meet."""
    kinds = ["new", "play", "play", "read", "undo", "garbage", "shape", "autoplay", "search", "bestrun", "quartets"]
    kind = draw(st.sampled_from(kinds))
    if kind == "new":
        return draw(new_operations())
    if kind == "play":
        return ["play", draw(game_ids), draw(positions_lists())]
    if kind == "read":
        return [draw(st.sampled_from(READ_OPERATIONS)), draw(game_ids)]
    if kind == "undo":
        return ["undo", draw(game_ids)]
    if kind == "autoplay":
        return ["autoplay", draw(game_ids), *draw(st.lists(strategy_names, max_size=1))]
    if kind == "search":
        return [draw(st.sampled_from(["best", "solve"])), draw(game_ids)]
    if kind == "bestrun":
        return ["bestrun", draw(uniscraper_configs)]
    if kind == "quartets":
        return ["quartets", *draw(st.lists(quartets_actions, max_size=2))]
    if kind == "shape":  # a known name with the wrong number of arguments
        name = draw(st.sampled_from(["new", "play", "undo", "autoplay", "best", "solve", "bestrun", *READ_OPERATIONS]))
        return [name, *draw(st.lists(json_values, max_size=4))]
    return draw(json_values | st.tuples(odd_text, st.lists(json_values, max_size=3)).map(lambda t: [t[0], *t[1]]))


# --- the reference interpreter ---------------------------------------------------------------


@dataclass(frozen=True)
class Prefix:
    """A prediction: an error whose text the SPEC pins only by its start."""

    text: str


Expectation = Any  # an exact output, a Prefix, or ANY_ERROR

KNOWN_OPERATIONS = ["new", "play", "table", "status", "history", "moves", "undo", "autoplay", "best", "solve"]
KNOWN_OPERATIONS += ["bestrun"]  # SPEC section 9: stateless, answered by expect_bestrun
KNOWN_OPERATIONS += ["quartets"]  # SPEC section 10: stateless, answered by expect_quartets
ARITY = {"new": (2, 3), "play": (2, 2), "autoplay": (1, 2)}  # arguments after the name


class ReferenceSession:
    """What the SPEC says each operation answers, for the operations whose answer it pins.

    ``expect`` returns the prediction and applies the operation to the model when it
    succeeds. Operations the model cannot predict (autoplay, best, solve) are left to
    ``adopt``, which takes the engine's answer after the caller has checked it.
    """

    def __init__(self) -> None:
        self.games: dict[Any, ReferenceGame] = {}

    def expect(self, op: object) -> Expectation:
        if not isinstance(op, list) or not op or not isinstance(op[0], str):
            return "error: malformed operation"
        name, args = op[0], op[1:]
        if name not in KNOWN_OPERATIONS:
            return f"error: unknown operation '{escaped(name)}'"
        if name == "bestrun":
            return expect_bestrun(args)
        if name == "quartets":
            return expect_quartets(args)
        low, high = ARITY.get(name, (1, 1))
        if not low <= len(args) <= high or not is_game_id(args[0]):
            return Prefix("error: usage: ")
        if name == "new":
            return self._new(args)
        if name == "autoplay" and len(args) == 2 and not isinstance(args[1], str):
            return Prefix("error: usage: ")
        game = self.games.get(args[0])
        if game is None:
            return "error: unknown game"
        if name == "play":
            output = game.play_output(args[1])
            if output == "ok":
                game.moves.append(sorted(args[1]))
            return output
        if name == "table":
            return game.position().table
        if name == "status":
            return game.status()
        if name == "history":
            return [list(m) for m in game.moves]
        if name == "moves":
            return game.legal_moves()
        if name == "undo":
            if not game.moves:
                return "error: nothing to undo"
            game.moves.pop()
            return "ok"
        if name == "autoplay":
            return self._autoplay(game, args[1] if len(args) == 2 else "high")
        return SEARCHED  # best, solve: checked against brute_best by the caller

    @staticmethod
    def _autoplay(game: ReferenceGame, strategy: str) -> Expectation:
        from triples.engines.strategies import STRATEGIES

        if strategy not in STRATEGIES:
            return f"error: unknown strategy '{escaped(strategy)}'"
        choose = REFERENCE_STRATEGIES.get(strategy)
        if choose is None or game.variant.slots > 12:  # brute-force choosers are too slow on grid100
            return ADOPT
        played = game.autoplay(choose)
        return {"moves": played, "cleared": len(game.position().cleared)}

    def _new(self, args: list[Any]) -> Expectation:
        game_id, source = args[0], args[1]
        if not (is_int(source) or isinstance(source, list)):
            return Prefix("error: usage: ")
        if len(args) == 3 and not isinstance(args[2], str | dict):
            return Prefix("error: usage: ")
        variant, refusal = self._variant(args[2] if len(args) == 3 else "classic")
        deck = self._deck(variant, source) if variant is not None else None
        if variant is None:
            return refusal if self._plausible(source) else ANY_ERROR
        if deck is None:
            return ANY_ERROR
        self.games[game_id] = ReferenceGame(variant, deck)
        return self.games[game_id].position().table

    @staticmethod
    def _variant(spec: str | dict[str, Any]) -> tuple[Variant | None, Expectation]:
        """The variant a name or an object names, or None and the refusal to expect. An object
        setting rule fields is built by the engine (its rules are checked in test_variants)."""
        if isinstance(spec, str):
            return VARIANTS.get(spec), f"error: unknown variant '{escaped(spec)}'"
        if not set(spec) <= {"base", *VARIANT_FIELDS}:
            return None, Prefix("error: bad variant: unknown field")
        base = spec.get("base", "classic")
        if not isinstance(base, str):
            return None, Prefix("error: bad variant: base must be")
        if base not in VARIANTS:
            return None, f"error: unknown variant '{escaped(base)}'"
        if set(spec) == {"base"} or not spec:
            return VARIANTS[base], None
        try:
            return parse_variant(spec), None
        except TriplesError:
            return None, Prefix("error: bad variant: ")

    @staticmethod
    def _plausible(source: object) -> bool:
        """A source some variant would accept: only then is the variant the sole failure."""
        return any(ReferenceSession._deck(v, source) is not None for v in VARIANTS.values())

    @staticmethod
    def _deck(variant: Variant, source: object) -> list[str] | None:
        if is_int(source):
            assert isinstance(source, int)
            return naive_deal(variant, source)
        assert isinstance(source, list)
        if variant.deck == "numeric" and source and all(is_int(v) for v in source):
            return naive_value_deck(variant, source)
        codes = [c.code for c in variant.cards]
        if len(source) != len(codes) or not all(isinstance(c, str) for c in source):
            return None
        return list(source) if sorted(source) == sorted(codes) else None

    def adopt(self, game_id: Any, moves: list[list[int]]) -> None:
        """Record moves the engine made for the model (the caller checked they were legal)."""
        self.games[game_id].moves.extend(moves)


def expect_bestrun(args: list[Any]) -> Expectation:
    """SPEC section 9: no game, no state; the brute-force best run of a valid config."""
    if len(args) != 1 or not isinstance(args[0], str):
        return 'error: usage: ["bestrun", config]'
    if naive_pyramid(args[0]) is None:
        return Prefix("error: bad config: ")
    return brute_bestrun(args[0])


QUARTETS_LINES = ["1 A 2 3C no", "1 A 2 3C yes", "2 A 1 3A no", "2 A 3 3D yes", "1 Q 3", "1 A 1 1A no", "9 Q 9", "x"]
quartets_actions: st.SearchStrategy[Any] = (
    st.lists(st.sampled_from(QUARTETS_LINES) | odd_text, max_size=6) | st.lists(json_values, max_size=2) | json_values
)


def expect_quartets(args: list[Any]) -> Expectation:
    """SPEC section 10: no game, no state; a list of strings gets a verdict or an action error."""
    if len(args) != 1 or not isinstance(args[0], list) or not all(isinstance(line, str) for line in args[0]):
        return 'error: usage: ["quartets", actions]'
    return QUARTETS


def quartets_output_fits(actions: list[str], output: object) -> bool:
    """The shape of a quartets answer: a verdict with an action number within the list, or an
    error naming such an action."""
    numbers = range(1, len(actions) + 1)
    if isinstance(output, str):
        found = re.fullmatch(r"error: action ([0-9]+): .+", output)
        return found is not None and int(found[1]) in numbers
    if output == {"cheated": False}:
        return True
    return (
        isinstance(output, dict)
        and sorted(output) == ["certain_after", "cheated"]
        and output["cheated"] is True
        and type(output["certain_after"]) is int
        and output["certain_after"] in numbers
    )


def matches(output: object, expectation: Expectation) -> bool:
    if expectation is ANY_ERROR:
        return isinstance(output, str) and output.startswith("error: ")
    if isinstance(expectation, Prefix):
        return isinstance(output, str) and output.startswith(expectation.text)
    # Compared as JSON text, which tells False from 0 and 1.0 from 1 at every depth.
    return orjson.dumps(output) == orjson.dumps(expectation)
