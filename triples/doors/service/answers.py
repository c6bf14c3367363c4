"""Answering ``POST /run``: reading the body within its limit, which operations run on the event
loop, the work handed to a worker, and the limits on both.

A small body (``QUICK_BODY_BYTES``) of a few operations is read as JSON on the event loop, and
its operations are answered there, in order, for as long as each is surely quick where it
stands (``Session.quickly``: judged from the game's rules and position, never from the
operation's name alone). The first that is not, and everything after it, goes to a worker
thread with the same session, under the time limit; so does a larger body, read as JSON there
too. The worker writes each output as it is made and stops with ``AnswerTooLarge`` once the
answer would pass its limit, so no request can build an answer that fills the memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from triples.interpreter.jsonio import JSONInputError, dumps, json_kind, loads
from triples.interpreter.session import NOT_QUICK, Session
from triples.support import deadline

# A body this long is no small game: it is read on a worker, and while the gate's line is full
# it is refused before it is read as JSON.
QUICK_BODY_BYTES = 16 * 1024
INLINE_OPERATIONS = 8  # more than this many, even quick ones, go to a worker


# A body over the limit is still read, and dropped, up to this many bytes or seconds, so that a
# client that sends its whole body before it reads (Python's urllib) gets its 413 and not a
# reset connection; past either the answer goes out at once and the connection is closed.
DISCARD_BYTES = 64 * 1024 * 1024
DISCARD_SECONDS = 5.0

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class Refused(Exception):
    """A request answered with an error status and ``{"error": message}``."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


@dataclass
class Answering:
    """One request's work so far: its operations (None until read), its session, and the JSON
    text of each output made. ``started`` counts the operations that began to run."""

    operations: list[Any] | None
    session: Session = field(default_factory=Session)
    parts: list[bytes] = field(default_factory=list)
    started: int = 0
    answer: bytes | None = None  # the whole answer, once every output is made

    @property
    def done(self) -> bool:
        return self.operations is not None and len(self.parts) == len(self.operations)

    def body(self) -> bytes:
        """The answer: the outputs as one JSON array, byte for byte what ``dumps(run(...))`` writes
        (joined once, by whoever made the last output: a worker for a long answer)."""
        if self.answer is None:
            self.answer = b"[" + b",".join(self.parts) + b"]\n"
        return self.answer


class Stopped(Exception):
    """The time limit passed at operation ``index`` (from 0)."""

    def __init__(self, seconds: float, index: int) -> None:
        super().__init__(f"time limit of {seconds:g} s exceeded at operation {index}")
        self.index = index


def declared_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length" and value.isdigit():
            return int(value)
    return None


def expects_continue(scope: Scope) -> bool:
    return any(name == b"expect" and value.lower() == b"100-continue" for name, value in scope["headers"])


async def read_body(scope: Scope, receive: Receive, limit: int) -> bytes:
    """The request body, refused (413) as soon as it is known to pass ``limit`` bytes.

    A body over the limit is never kept: reading stops keeping it at the first byte past the
    limit, and the rest is read and dropped (``discard``) so that the client gets the answer.
    """
    length = declared_length(scope)
    if length is not None and length > limit:
        raise await discard(scope, receive, 0, too_large(limit))
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Refused(400, "client disconnected before the body was complete")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            if not message.get("more_body", False):
                raise too_large(limit)
            raise await discard(scope, receive, size, too_large(limit))
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def too_large(limit: int) -> Refused:
    return Refused(413, f"request body over {size_text(limit)}")


async def discard(scope: Scope, receive: Receive, read: int, refusal: Refused) -> Refused:
    """``refusal``, once the rest of the body is read and dropped: up to ``DISCARD_BYTES`` of
    it within ``DISCARD_SECONDS``, past which (or when the client waits for a 100 Continue
    before it sends the body) the connection is closed with the answer instead."""
    length = declared_length(scope)
    if expects_continue(scope) or (length is not None and length > DISCARD_BYTES):
        refusal.headers["connection"] = "close"
        return refusal
    loop = asyncio.get_running_loop()
    until = loop.time() + DISCARD_SECONDS
    while read <= DISCARD_BYTES and loop.time() < until:
        try:
            message = await asyncio.wait_for(receive(), until - loop.time())
        except TimeoutError:
            break
        if message["type"] == "http.disconnect" or not message.get("more_body", False):
            return refusal
        read += len(message.get("body", b""))
    refusal.headers["connection"] = "close"
    return refusal


def read_operations(body: bytes, max_operations: int) -> list[Any]:
    try:
        operations = loads(body)
    except JSONInputError as exc:
        raise Refused(400, str(exc)) from None
    if not isinstance(operations, list):
        raise Refused(400, f"expected a JSON array of operations, got {json_kind(operations)}")
    if len(operations) > max_operations:
        raise Refused(413, f"more than {max_operations} operations ({len(operations)})")
    return operations


def on_the_event_loop(body: bytes, max_operations: int) -> Answering:
    """What a body's operations get on the event loop: the body read when small, and each
    operation answered while it is surely quick. The rest is ``in_a_worker``'s."""
    if len(body) > QUICK_BODY_BYTES:
        return Answering(None)
    answering = Answering(read_operations(body, max_operations))
    operations = answering.operations
    assert operations is not None
    if len(operations) > INLINE_OPERATIONS:
        return answering
    for operation in operations:
        output = answering.session.quickly(operation)
        if output is NOT_QUICK:
            break
        answering.started += 1
        answering.parts.append(dumps(output)[:-1])
    return answering


def in_a_worker(
    answering: Answering,
    body: bytes,
    limit: deadline.Deadline,
    seconds: float,
    max_operations: int,
    max_answer_bytes: int,
) -> Answering:
    """Finish the request in a worker thread, under ``limit``: read the body if it was not,
    then answer the operations left in order. ``Stopped`` when the time limit passes,
    ``Refused`` (413) when the answer would pass ``max_answer_bytes``."""
    with deadline.limited(limit):
        try:
            if answering.operations is None:
                answering.operations = read_operations(body, max_operations)
                limit.restart(seconds)  # the limit is on the operations: reading a body is not one
            operations, session, parts = answering.operations, answering.session, answering.parts
            size = sum(map(len, parts)) + max(0, len(parts) - 1) + 3  # with commas, brackets, newline
            for index in range(len(parts), len(operations)):
                deadline.check()
                answering.started = index + 1
                part = dumps(session.apply(operations[index]))[:-1]
                size += len(part) + (1 if parts else 0)  # and a comma before it
                if size > max_answer_bytes:
                    raise Refused(413, answer_too_large(max_answer_bytes, index))
                parts.append(part)
        except deadline.TimeLimitExceeded:
            raise Stopped(seconds, len(answering.parts)) from None
    answering.body()  # here, not on the event loop: megabytes to join
    return answering


def answer_too_large(limit: int, index: int) -> str:
    return f"the answer would be over {size_text(limit)} at operation {index}: ask for less in one request"


def size_text(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MiB" if limit % mib == 0 else f"{limit} bytes"
