"""The players' game, held by the server: players, their attempts at today's secret deal, moves.

The deck of a secret deal never leaves the server while its day lasts: an attempt's state is
the table, the number of cards left in the stock, what is cleared, whether a move is left, the
turn and the moves made, never a card of the stock. Each state is rebuilt from the store (the
deal's deck and the attempt's moves, played again in order), so every server process answers
the same and a restarted one goes on where the last answer left off.

A move is checked by the rules (a refused one is ``422`` with the game's own message) and then
kept by ``Store.play_move``, which commits it before the answer is written and plays a turn at
most once, whichever process or request gets there first; the loser is ``409``.

All store work of a process runs on one thread of its own (``Game.call``): SQLite blocks, and
one connection used from one thread needs no lock, while the event loop goes on answering.
Within a process requests meet in that thread's queue; between processes, at the store's lock.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from triples.doors.service.daily import today
from triples.interpreter.session import variant_rules
from triples.model import rules
from triples.model.cards import Card
from triples.model.deal import explicit_deck
from triples.model.table import Move, Table
from triples.model.variant import Variant
from triples.model.variants import DEFAULT_VARIANT, parse_variant
from triples.store import Attempt, Player, SecretDeal, Store, open_store
from triples.support.errors import TriplesError

T = TypeVar("T")
NAME_LENGTH = 24
NAME_PUNCTUATION = frozenset(" -_.")
TOKEN_BYTES = 32  # 256 random bits
log = logging.getLogger("triples.service")
LEADERBOARD_SIZE = 100
TABLES_KEPT = 10_000  # attempts whose table a process keeps between requests
PLAYERS_KEPT = 100_000  # tokens a process remembers the player of


class Refused(Exception):
    """A request the game answers with ``status`` and ``{"error": message}``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def checked_name(name: object) -> tuple[str, str]:
    """The name as kept (NFC) and as compared (case folded), or ``Refused`` 400."""
    rule = "a name is 1 to 24 letters, digits, spaces, '-', '_' or '.', not starting or ending with a space"
    if not isinstance(name, str):
        raise Refused(400, rule)
    name = unicodedata.normalize("NFC", name)
    fits = 1 <= len(name) <= NAME_LENGTH and name == name.strip(" ")
    if not fits or not all(c in NAME_PUNCTUATION or c.isdecimal() or c.isalpha() for c in name):
        raise Refused(400, rule)
    return name, name.casefold()


def chosen(deals: list[SecretDeal], variant: str | None) -> SecretDeal | None:
    """The deal a request means among a date's deals (by variant name): ``variant``'s, or
    without one the default variant's, else the first."""
    if variant is not None:
        return next((deal for deal in deals if deal.variant == variant), None)
    return next((deal for deal in deals if deal.variant == DEFAULT_VARIANT), deals[0] if deals else None)


@dataclass(frozen=True)
class DealInPlay:
    deal: SecretDeal
    variant: Variant
    cards: list[Card]


class Game:
    """The game of one server process, over the store at ``db``."""

    def __init__(self, db: str) -> None:
        self.db = db
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="triples-store")
        self.store: Store | None = None
        self.deals: dict[str, DealInPlay] = {}  # a deal never changes once set
        self.tables: OrderedDict[int, Table] = OrderedDict()  # by attempt: the table after its moves
        self.players: dict[str, Player] = {}  # by token hash: a player never changes
        self.auditor = ThreadPoolExecutor(1, thread_name_prefix="triples-audit")
        self.auditing: set[str] = set()  # deals whose attempts are being audited

    async def call(self, work: Callable[..., T], *args: Any) -> T:
        """``work(store, *args)`` on the store's thread."""
        return await asyncio.get_running_loop().run_in_executor(self.executor, partial(self.within, work, *args))

    def within(self, work: Callable[..., T], *args: Any) -> T:
        if self.store is None:
            self.store = open_store(self.db, sync_every_commit=False)
        return work(self.store, *args)

    # ------------------------------------------------------------ on the store's thread

    def new_player(self, store: Store, name: object) -> dict[str, Any]:
        kept, key = checked_name(name)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        player = store.add_player(kept, key, token_hash(token), now_ms())
        if player is None:
            raise Refused(409, f"the name '{kept}' is taken")
        return {"player": player.id, "name": player.name, "token": token}

    def known_player(self, token: str) -> Player | None:
        """The token's player if this process has met it (read from any thread: a dict lookup)."""
        return self.players.get(token_hash(token))

    def player(self, store: Store, token: str) -> Player:
        hashed = token_hash(token)
        player = self.players.get(hashed)
        if player is None:
            player = store.player_with_token(hashed)
            if player is None:
                raise Refused(401, "unknown token", {"www-authenticate": "Bearer"})
            if len(self.players) >= PLAYERS_KEPT:
                self.players.clear()
            self.players[hashed] = player
        return player

    def in_play(self, store: Store, deal_id: str) -> DealInPlay:
        known = self.deals.get(deal_id)
        if known is None:
            deal = store.secret_deal(deal_id)
            assert deal is not None, "an attempt's deal is in the store"  # a foreign key
            variant = parse_variant(deal.spec)
            known = self.deals[deal_id] = DealInPlay(deal, variant, explicit_deck(variant, list(deal.deck)))
        return known

    def start(self, store: Store, player: Player, variant: str | None) -> tuple[dict[str, Any], bool]:
        day = today()
        deal = chosen(store.secret_deals_on(day), variant)
        if deal is None:
            of = f" of {variant}" if variant is not None else ""
            raise Refused(404, f"no secret daily deal{of} today ({day})")
        attempt, started = store.start_attempt(player.id, deal.deal, now_ms())
        return self.state_of(attempt, self.table(store, attempt)), started

    def attempt(self, store: Store, player: Player, attempt_text: str) -> Attempt:
        attempt = store.attempt(int(attempt_text)) if attempt_text.isdecimal() and len(attempt_text) < 19 else None
        if attempt is None or attempt.player != player.id:  # another's is as unknown as none
            raise Refused(404, f"no attempt {attempt_text} of yours")
        return attempt

    def state(self, store: Store, player: Player, attempt_text: str) -> dict[str, Any]:
        attempt = self.attempt(store, player, attempt_text)
        return self.state_of(attempt, self.table(store, attempt))

    def move(self, store: Store, player: Player, attempt_text: str, slots: object, turn: int) -> dict[str, Any]:
        attempt = self.attempt(store, player, attempt_text)
        in_play = self.in_play(store, attempt.deal)
        if in_play.deal.date < today():
            raise Refused(409, f"the daily deal of {in_play.deal.date} has ended: no more moves")
        if attempt.finished is not None:
            raise Refused(409, "the attempt is over: no move is left")
        if turn != attempt.turn:
            raise Refused(409, f"turn {turn} is not the attempt's turn ({attempt.turn}): nothing was played")
        table = self.table(store, attempt)
        try:
            move = rules.check_move(table, slots)
        except TriplesError as exc:
            raise Refused(422, str(exc)) from None
        table.push(move)
        try:
            played = store.play_move(attempt.id, turn, move, table.cleared, not rules.has_legal_move(table), now_ms())
        except BaseException:
            table.pop()  # the kept table stays what the store holds
            raise
        if not played:
            table.pop()
            raise Refused(409, f"turn {turn} was played by another request: nothing was played")
        return self.state_of(attempt, table)

    def table(self, store: Store, attempt: Attempt) -> Table:
        """The attempt's table after its moves: the one kept here, or the deal with the moves
        from the store played again (checked: a move the store holds was checked when made)."""
        table = self.tables.get(attempt.id)
        if table is not None and len(table.history()) == attempt.turn:
            self.tables.move_to_end(attempt.id)
            return table
        in_play = self.in_play(store, attempt.deal)
        table = Table(in_play.variant, in_play.cards)
        for played in store.moves_of(attempt.id)[: attempt.turn]:
            table.push(Move(played.slots))
        self.keep(attempt.id, table)
        return table

    def keep(self, attempt: int, table: Table) -> None:
        self.tables[attempt] = table
        self.tables.move_to_end(attempt)
        while len(self.tables) > TABLES_KEPT:
            self.tables.popitem(last=False)

    def state_of(self, attempt: Attempt, table: Table) -> dict[str, Any]:
        """What a player may see of an attempt: never a card of the stock."""
        deal = self.deals[attempt.deal].deal
        return {
            "attempt": attempt.id,
            "date": deal.date,
            "variant": deal.variant,
            "table": table.codes(),
            "stock": table.stock_size,
            "cleared": table.cleared,
            "over": not rules.has_legal_move(table),
            "turn": len(table.history()),
            "moves": [list(move) for move in table.history()],
            # The variant's rules (cards a move, target, card values), so that a page needs no
            # other door of the service to show them.
            "rules": variant_rules(table.variant),
        }

    def leaderboard(self, store: Store, day: str, variant: str | None) -> dict[str, Any]:
        deal = chosen(store.secret_deals_on(day), variant)
        if deal is None:
            of = f" of {variant}" if variant is not None else ""
            raise Refused(404, f"no secret daily deal{of} for {day}")
        from triples.engines.audit import METHOD

        # An audit kept under an older method counts as none: it is worked out again.
        board = store.leaderboard(deal.deal, LEADERBOARD_SIZE, METHOD)
        answer: dict[str, Any] = {
            "date": deal.date,
            "variant": deal.variant,
            "started": board.started,
            "finished": board.finished,
        }
        ended = deal.date < today()
        if ended:
            answer["best"] = deal.best
        answer["entries"] = [
            {
                "rank": rank,
                "name": entry.name,
                "cleared": entry.cleared,
                "moves": entry.moves,
                "seconds": round(entry.milliseconds / 1000, 3),
                # Once the day has ended: whether the game was played as no blind player plays
                # (triples audit; the service audits an ended day's games in the background).
                **({"suspect": entry.suspect} if ended and entry.suspect is not None else {}),
            }
            for rank, entry in enumerate(board.entries, start=1)
        ]
        if ended and any(entry.suspect is None for entry in board.entries):
            self.audit_later(deal)
        return answer

    def audit_later(self, deal: SecretDeal) -> None:
        """Audit the ended deal's finished attempts that have no audit yet, on a thread of its
        own (an audit is seconds of search, not for the store's thread), once at a time."""
        if deal.deal in self.auditing:
            return
        self.auditing.add(deal.deal)

        def audit() -> None:
            from triples.doors.kit.audits import audit_deal

            try:
                with open_store(self.db) as store:
                    audit_deal(store, deal)
            except Exception:
                log.exception("auditing the attempts of %s %s", deal.variant, deal.date)
            finally:
                self.auditing.discard(deal.deal)

        self.auditor.submit(audit)
