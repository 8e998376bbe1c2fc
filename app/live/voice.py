"""Voice at the table: who is in voice in a room, and the relay of their WebRTC signalling.

Audio never passes through the server: each pair of people in voice holds one RTCPeerConnection
between their browsers (static/js/voice.js). The server only passes on, over the room's socket,
what the browsers need to find each other (offers, answers, ICE candidates) and who joins,
leaves or mutes, and it hands each person joining the ICE servers to use, with short-lived TURN
credentials when a TURN secret is configured (`turn_credentials`).

Every process keeps, per room with sockets on it, the room's voice roster as it heard it on
`bus.voice_channel(room_id)` and which of its own sockets is in voice for whom. A process that
starts serving a room asks the others to announce their people in voice (a roll call), and every
process announces its own again every `REFRESH_SECONDS`, so a roster entry of a process that died
without saying goodbye goes after `FORGET_AFTER_REFRESHES` missed announcements.

Refusals (error frames, nothing relayed): a message over `MAX_MESSAGE_CHARS`, more than
`RATE_BURST` messages at once per person and process (refilled at `RATE_PER_SECOND`), signalling
from a socket that has not joined voice, or to a person not in the room's voice. A signal is
rebuilt from its checked fields only, names nobody but its sender and addressee (both in the
room's voice) and goes only to the addressee's socket in that room.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import select

from app.live import bus
from app.live.pubsub import Message
from app.store.models import Membership, Person

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 6000
"""A voice message as the socket received it: an audio-only offer is 2-4 KB; it must fit, with the
bus's envelope, in one PostgreSQL notification (under 8,000 bytes)."""
RATE_BURST = 120
RATE_PER_SECOND = 20.0
"""Voice messages per person and process: joining a full room of ten takes a few dozen at once
(an answer and a handful of ICE candidates per peer), far fewer afterwards."""
REFRESH_SECONDS = 20.0
FORGET_AFTER_REFRESHES = 3
DESCRIPTION_TYPES = frozenset({"offer", "answer", "pranswer", "rollback"})


class VoiceRefused(Exception):
    """A voice message that is not relayed, with the reason in both languages."""

    def __init__(self, code: str, en: str, ja: str) -> None:
        super().__init__(en)
        self.code, self.en, self.ja = code, en, ja


class VoiceSocket(Protocol):
    """What the relay needs of a room's socket (app/routes/ws.py's `RoomConnection`)."""

    person_id: int
    room_id: int

    async def send(self, message: dict[str, Any]) -> None: ...

    async def error(self, code: str, message: str, ja: str | None = None) -> None: ...


def turn_credentials(secret: str, person_id: int, ttl: int, now: float | None = None) -> tuple[str, str]:
    """(username, credential) by the TURN REST convention that coturn's `use-auth-secret` checks:
    the username is "<expiry unix time>:<person id>", the credential base64(HMAC-SHA1(secret,
    username)). coturn refuses them once the expiry has passed; the secret never leaves the server."""
    expiry = int(now if now is not None else time.time()) + ttl
    username = f"{expiry}:{person_id}"
    digest = hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()
    return username, base64.b64encode(digest).decode()


def ice_servers(
    configured: list[dict[str, Any]],
    turn_urls: list[str],
    turn_secret: str | None,
    person_id: int,
    ttl: int,
) -> list[dict[str, Any]]:
    """The RTCIceServer list for one person: the configured STUN/TURN servers, and the TURN
    servers of the shared secret with this person's own expiring credentials."""
    servers = [dict(server) for server in configured]
    if turn_secret and turn_urls:
        username, credential = turn_credentials(turn_secret, person_id, ttl)
        servers.append({"urls": list(turn_urls), "username": username, "credential": credential})
    return servers


class _Bucket:
    """A token bucket: `RATE_BURST` messages at once, refilled at `RATE_PER_SECOND`."""

    def __init__(self) -> None:
        self.tokens = float(RATE_BURST)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(float(RATE_BURST), self.tokens + (now - self.at) * RATE_PER_SECOND)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def full(self) -> bool:
        return self.tokens + (time.monotonic() - self.at) * RATE_PER_SECOND >= RATE_BURST


@dataclass
class _Member:
    name: str
    muted: bool
    session: str
    """The voice session's random id: a person joining again from another tab ends the old one."""
    heard_at: float


@dataclass
class _LocalVoice:
    socket: VoiceSocket
    session: str


@dataclass
class _VoiceRoom:
    sockets: set[VoiceSocket] = field(default_factory=set)
    members: dict[int, _Member] = field(default_factory=dict)
    local: dict[int, _LocalVoice] = field(default_factory=dict)
    listening: contextlib.AbstractAsyncContextManager[None] | None = None


def _text(value: Any, limit: int) -> str | None:
    return value if isinstance(value, str) and len(value) <= limit else None


def checked_signal(message: dict[str, Any]) -> dict[str, Any]:
    """The signal's payload rebuilt from its checked fields (a description or an ICE candidate)."""
    description, candidate = message.get("description"), message.get("candidate")
    if isinstance(description, dict) and candidate is None:
        kind, sdp = description.get("type"), _text(description.get("sdp", ""), MAX_MESSAGE_CHARS)
        if kind in DESCRIPTION_TYPES and sdp is not None:
            return {"description": {"type": kind, "sdp": sdp}}
    elif isinstance(candidate, dict) and description is None:
        line = _text(candidate.get("candidate"), 1000)
        mid = candidate.get("sdpMid")
        index = candidate.get("sdpMLineIndex")
        fragment = candidate.get("usernameFragment")
        if (
            line is not None
            and (mid is None or _text(mid, 64) is not None)
            and (
                index is None or (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < 64)
            )
            and (fragment is None or _text(fragment, 256) is not None)
        ):
            return {
                "candidate": {
                    "candidate": line,
                    "sdpMid": mid,
                    "sdpMLineIndex": index,
                    "usernameFragment": fragment,
                }
            }
    raise VoiceRefused(
        "voice_malformed",
        "a voice signal carries either a description {type, sdp}"
        " or an ICE candidate {candidate, sdpMid, sdpMLineIndex}",
        "音声の信号は description（type, sdp）か ICE 候補（candidate, sdpMid, sdpMLineIndex）のどちらかです",
    )


class VoiceRelay:
    """One process's voice rooms (see the module docstring). `services` is app/services.py's."""

    def __init__(self, services: Any) -> None:
        self.services = services
        self.rooms: dict[int, _VoiceRoom] = {}
        self.buckets: dict[int, _Bucket] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refresher: asyncio.Task[None] | None = None

    # --- from the room's sockets -------------------------------------------------------------

    async def handle(self, socket: VoiceSocket, message: dict[str, Any], raw: str) -> None:
        """One `{"type": "voice", "event": …}` message from a socket; refusals answer an error."""
        try:
            if len(raw) > MAX_MESSAGE_CHARS:
                raise VoiceRefused(
                    "voice_too_large",
                    f"a voice message has at most {MAX_MESSAGE_CHARS} characters (this one has {len(raw)})",
                    f"音声のメッセージは{MAX_MESSAGE_CHARS}文字までです（{len(raw)}文字あります）",
                )
            if not self.buckets.setdefault(socket.person_id, _Bucket()).take():
                raise VoiceRefused(
                    "voice_rate_limited",
                    f"at most {RATE_BURST} voice messages at once and {RATE_PER_SECOND:g} a second;"
                    " wait a moment",
                    f"音声のメッセージは一度に{RATE_BURST}件、毎秒{RATE_PER_SECOND:g}件までです。少し待ってください",
                )
            event = message.get("event")
            if event == "roster":
                await self.attach(socket)
            elif event == "join":
                await self.join(socket)
            elif event == "leave":
                await self.leave(socket)
            elif event == "mute":
                await self.mute(socket, message.get("muted"))
            elif event == "signal":
                await self.signal(socket, message)
            else:
                raise VoiceRefused(
                    "voice_malformed",
                    f"unknown voice event {event!r}; expected 'roster', 'join', 'leave', 'mute' or 'signal'",
                    "音声のメッセージの種類が正しくありません",
                )
        except VoiceRefused as refused:
            await socket.error(refused.code, refused.en, refused.ja)

    async def attach(self, socket: VoiceSocket) -> _VoiceRoom:
        """The socket hears the room's voice from now on; it is sent the roster as known here."""
        room = self.rooms.get(socket.room_id)
        if room is None:
            room = self.rooms[socket.room_id] = _VoiceRoom()
            room.listening = self.services.pubsub.listen(
                bus.voice_channel(socket.room_id), lambda message: self._heard(socket.room_id, message)
            )
            await room.listening.__aenter__()
            self._start_refreshing()
            await self._publish(socket.room_id, bus.voice_event("roll_call"))
        if socket not in room.sockets:
            room.sockets.add(socket)
            await socket.send({"type": "voice", "event": "roster", "people": self._roster(room)})
        return room

    async def join(self, socket: VoiceSocket) -> None:
        room = await self.attach(socket)
        async with self.services.db.session() as session:
            name = await session.scalar(
                select(Person.name)
                .join(Membership, Membership.person_id == Person.id)
                .where(Membership.room_id == socket.room_id, Person.id == socket.person_id)
            )
        if name is None:
            raise VoiceRefused(
                "voice_forbidden",
                "only the room's members can join its voice",
                "この部屋のメンバーだけが音声に参加できます",
            )
        current = room.local.get(socket.person_id)
        if current is not None and current.socket is socket:
            session_id = current.session  # joined already: say so again
        else:
            if current is not None:  # the same person's other tab on this process
                self._send(current.socket, {"type": "voice", "event": "ended", "reason": "elsewhere"})
            session_id = secrets.token_hex(8)
            room.local[socket.person_id] = _LocalVoice(socket, session_id)
        await self._publish(
            socket.room_id, bus.voice_event("joined", socket.person_id, name=name, session=session_id)
        )
        settings = self.services.settings
        await socket.send(
            {
                "type": "voice",
                "event": "welcome",
                "ice_servers": ice_servers(
                    settings.ice_servers,
                    settings.turn_urls,
                    settings.turn_secret,
                    socket.person_id,
                    settings.turn_ttl,
                ),
                "ice_transport_policy": settings.ice_transport_policy,
                "people": self._roster(room),
            }
        )

    async def leave(self, socket: VoiceSocket) -> None:
        room = self.rooms.get(socket.room_id)
        current = room.local.get(socket.person_id) if room is not None else None
        if room is None or current is None or current.socket is not socket:
            return
        del room.local[socket.person_id]
        await self._publish(
            socket.room_id, bus.voice_event("left", socket.person_id, session=current.session)
        )

    async def mute(self, socket: VoiceSocket, muted: Any) -> None:
        current = self._in_voice(socket)
        if not isinstance(muted, bool):
            raise VoiceRefused(
                "voice_malformed", "'muted' must be true or false", "muted は true か false です"
            )
        await self._publish(
            socket.room_id, bus.voice_event("muted", socket.person_id, session=current.session, muted=muted)
        )

    async def signal(self, socket: VoiceSocket, message: dict[str, Any]) -> None:
        self._in_voice(socket)
        to = message.get("to")
        room = self.rooms[socket.room_id]
        if (
            not isinstance(to, int)
            or isinstance(to, bool)
            or to not in room.members
            or to == socket.person_id
        ):
            raise VoiceRefused(
                "voice_unknown_peer",
                "a voice signal goes only to another person in this room's voice",
                "音声の信号は、この部屋で音声に参加している他の人にだけ送れます",
            )
        payload = checked_signal(message)
        await self._publish(socket.room_id, bus.voice_event("signal", socket.person_id, to=to, **payload))

    async def socket_closed(self, socket: VoiceSocket) -> None:
        """The socket is gone (left the room's page, lost, signed out): out of voice, and the room
        forgotten here when it was the room's last socket on this process."""
        room = self.rooms.get(socket.room_id)
        if room is None:
            return
        try:
            await self.leave(socket)
        finally:
            bucket = self.buckets.get(socket.person_id)
            if bucket is not None and bucket.full():
                del self.buckets[socket.person_id]  # nothing to remember
            room.sockets.discard(socket)
            if not room.sockets and not room.local:
                del self.rooms[socket.room_id]
                if room.listening is not None:
                    await room.listening.__aexit__(None, None, None)

    def _in_voice(self, socket: VoiceSocket) -> _LocalVoice:
        room = self.rooms.get(socket.room_id)
        current = room.local.get(socket.person_id) if room is not None else None
        if current is None or current.socket is not socket:
            raise VoiceRefused("voice_forbidden", "join the room's voice first", "先に音声に参加してください")
        return current

    # --- from the bus ----------------------------------------------------------------------

    def _heard(self, room_id: int, message: Message) -> None:
        """A voice message of the room from any process (this one included), in the bus's turn."""
        room = self.rooms.get(room_id)
        if room is None:
            return
        event, person = message.get("event"), message.get("person_id")
        now = asyncio.get_running_loop().time()
        if event == "roll_call":
            for person_id, mine in room.local.items():
                self._spawn(self._announce(room_id, person_id, mine))
            return
        if not isinstance(person, int):
            return
        session = message.get("session")
        if event == "joined":
            fresh = person not in room.members or room.members[person].session != session
            member = room.members.get(person)
            room.members[person] = _Member(
                str(message.get("name", "")),
                bool(message.get("muted", member.muted if member else False)),
                str(session),
                now,
            )
            local = room.local.get(person)
            if local is not None and local.session != session:
                # The person joined from another socket: this one's voice ends, without a goodbye.
                del room.local[person]
                self._send(local.socket, {"type": "voice", "event": "ended", "reason": "elsewhere"})
            if fresh:
                self._to_room(
                    room, {"type": "voice", "event": "joined", **self._entry(person, room.members[person])}
                )
        elif event == "left":
            member = room.members.get(person)
            if member is not None and member.session == session:
                del room.members[person]
                self._to_room(room, {"type": "voice", "event": "left", "person_id": person})
        elif event == "muted":
            member = room.members.get(person)
            if member is not None and member.session == session:
                member.muted = bool(message.get("muted"))
                self._to_room(
                    room, {"type": "voice", "event": "muted", "person_id": person, "muted": member.muted}
                )
        elif event == "signal":
            to = message.get("to")
            addressee = room.local.get(to) if isinstance(to, int) else None
            if addressee is not None and person in room.members:
                payload: dict[str, Any] = {
                    key: message[key] for key in ("description", "candidate") if key in message
                }
                self._send(addressee.socket, {"type": "voice", "event": "signal", "from": person, **payload})

    async def _announce(self, room_id: int, person_id: int, local: _LocalVoice) -> None:
        room = self.rooms.get(room_id)
        member = room.members.get(person_id) if room is not None else None
        if member is None:
            return
        await self._publish(
            room_id,
            bus.voice_event(
                "joined", person_id, name=member.name, session=local.session, muted=member.muted, again=True
            ),
        )

    def _start_refreshing(self) -> None:
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.get_running_loop().create_task(self._refresh_forever())

    async def _refresh_forever(self) -> None:
        """Announce this process's people in voice again, and forget the others' that went quiet."""
        while self.rooms:
            await asyncio.sleep(REFRESH_SECONDS)
            now = asyncio.get_running_loop().time()
            for room_id, room in list(self.rooms.items()):
                for person_id, local in list(room.local.items()):
                    try:
                        await self._announce(room_id, person_id, local)
                    except Exception:  # noqa: BLE001 - the bus reconnects; announce at the next round
                        log.warning("could not announce voice in room %s", room_id, exc_info=True)
                for person_id, member in list(room.members.items()):
                    quiet = now - member.heard_at > REFRESH_SECONDS * FORGET_AFTER_REFRESHES
                    if quiet and person_id not in room.local:
                        del room.members[person_id]
                        self._to_room(room, {"type": "voice", "event": "left", "person_id": person_id})

    # --- helpers -----------------------------------------------------------------------------

    def _roster(self, room: _VoiceRoom) -> list[dict[str, Any]]:
        return [self._entry(person_id, member) for person_id, member in room.members.items()]

    @staticmethod
    def _entry(person_id: int, member: _Member) -> dict[str, Any]:
        return {"person_id": person_id, "name": member.name, "muted": member.muted}

    def _to_room(self, room: _VoiceRoom, message: dict[str, Any]) -> None:
        for socket in list(room.sockets):
            self._send(socket, message)

    def _send(self, socket: VoiceSocket, message: dict[str, Any]) -> None:
        self._spawn(socket.send(message))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("a voice message was not delivered: %s", task.exception())

    async def _publish(self, room_id: int, message: Message) -> None:
        await self.services.pubsub.publish(bus.voice_channel(room_id), message)


def voice_relay(socket: Any) -> VoiceRelay:
    """The process's relay, kept on the app's state beside the socket's other shared parts."""
    state = socket.websocket.app.state
    relay = getattr(state, "voice_relay", None)
    if relay is None:
        relay = state.voice_relay = VoiceRelay(socket.services)
    return relay


async def handle(socket: Any, message: dict[str, Any], raw: str) -> None:
    """app/routes/ws.py's dispatch of a `voice` message."""
    await voice_relay(socket).handle(socket, message, raw)


async def socket_closed(socket: Any) -> None:
    """app/routes/ws.py's call when a room's socket ends."""
    relay = getattr(socket.websocket.app.state, "voice_relay", None)
    if relay is not None:
        await relay.socket_closed(socket)
