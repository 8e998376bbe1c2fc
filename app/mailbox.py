"""A queue for one consumer, and an event, that cost a list instead of deques.

Every live WebSocket holds, for its whole life, a queue or two (uvicorn's incoming messages; the
room's bus messages) and an event (uvicorn's "the transport is writable"). `asyncio.Queue`
allocates four `collections.deque`s (its items, getters, putters and an `Event`'s waiters),
about 3 KB per queue even when empty, and an `asyncio.Event` one deque (0.75 KB): together 5-10 %
of a live table's memory budget. A `Mailbox` is a list and, only while its consumer waits, one
future; it offers the part of `asyncio.Queue` a single consumer uses (`put_nowait`, `get`,
`empty`, `qsize`, `get_nowait`). A `Gate` is a flag with waiters only while it is closed; it
offers `asyncio.Event`'s `set`, `clear`, `is_set` and `wait`. Both wake their waiters through
`wake`, as do the commit's writers and the libpq reader (app/store/).
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


def wake(waiter: asyncio.Future[T], value: T) -> None:
    """Give `waiter` its result unless it has one already (its waiter was cancelled, or the
    callback that wakes it ran twice)."""
    if not waiter.done():
        waiter.set_result(value)


class Mailbox(Generic[T]):
    """Items in arrival order for one consumer; with a `limit`, a full mailbox drops its oldest
    item to take a new one (for messages that only say "something changed")."""

    __slots__ = ("_items", "_limit", "_waiter")

    def __init__(self, limit: int = 0) -> None:
        self._items: list[T] = []
        self._limit = limit
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: T) -> None:
        if self._limit and len(self._items) >= self._limit:
            del self._items[0]
        self._items.append(item)
        if self._waiter is not None:
            wake(self._waiter, None)

    def empty(self) -> bool:
        return not self._items

    def qsize(self) -> int:
        return len(self._items)

    def get_nowait(self) -> T:
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.pop(0)

    async def get(self) -> T:
        """The oldest item, waiting for one if there is none (one waiting consumer at a time)."""
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("a Mailbox has one consumer; another one is already waiting")
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class Gate:
    """`asyncio.Event` without its deque: futures exist only while someone waits for it."""

    __slots__ = ("_open", "_waiters")

    def __init__(self, is_set: bool = False) -> None:
        self._open = is_set
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._open

    def set(self) -> None:
        self._open = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            wake(waiter, None)

    def clear(self) -> None:
        self._open = False

    async def wait(self) -> bool:
        if self._open:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            if self._waiters is not None and waiter in self._waiters:
                self._waiters.remove(waiter)
        return True
