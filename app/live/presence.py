"""Who is connected to which room, whichever server process holds their WebSockets.

Each process counts its own sockets in memory and keeps one `room_presence` row per (room,
person) it serves, so a room's connection dots are right when several processes share the
database. A heartbeat refreshes the process's `server_processes.seen_at`; the rows of a process
that stops beating (it crashed) stop counting after a while and are swept at the next start
(the queries: app/store/presence.py).

A seated person's away deadline (app/live/deadlines.py) follows: their last socket anywhere closing
starts the room's grace for their seats, and their first socket again ends it (in the same
transaction as the presence row, so every process reads the two in agreement).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import Counter

from app.store import presence as store
from app.store.db import Database

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 10.0


class Presence:
    def __init__(
        self, db: Database, heartbeat_seconds: float = HEARTBEAT_SECONDS, deadline_scale: float = 1.0
    ) -> None:
        self.db = db
        self.deadline_scale = deadline_scale
        self.process_id = uuid.uuid4().hex
        self.heartbeat_seconds = heartbeat_seconds
        self._sockets: dict[int, Counter[int]] = {}
        self._heartbeat: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Register this process, sweep long-dead ones, and start the heartbeat."""
        async with self.db.session() as session:
            await store.register_process(session, self.process_id)
        self._heartbeat = asyncio.create_task(self._beat())

    async def close(self) -> None:
        """Stop the heartbeat and drop this process's rows (its sockets are closing)."""
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
        with contextlib.suppress(Exception):
            async with self.db.session() as session:
                await store.forget_process(session, self.process_id)

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            try:
                async with self.db.session() as session:
                    await store.heartbeat(session, self.process_id)
            except Exception:  # the database may be restarting; the next beat tries again
                log.warning("presence heartbeat failed", exc_info=True)

    def watching(self, room_id: int) -> bool:
        """Whether a socket of this process is open to the room."""
        return room_id in self._sockets

    async def join(self, room_id: int, person_id: int) -> bool:
        """Count one more socket; True when the person was connected nowhere before."""
        counter = self._sockets.setdefault(room_id, Counter())
        counter[person_id] += 1
        if counter[person_id] > 1:
            return False
        async with self.db.session() as session:
            return await store.socket_opened(session, self.process_id, room_id, person_id)

    async def leave(self, room_id: int, person_id: int) -> bool:
        """Count one socket less; True when that was the person's last socket anywhere."""
        counter = self._sockets.get(room_id)
        if counter is None or counter[person_id] <= 0:
            return False
        counter[person_id] -= 1
        if counter[person_id] > 0:
            return False
        del counter[person_id]
        if not counter:
            del self._sockets[room_id]
        async with self.db.session() as session:
            return await store.socket_closed(
                session, self.process_id, room_id, person_id, self.deadline_scale
            )
