"""The live table: one WebSocket per client and room.

On connect the client gets the room and the current state at once (so a reconnect needs no
request); afterwards every committed change is pushed. State messages are assembled from the
match's shared snapshot (`app/live/snapshots.py`): each seat's view is built once per version and only
ever goes to the person holding that seat. A room change is read from the database once per
process and event (`RoomFeed`, app/live/room_feed.py), then given each reader's own `me`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

import orjson
from fastapi import WebSocket, WebSocketDisconnect

from app.errors import NotFound
from app.live import bus, voice
from app.live.pubsub import Message
from app.live.room_feed import room_feed
from app.live.tables import ActionRejected, Reader
from app.middleware import json_too_deep
from app.security import SESSION_COOKIE, token_hash
from app.services import Services, current_person, get_services
from app.store import chat
from app.store.rooms import for_viewer, open_room

log = logging.getLogger(__name__)
VALID_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")
MAX_PENDING = 256
"""Bus messages a socket keeps while it cannot keep up; beyond, the oldest are dropped."""
OPENING_SLOTS = 2
"""Sockets of a process between their handshake's request and their first room and state at
once. When hundreds come back together (a restart, a deploy) the rest wait at the door, their
handshakes unanswered, so tables in play find a short queue in the event loop and a free
database connection instead of one behind every arriving socket's dozen queries."""
OPENING_HELD_AT_MOST = 5.0
"""Seconds a socket keeps its opening slot: one that takes longer (a client that does not read
its first messages) gives its place up all the same, so it cannot keep the door shut."""

ERROR_JA = {
    "stale": "盤面が先に進みました。最新の状態で操作し直してください",
    "illegal": "その手は出せません",
    "malformed": "メッセージの形式が正しくありません",
    "forbidden": "その操作はできません",
    "take_back_refused": "その手は取り消せません",
}


def opening_slots(websocket: WebSocket) -> asyncio.Semaphore:
    state = websocket.app.state
    slots = getattr(state, "opening_slots", None)
    if slots is None:
        slots = state.opening_slots = asyncio.Semaphore(OPENING_SLOTS)
    return slots


_LONG_NUMBER = re.compile(r"[0-9]{19}", re.ASCII)
"""19 digits in a row: where an integer may lie outside the 64 bits orjson reads as integers."""


def parse_message(raw: str) -> Any:
    """A socket's message as the standard library's `json.loads` reads it, at orjson's speed
    (reading a person's action took 1.7% of the server's CPU samples at tables of four with the
    standard library, 0.9% so: docs/BENCHMARKS.md).

    orjson reads an integer past 64 bits as a float (an action naming match 2**70 would be
    refused as malformed, not as an unknown match), and it refuses what the standard library
    takes (`NaN`, lone surrogates). So text with 19 digits in a row, or that orjson refuses, is
    read by the standard library, and every message means what it meant before."""
    if _LONG_NUMBER.search(raw) is None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


class RoomConnection:
    """One client's socket: every message it is sent goes through Starlette's `send_text` (the
    ASGI send) under `_send_lock`, one at a time and awaited, whether it comes from the bus (a
    forwarding task) or answers the client (the receive loop). A state message is made and sent
    under the same lock, so the order the reader's record of what its client holds changes in
    (the base of the next message's changes) is the order on the wire. It also remembers what it
    last sent of each match."""

    def __init__(self, websocket: WebSocket, services: Services, person_id: int, room_id: int, code: str):
        self.websocket = websocket
        self.services = services
        self.person_id = person_id
        self.room_id = room_id
        self.code = code
        self.feed = room_feed(services, websocket)
        self.readers: dict[int, Reader] = {}
        self.match_id: int | None = None
        self.room_version: int | None = None
        """The latest match's version in the room last sent (read from the database)."""
        self.room_read_at = float("-inf")
        """When the read behind the room last sent began: a room change heard before it is shown."""
        self._send_lock = asyncio.Lock()
        self._pending: list[tuple[Message, float]] = []
        """Bus messages heard and not forwarded yet, oldest first, each with when it was heard."""
        self._forwarding: asyncio.Task[None] | None = None
        self._open = False
        self.ended = False
        """The session ended (app/live/sessions.py): nothing more is sent or handled."""
        self._closing: asyncio.Task[None] | None = None

    def end_session(self) -> None:
        """The person signed out, or their session is gone: close with 4401, as a socket
        opened without a session is."""
        if self.ended:
            return
        self.ended, self._open = True, False
        self._closing = asyncio.get_running_loop().create_task(self._close(4401))

    async def _close(self, code: int) -> None:
        with contextlib.suppress(Exception):
            async with self._send_lock:
                await self.websocket.close(code=code)

    async def send_text(self, text: str) -> None:
        """Send one message after any this socket is sending."""
        async with self._send_lock:
            await self.websocket.send_text(text)

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(json.dumps(message))

    async def error(self, code: str, message: str, ja: str | None = None) -> None:
        await self.send(
            {
                "type": "error",
                "code": code,
                "message": message,
                "messages": {"en": message, "ja": ja or ERROR_JA[code]},
            }
        )

    async def send_room(self, heard_at: float | None = None) -> int | None:
        """Send the room; returns the id of its current (latest) match, if any."""
        if heard_at is None:
            heard_at = asyncio.get_running_loop().time()
        read_at, room = await self.feed.room(self.room_id, self.code, heard_at)
        self.room_read_at = max(self.room_read_at, read_at)
        await self.send({"type": "room", "room": for_viewer(room, self.person_id)})
        match_id = room["match"]["id"] if room["match"] else None
        self.room_version = room["match"]["version"] if room["match"] else None
        if match_id is not None and (self.match_id is None or match_id > self.match_id):
            self.match_id = match_id
        return match_id

    def _reader(self, match_id: int) -> Reader:
        reader = self.readers.get(match_id)
        if reader is None:
            reader = self.readers[match_id] = Reader()
            if len(self.readers) > 2:  # only the newest matches are still shown
                del self.readers[min(self.readers)]
        return reader

    def _showing(self, match_id: int) -> None:
        if self.match_id is None or match_id > self.match_id:
            self.match_id = match_id

    async def send_state(
        self, match_id: int, at_least: int | None = None, announced: Message | None = None
    ) -> None:
        async with self._send_lock:
            reader = self._reader(match_id)
            text = await self.services.tables.state_text(
                match_id, self.person_id, reader, at_least, announced
            )
            if text is None:
                return
            self._showing(match_id)
            await self.websocket.send_text(text)

    def notify(self, message: Message) -> None:
        """A bus message (the bus calls this in the publisher's turn): kept, stamped with the time
        it was heard (which decides whether a room read already covers it: `RoomFeed`), and sent
        by a forwarding task that lives only while there is something to forward, so an idle
        socket keeps no task of its own. Messages are forwarded one at a time, in order; a socket
        that cannot keep up drops its oldest ones. Until the socket's first room and state went
        out (`start_forwarding`) they are only kept."""
        loop = asyncio.get_running_loop()
        pending = self._pending
        if len(pending) >= MAX_PENDING:
            del pending[0]
        pending.append((message, loop.time()))
        if self._open and self._forwarding is None:
            self._forwarding = loop.create_task(self._forward())

    def start_forwarding(self) -> None:
        """After the first room and state went out: what the bus said meanwhile follows them."""
        self._open = True
        if self._pending and self._forwarding is None:
            self._forwarding = asyncio.get_running_loop().create_task(self._forward())

    async def stop_forwarding(self) -> None:
        self._open = False
        forwarding, self._forwarding = self._forwarding, None
        if forwarding is not None:
            forwarding.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await forwarding

    async def _forward(self) -> None:
        try:
            while self._open and self._pending:
                if not await self.forward(*self._pending.pop(0)):
                    self._open = False  # the socket is gone; the receive loop ends the connection
        finally:
            if self._forwarding is asyncio.current_task():
                self._forwarding = None

    async def forward(self, message: Message, heard_at: float) -> bool:
        """Send one bus message, heard at `heard_at`, as this reader's own message; False when
        the socket is gone. A room change is skipped when the room last sent was read after it
        was heard (e.g. the room a socket is sent on connect, after its own join was published)."""
        try:
            kind = message.get("kind")
            if kind == bus.ROOM:
                if heard_at > self.room_read_at:
                    await self.send_room(heard_at)
            elif kind == bus.STATE:
                await self.send_state(int(message["match_id"]), message.get("version"), message)
                self.services.metrics.fanout_seconds.observe(asyncio.get_running_loop().time() - heard_at)
            elif kind == bus.CHAT:
                await self.send({"type": "chat", "message": message["message"]})
            elif kind == bus.TIMERS:
                # Turn countdowns (app/live/deadlines.py): seconds left when the change was made.
                await self.send(
                    {
                        "type": "timers",
                        "match_id": message.get("match_id"),
                        "timers": message.get("timers", {}),
                    }
                )
        except (WebSocketDisconnect, RuntimeError):
            return False
        except Exception:
            log.exception("could not push %s to person %s", message, self.person_id)
        return True

    async def handle(self, raw: str) -> None:
        if json_too_deep(raw.encode()):
            await self.error("malformed", "messages must not nest deeper than 32 levels")
            return
        try:
            message = parse_message(raw)
        except (ValueError, RecursionError):
            await self.error("malformed", "messages must be JSON")
            return
        if not isinstance(message, dict):
            await self.error("malformed", "messages must be JSON objects")
            return
        kind = message.get("type")
        handler = HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            expected = ", ".join(repr(known) for known in HANDLERS)
            await self.error("malformed", f"unknown message type {kind!r}; expected one of {expected}")
            return
        await handler(self, message, raw)

    async def ping(self, message: dict[str, Any], raw: str) -> None:
        await self.send({"type": "pong"})

    async def action(self, message: dict[str, Any], raw: str) -> None:
        await self.act(message)

    async def take_back(self, message: dict[str, Any], raw: str) -> None:
        await self.act(message, take_back=True)

    async def voice(self, message: dict[str, Any], raw: str) -> None:
        """Voice signalling (app/live/voice.py), which bounds a message by its text's length."""
        await voice.handle(self, message, raw)

    async def chat(self, message: dict[str, Any], raw: str) -> None:
        """A chat line: stored (committed) first, then published to every socket of the room on
        every process, this one included; a refused line gets an error and is not stored."""
        try:
            async with self.services.db.session() as session:
                line = await chat.post(session, self.room_id, self.person_id, message.get("text"))
        except chat.ChatRejected as rejected:
            await self.error(rejected.code, rejected.en, rejected.ja)
            return
        await self.services.pubsub.publish(bus.room_channel(self.room_id), bus.chat_line(line))

    async def act(self, message: dict[str, Any], take_back: bool = False) -> None:
        """An action (or, with `take_back`, taking back the seat's last one) for the match named
        in the message (or, from older clients, the newest match this socket was sent); no
        database lookup happens before the table's lock."""
        match_id = message.get("match_id", self.match_id)
        if match_id is None:
            await self.error("illegal", "no match has started in this room")
            return
        tables = self.services.tables
        seat, version = message.get("seat"), message.get("version")
        try:
            if take_back:
                await tables.take_back(match_id, self.person_id, seat, version, room_id=self.room_id)
            else:
                await tables.submit(
                    match_id, self.person_id, seat, version, message.get("action"), room_id=self.room_id
                )
        except ActionRejected as rejected:
            await self.error(rejected.code, rejected.message, rejected.ja)
            if rejected.code == "stale" and isinstance(match_id, int):
                self.readers.pop(match_id, None)  # send the whole state again
                await self.send_state(match_id)
        except (WebSocketDisconnect, RuntimeError):
            raise
        except Exception:
            log.exception("action from person %s failed", self.person_id)
            await self.error("illegal", "the server could not process this action")


Handler = Callable[[RoomConnection, dict[str, Any], str], Awaitable[None]]
"""A handler gets the parsed message and its text as received."""
HANDLERS: dict[str, Handler] = {
    "action": RoomConnection.action,
    "take_back": RoomConnection.take_back,
    "chat": RoomConnection.chat,
    "ping": RoomConnection.ping,
    "voice": RoomConnection.voice,
}
"""What a client may send, by its `type`: a new kind of message is one more entry here."""


def same_origin(websocket: WebSocket) -> bool:
    """Browsers always send Origin on WebSocket handshakes; it must name this host."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True  # not a browser (tests, tools): the cookie alone decides
    return urlsplit(origin).netloc == websocket.headers.get("host")


async def room_socket(websocket: WebSocket) -> None:
    """`/ws/rooms/{code}`, served past the HTTP middleware (app/routes/socket_routes.py): every check
    a socket needs is made here. Only plain ids outlive the handshake: the person and room rows
    (and the session that read them) are gone before the socket settles in for its long life.

    The socket is accepted only once it listens to its room's bus (`_serve`): whatever is
    published after the client saw its socket open (a chat line written at that very moment)
    reaches it. The opening slot is taken before the handshake is answered, so a crowd coming
    back together waits at the door with its handshakes pending."""
    code = websocket.path_params["code"]
    services = get_services(websocket)
    if not same_origin(websocket):
        # A page on another site must not drive a person's table with their cookie.
        await websocket.close(code=4403)
        return
    slots = opening_slots(websocket)
    await slots.acquire()
    opening = True

    def opened_up() -> None:
        nonlocal opening
        if opening:
            opening = False
            held_too_long.cancel()
            slots.release()

    held_too_long = asyncio.get_running_loop().call_later(OPENING_HELD_AT_MOST, opened_up)
    try:
        opened = await _open_room(websocket, services, code)
        if opened is not None:
            await _serve(websocket, services, code, *opened, opened_up)
    finally:
        opened_up()


async def _refuse(websocket: WebSocket, message: str, code: int) -> None:
    """Accept, say why in an error message (a browser cannot read a refused handshake's reason),
    and close with `code`."""
    await websocket.accept()
    await websocket.send_text(json.dumps({"type": "error", "code": "forbidden", "message": message}))
    await websocket.close(code=code)


async def _open_room(websocket: WebSocket, services: Services, code: str) -> tuple[int, int, bool] | None:
    """(person id, room id, whether this joined the room), or None once the socket was refused."""
    person = await current_person(websocket)
    try:
        if not VALID_CODE.fullmatch(code):  # e.g. a NUL: PostgreSQL could not even compare it
            raise NotFound("no room has this invite code", "この招待コードの部屋はありません")
        async with services.db.session() as session:
            room_id, joined = await open_room(session, code, person.id if person is not None else None)
    except NotFound as exc:
        await _refuse(websocket, exc.en, 4404)
        return None
    if person is None:
        await _refuse(websocket, "choose a name first (no session)", 4401)
        return None
    return person.id, room_id, joined


async def _serve(
    websocket: WebSocket,
    services: Services,
    code: str,
    person_id: int,
    room_id: int,
    joined: bool,
    opened_up: Callable[[], None],
) -> None:
    """The socket's life, from its handshake's answer on; `opened_up` is called once its first
    room and state went out."""
    connection = RoomConnection(websocket, services, person_id, room_id, code)
    session = token_hash(websocket.cookies.get(SESSION_COOKIE, ""))
    services.sessions.register(session, connection.end_session)
    first_socket = await services.presence.join(room_id, person_id)
    if first_socket:
        services.tables.person_back(room_id, person_id)  # no bot plays their seats any more
    try:
        async with services.pubsub.listen(bus.room_channel(room_id), connection.notify):
            await websocket.accept()
            if joined or first_socket:
                await services.pubsub.publish(bus.room_channel(room_id), bus.room_changed())
            match_id = await connection.send_room()
            if match_id is not None:
                # At least the version the database holds: this process's cache may be behind
                # one that another process moved while nobody here watched (a reconnect).
                await connection.send_state(match_id, connection.room_version)
            connection.start_forwarding()
            opened_up()
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect" or connection.ended:
                    break
                raw = received.get("text")
                if raw is None:
                    raw = (received.get("bytes") or b"").decode("utf-8", errors="replace")
                await connection.handle(raw)
    except WebSocketDisconnect:
        pass
    finally:
        services.sessions.unregister(session, connection.end_session)
        await connection.stop_forwarding()
        with contextlib.suppress(Exception):
            await voice.socket_closed(connection)
        with contextlib.suppress(Exception):
            if await services.presence.leave(room_id, person_id):
                await services.pubsub.publish(bus.room_channel(room_id), bus.room_changed())
