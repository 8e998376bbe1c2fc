"""The live table: one WebSocket per client and room.

On connect the client gets the room and the current state at once (so a reconnect needs no
request); afterwards every committed change is pushed. Each push is built per person from the
live match, so a seat's view only ever goes to the person holding that seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.errors import ApiError
from app.middleware import json_too_deep
from app.models import Person
from app.repository import join_room, latest_match, room_by_code, room_json
from app.services import Services, current_person, get_services
from app.tables import ActionRejected, room_channel

log = logging.getLogger(__name__)
router = APIRouter()
VALID_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")

ERROR_JA = {
    "stale": "盤面が先に進みました。最新の状態で操作し直してください",
    "illegal": "その手は出せません",
    "malformed": "メッセージの形式が正しくありません",
    "forbidden": "その操作はできません",
}


class RoomConnection:
    """One client's socket: serialises sends and remembers which version it last saw."""

    def __init__(self, websocket: WebSocket, services: Services, person: Person, room_id: int, code: str):
        self.websocket = websocket
        self.services = services
        self.person = person
        self.room_id = room_id
        self.code = code
        self.sent_version: dict[int, int] = {}
        self._send_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        async with self._send_lock:
            await self.websocket.send_text(json.dumps(message))

    async def error(self, code: str, message: str) -> None:
        await self.send(
            {
                "type": "error",
                "code": code,
                "message": message,
                "messages": {"en": message, "ja": ERROR_JA[code]},
            }
        )

    async def send_room(self) -> int | None:
        """Send the room; returns the id of its current (latest) match, if any. Pushes share a
        few database connections (`push_slots`), so a crowd of sockets cannot starve requests."""
        async with self.websocket.app.state.push_slots, self.services.db.session() as session:
            room = await room_by_code(session, self.code)
            answer = await room_json(
                session, room, self.person, await self.services.presence.connected(session, self.room_id)
            )
        await self.send({"type": "room", "room": answer})
        return answer["match"]["id"] if answer["match"] else None

    async def send_state(self, match_id: int, at_least: int | None = None) -> None:
        message = await self.services.tables.state_for(
            match_id, self.person.id, self.sent_version.get(match_id), at_least
        )
        self.sent_version[match_id] = message["version"]
        await self.send(message)

    async def current_match_id(self) -> int | None:
        async with self.services.db.session() as session:
            match = await latest_match(session, self.room_id)
            return match.id if match else None

    async def pump(self, subscription: Any) -> None:
        """Forward bus messages as fresh per-person messages. Messages that queued up while this
        socket was busy collapse into one push each (they only say "refresh"), so a slow client
        and a burst of joins cost one room query per socket, not one per message."""
        async for first in subscription:
            batch = [first, *_drain(subscription)]
            room = any(message.get("kind") == "room" for message in batch)
            states: dict[int, Any] = {}
            for message in batch:
                if message.get("kind") == "state":
                    match_id = int(message["match_id"])
                    versions = [v for v in (states.get(match_id), message.get("version")) if v is not None]
                    states[match_id] = max(versions) if versions else None
            try:
                if room:
                    await self.send_room()
                for match_id, version in states.items():
                    await self.send_state(match_id, version)
            except (WebSocketDisconnect, RuntimeError):
                return  # the socket is gone; the receive loop ends the connection
            except Exception:
                log.exception("could not push %s to person %s", batch, self.person.id)

    async def handle(self, raw: str) -> None:
        if json_too_deep(raw.encode()):
            await self.error("malformed", "messages must not nest deeper than 32 levels")
            return
        try:
            message = json.loads(raw)
        except (ValueError, RecursionError):
            await self.error("malformed", "messages must be JSON")
            return
        if not isinstance(message, dict):
            await self.error("malformed", "messages must be JSON objects")
            return
        kind = message.get("type")
        if kind == "ping":
            await self.send({"type": "pong"})
        elif kind == "action":
            await self.act(message)
        else:
            await self.error("malformed", f"unknown message type {kind!r}; expected 'action' or 'ping'")

    async def act(self, message: dict[str, Any]) -> None:
        match_id = await self.current_match_id()
        if match_id is None:
            await self.error("illegal", "no match has started in this room")
            return
        try:
            await self.services.tables.submit(
                match_id, self.person.id, message.get("seat"), message.get("version"), message.get("action")
            )
        except ActionRejected as rejected:
            await self.error(rejected.code, rejected.message)
            if rejected.code == "stale":
                await self.send_state(match_id)
        except (WebSocketDisconnect, RuntimeError):
            raise
        except Exception:
            log.exception("action from person %s failed", self.person.id)
            await self.error("illegal", "the server could not process this action")


def _drain(subscription: Any) -> list[dict[str, Any]]:
    """Whatever else is already waiting in this subscription's queue."""
    queue = getattr(subscription, "queue", None)
    waiting = []
    while queue is not None and not queue.empty():
        waiting.append(queue.get_nowait())
    return waiting


def same_origin(websocket: WebSocket) -> bool:
    """Browsers always send Origin on WebSocket handshakes; it must name this host."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser (tests, tools): the cookie alone decides
    return urlsplit(origin).netloc == websocket.headers.get("host")


@router.websocket("/ws/rooms/{code}")
async def room_socket(websocket: WebSocket, code: str) -> None:
    services = get_services(websocket)
    if not same_origin(websocket):
        # A page on another site must not drive a person's table with their cookie.
        await websocket.close(code=4403)
        return
    await websocket.accept()
    person = await current_person(websocket)
    try:
        if not VALID_CODE.fullmatch(code):  # e.g. a NUL: PostgreSQL could not even compare it
            raise ApiError(404, "no room has this invite code", "この招待コードの部屋はありません")
        async with services.db.session() as session:
            room = await room_by_code(session, code)
            joined = person is not None and await join_room(session, room, person)
            room_id = room.id
    except ApiError as exc:
        await websocket.send_text(json.dumps({"type": "error", "code": "forbidden", "message": exc.en}))
        await websocket.close(code=4404)
        return
    if person is None:
        await websocket.send_text(
            json.dumps({"type": "error", "code": "forbidden", "message": "choose a name first (no session)"})
        )
        await websocket.close(code=4401)
        return
    connection = RoomConnection(websocket, services, person, room_id, code)
    first_socket = await services.presence.join(room_id, person.id)
    pump: asyncio.Task[None] | None = None
    try:
        async with services.pubsub.subscribe(room_channel(room_id)) as subscription:
            if joined or first_socket:
                await services.pubsub.publish(room_channel(room_id), {"kind": "room"})
            match_id = await connection.send_room()
            if match_id is not None:
                await connection.send_state(match_id)
            pump = asyncio.create_task(connection.pump(subscription))
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                raw = received.get("text")
                if raw is None:
                    raw = (received.get("bytes") or b"").decode("utf-8", errors="replace")
                await connection.handle(raw)
    except WebSocketDisconnect:
        pass
    finally:
        if pump is not None:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
        with contextlib.suppress(Exception):
            if await services.presence.leave(room_id, person.id):
                await services.pubsub.publish(room_channel(room_id), {"kind": "room"})
