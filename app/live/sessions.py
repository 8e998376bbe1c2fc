"""A socket lives no longer than the session that opened it, on every process.

A table's socket checks the session cookie once, at the handshake, and may then stay open for
hours. `SessionWatch` keeps, per process, which open sockets hang on which session (by the
token's SHA-256, which is all the database stores) and ends them (close code 4401):
- at once when the session is signed out through any process: logout publishes the session's
  hash on `bus.SESSIONS_CHANNEL`, and every process closes that session's sockets;
- at the next sweep when the session row is gone however it went (deleted by hand, the person
  deleted, an announcement lost while a process was reconnecting to the bus): every `period`
  seconds one query per process asks which of its sockets' sessions still exist.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from app.live import bus
from app.live.pubsub import Message, PubSub
from app.store.db import Database
from app.store.people import existing_sessions

log = logging.getLogger(__name__)

Ender = Callable[[], None]
"""Ends one socket (must not block: it schedules the close)."""


class SessionWatch:
    """The open sockets of this process by session, ended when their session ends."""

    def __init__(self, db: Database, pubsub: PubSub, period: float) -> None:
        self.db = db
        self.pubsub = pubsub
        self.period = period
        self._sockets: dict[str, set[Ender]] = {}
        self._listening: contextlib.AbstractAsyncContextManager[None] | None = None
        self._sweeper: asyncio.Task[None] | None = None

    def register(self, token_hash: str, end: Ender) -> None:
        self._sockets.setdefault(token_hash, set()).add(end)

    def socket_count(self) -> int:
        """Open sockets on this process (the operator's `cardtable_connected_sockets`)."""
        return sum(len(enders) for enders in self._sockets.values())

    def unregister(self, token_hash: str, end: Ender) -> None:
        enders = self._sockets.get(token_hash)
        if enders is not None:
            enders.discard(end)
            if not enders:
                del self._sockets[token_hash]

    async def signed_out(self, token_hash: str) -> None:
        """The session was deleted (committed): end its sockets here and on every other process."""
        await self.pubsub.publish(bus.SESSIONS_CHANNEL, bus.signed_out(token_hash))

    def _heard(self, message: Message) -> None:
        token_hash = message.get("token_hash")
        if isinstance(token_hash, str):
            self._end(token_hash)

    def _end(self, token_hash: str) -> None:
        for end in list(self._sockets.pop(token_hash, ())):
            end()

    async def sweep(self) -> None:
        """End the sockets whose session no longer exists in the database."""
        watched = list(self._sockets)
        if not watched:
            return
        async with self.db.session() as session:
            alive = await existing_sessions(session, watched)
        for token_hash in watched:
            if token_hash not in alive:
                self._end(token_hash)

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.sweep()
            except Exception:  # noqa: BLE001 - a database hiccup: try again at the next sweep
                log.warning("could not check the sessions of open sockets", exc_info=True)

    async def start(self) -> None:
        self._listening = self.pubsub.listen(bus.SESSIONS_CHANNEL, self._heard)
        await self._listening.__aenter__()
        self._sweeper = asyncio.create_task(self._sweep_forever(), name="session-sweeper")

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        if self._listening is not None:
            await self._listening.__aexit__(None, None, None)
            self._listening = None
