"""The room JSON a process's sockets are sent, read from the database once per event and shared
by every socket of the room (each reader then adds its own `me`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from fastapi import WebSocket

from app.services import Services
from app.store.rooms import room_by_code, shared_room_json


@dataclass
class _RoomBuild:
    started: float
    task: asyncio.Task[dict[str, Any]]


class RoomFeed:
    """The room JSON read once per event and process, shared by every socket of the room.

    A socket that hears of a change at time t may use any build that started at t or later
    (it read the database after the change was committed); otherwise it starts one. t is when
    the bus handed the message to the socket (`RoomConnection.notify`), the same instant for
    every socket of the process, not when the socket got round to it: stamped late, each socket
    found the build before its own too old and read the room again. A
    finished build is kept for `KEPT_FOR` seconds, for sockets that get round to the change late
    (busy sending, or many of them), and then let go: a later change needs a newer read anyway,
    and kept for good it would hold the room's JSON in memory for as long as the room lives."""

    MAX_ROOMS = 4096
    KEPT_FOR = 2.0
    DB_SLOTS = 8
    """Room reads in flight at once, out of the pool's 20 connections: however many sockets a
    room has, requests and actions still find a connection."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self._builds: dict[int, _RoomBuild] = {}
        self._slots = asyncio.Semaphore(self.DB_SLOTS)
        self.reads = 0
        """Rooms read from the database so far (tests and operators read it)."""

    async def room(self, room_id: int, code: str, heard_at: float) -> tuple[float, dict[str, Any]]:
        """(when the read began, the room JSON) of a read that began at `heard_at` or later."""
        build = self._builds.get(room_id)
        if build is None or build.started < heard_at:
            loop = asyncio.get_running_loop()
            build = _RoomBuild(loop.time(), asyncio.ensure_future(self._read(code, room_id)))
            self._builds.pop(room_id, None)
            self._builds[room_id] = build
            build.task.add_done_callback(lambda _: self._built(room_id, build))
            while len(self._builds) > self.MAX_ROOMS:
                self._builds.pop(next(iter(self._builds)))
        return build.started, await asyncio.shield(build.task)

    def _built(self, room_id: int, build: _RoomBuild) -> None:
        if build.task.cancelled() or build.task.exception() is not None:
            self._forget(room_id, build)  # the next socket reads again
        else:
            asyncio.get_running_loop().call_later(self.KEPT_FOR, self._forget, room_id, build)

    def _forget(self, room_id: int, build: _RoomBuild) -> None:
        if self._builds.get(room_id) is build:
            del self._builds[room_id]

    async def _read(self, code: str, room_id: int) -> dict[str, Any]:
        self.reads += 1
        async with self._slots, self.services.db.session() as session:
            return await shared_room_json(session, await room_by_code(session, code))


def room_feed(services: Services, websocket: WebSocket) -> RoomFeed:
    state = websocket.app.state
    feed = getattr(state, "room_feed", None)
    if feed is None:
        feed = state.room_feed = RoomFeed(services)
    return feed
