"""Uniscraper (docs/uniscraper.md): a one-pyramid solitaire and its exact best run.

Thirty-six positions, numbered 1..36 row by row, form a pyramid of eight rows. A card is free
when neither position covering it (the two below it in the next row) still holds a card. A
run removes free cards one at a time, each one rank from the play card on the cycle
``2 3 4 5 6 7 8 9 T J Q K A`` (wrapping), and the removed card becomes the play card.

Self-contained: nothing here is shared with the sum solitaires' tables and rules.

Why the exact search is cheap: the cards left always form a "down-closed" set (a card stays
only while the cards it lies on stay), and a pyramid of eight rows has only 4,862 such sets
(the Catalan number C(9)). So the state (cards left, play rank) takes at most 4,862 x 13
values; the longest run from each is memoised, and the lexicographically smallest longest
run is rebuilt from the memo one position at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from triples.support.errors import TriplesError

RANKS = "23456789TJQKA"  # in cycle order: each rank's neighbours are the ones either side
GONE = "."
ALPHABET = RANKS + GONE
ROWS = 8
POSITIONS = ROWS * (ROWS + 1) // 2  # 36
MAX_CONFIG_LENGTH = 1 + POSITIONS
MAX_COPIES = 4  # a standard deck holds four cards of each rank


class ConfigError(TriplesError):
    """A config that breaks Uniscraper's rules for a config; the message names the problem."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"bad config: {reason}")


# ---------------------------------------------------------------- the pyramid's geometry


def row_of(position: int) -> int:
    """The row (1..8) of a position (1..36)."""
    row = 1
    while position > row * (row + 1) // 2:
        row += 1
    return row


def column_of(position: int) -> int:
    """The column (from 0) of a position within its row."""
    row = row_of(position)
    return position - 1 - row * (row - 1) // 2


def covered_by(position: int) -> tuple[int, ...]:
    """The positions lying on ``position``: columns c and c+1 of the next row (none in row 8)."""
    row = row_of(position)
    if row == ROWS:
        return ()
    return (position + row, position + row + 1)


def covers(position: int) -> tuple[int, ...]:
    """The positions ``position`` lies on: columns c-1 and c of the row above, those that exist."""
    row, column = row_of(position), column_of(position)
    above = []
    if column >= 1:
        above.append(position - row)
    if column <= row - 2:
        above.append(position - row + 1)
    return tuple(above)


def bit(position: int) -> int:
    return 1 << (position - 1)


COVERED_BY_MASK: tuple[int, ...] = (0, *(sum(map(bit, covered_by(p))) for p in range(1, POSITIONS + 1)))
# For each position, what its removal may free: (the card above, the mask of that card's covers).
UNCOVERS: tuple[tuple[tuple[int, int], ...], ...] = (
    (),
    *(tuple((bit(q), COVERED_BY_MASK[q]) for q in covers(p)) for p in range(1, POSITIONS + 1)),
)


def neighbours(rank: int) -> tuple[int, int]:
    """The two ranks one step from ``rank`` on the cycle (indices into RANKS)."""
    return (rank - 1) % len(RANKS), (rank + 1) % len(RANKS)


# ---------------------------------------------------------------- configs


@dataclass(frozen=True)
class Pyramid:
    """A valid config: the play card's rank and each position's rank (None: gone), as indices
    into RANKS; ``cards[0]`` is position 1."""

    play: int
    cards: tuple[int | None, ...]

    def rank_at(self, position: int) -> int | None:
        return self.cards[position - 1]

    def present_mask(self) -> int:
        return sum(bit(p) for p in range(1, POSITIONS + 1) if self.rank_at(p) is not None)

    def free_mask(self) -> int:
        present = self.present_mask()
        return sum(bit(p) for p in range(1, POSITIONS + 1) if present & bit(p) and not present & COVERED_BY_MASK[p])


def shown(character: str) -> str:
    """A character as a message shows it: quoted when printable, else as its code point."""
    return f"'{character}'" if character.isprintable() else f"U+{ord(character):04X}"


def parse_config(config: str) -> Pyramid:
    """The pyramid a config describes, or ConfigError naming the first problem found.

    Checked in this order: the length, each character, the play card, the count of each rank,
    and that no card lies on an empty position.
    """
    if not 1 <= len(config) <= MAX_CONFIG_LENGTH:
        raise ConfigError(f"length {len(config)}, must be 1 to {MAX_CONFIG_LENGTH} characters")
    for index, character in enumerate(config):
        if character not in ALPHABET:
            raise ConfigError(f"character {shown(character)} at index {index} is not one of {ALPHABET}")
    if config[0] == GONE:
        raise ConfigError("the play card is a dot")
    for rank in RANKS:
        copies = config.count(rank)
        if copies > MAX_COPIES:
            raise ConfigError(f"rank {rank} appears {copies} times, at most {MAX_COPIES}")
    cards = tuple(None if c == GONE else RANKS.index(c) for c in config[1:].ljust(POSITIONS, GONE))
    for position in range(1, POSITIONS + 1):
        if cards[position - 1] is None:
            continue
        for under in covers(position):
            if cards[under - 1] is None:
                raise ConfigError(f"position {position} holds a card over empty position {under}")
    return Pyramid(RANKS.index(config[0]), cards)


# ---------------------------------------------------------------- the best run


class RunSearch:
    """The longest run from each reachable state of one pyramid, memoised.

    A state is the mask of cards left (bit p-1 for position p) and the play rank; the free
    mask travels with it because it follows from the cards left.
    """

    def __init__(self, pyramid: Pyramid) -> None:
        self.pyramid = pyramid
        # Positions holding each rank's neighbours: a play rank's candidates in one AND.
        rank_masks = [0] * len(RANKS)
        for position in range(1, POSITIONS + 1):
            rank = pyramid.rank_at(position)
            if rank is not None:
                rank_masks[rank] |= bit(position)
        self.playable_on = tuple(rank_masks[low] | rank_masks[high] for low, high in map(neighbours, range(len(RANKS))))
        self.rank_of_bit = {bit(p): r for p in range(1, POSITIONS + 1) if (r := pyramid.rank_at(p)) is not None}
        self.memo: dict[int, int] = {}

    def longest(self, left: int, free: int, rank: int) -> int:
        """The length of the longest run from this state."""
        key = left | rank << POSITIONS
        found = self.memo.get(key)
        if found is not None:
            return found
        best = 0
        ceiling = left.bit_count()  # a run that takes every card left cannot be beaten
        candidates = free & self.playable_on[rank]
        while candidates and best < ceiling:
            low = candidates & -candidates
            candidates ^= low
            after, freed = self.remove(left, free, low)
            length = 1 + self.longest(after, freed, self.rank_of_bit[low])
            if length > best:
                best = length
        self.memo[key] = best
        return best

    @staticmethod
    def remove(left: int, free: int, card: int) -> tuple[int, int]:
        """The cards left and the free mask once the free ``card`` (a bit) is removed."""
        after = left ^ card
        free ^= card
        for above, under_mask in UNCOVERS[card.bit_length()]:
            if after & above and not after & under_mask:
                free |= above
        return after, free

    def best_run(self) -> list[int]:
        """The longest run, and among those the lexicographically smallest position list."""
        left, free, rank = self.pyramid.present_mask(), self.pyramid.free_mask(), self.pyramid.play
        remaining = self.longest(left, free, rank)
        run: list[int] = []
        while remaining:
            candidates = free & self.playable_on[rank]
            while True:  # ascending bit order is ascending position order
                low = candidates & -candidates
                candidates ^= low
                after, freed = self.remove(left, free, low)
                if self.longest(after, freed, self.rank_of_bit[low]) == remaining - 1:
                    break
            run.append(low.bit_length())
            left, free, rank, remaining = after, freed, self.rank_of_bit[low], remaining - 1
        return run


def best_run(config: str) -> list[int]:
    """The ``bestrun`` answer for a config: the positions of the best run, in removal order.

    Raises ConfigError for an invalid config.
    """
    return RunSearch(parse_config(config)).best_run()
