"""How many requests compute at once.

A request whose operations are all surely quick is answered in the event loop at once
(``answers``): a worker thread would cost more than the work. Any other goes through the gate:
at most ``running`` of them compute at once (in worker threads, each under the time limit), at
most ``waiting`` more wait, each for at most ``wait_seconds``; past that a request is refused
as ``Overloaded`` (503 with Retry-After) instead of joining an ever longer line. So a flood of
slow requests holds a few threads and a short line, and quick ones never wait behind it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Overloaded(Exception):
    """Too many requests are running and waiting: try again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("the service is busy: too many requests are running; try again shortly")
        self.retry_after = retry_after


class Gate:
    """At most ``running`` requests at once, ``waiting`` more in line for ``wait_seconds`` each."""

    def __init__(self, running: int, waiting: int, wait_seconds: float) -> None:
        self.running = running
        self.waiting = waiting
        self.wait_seconds = wait_seconds
        self.retry_after = max(1, round(wait_seconds))
        self._slots: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._in_line = 0

    def slots(self) -> asyncio.Semaphore:
        # One semaphore per event loop: a test client may run the same app in several loops.
        loop = asyncio.get_running_loop()
        if self._slots is None or self._loop is not loop:
            self._slots, self._loop, self._in_line = asyncio.Semaphore(self.running), loop, 0
        return self._slots

    def full(self) -> bool:
        """Whether a costly request arriving now would be refused at once."""
        return self._slots is not None and self._slots.locked() and self._in_line >= self.waiting

    @asynccontextmanager
    async def admitted(self) -> AsyncIterator[None]:
        slots = self.slots()
        if slots.locked():
            if self._in_line >= self.waiting:
                raise Overloaded(self.retry_after)
            self._in_line += 1
            try:
                await asyncio.wait_for(slots.acquire(), self.wait_seconds)
            except TimeoutError:
                raise Overloaded(self.retry_after) from None
            finally:
                self._in_line -= 1
        else:
            await slots.acquire()
        try:
            yield
        finally:
            slots.release()
