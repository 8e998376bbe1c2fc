"""The bus's vocabulary: every channel and message the server publishes is built here.

Messages say what changed, never a seat's private view (each socket builds its own message from
the table service, see app/live/pubsub.py), and they stay small: with `CARDTABLE_PUBSUB=postgres`
each one is a NOTIFY payload (a state message then also carries the log entries it announces, for
the other processes: `state_changed`). A room's sockets listen on `room_channel(room_id)`.
"""

from __future__ import annotations

from typing import Any

from app.live.pubsub import LOG, InProcessPubSub, Message

ROOM, STATE, CHAT, TIMERS = "room", "state", "chat", "timers"
"""The kinds a room's channel carries (app/routes/ws.py forwards each to its sockets)."""

STAND_IN_CHANNEL = "deadlines:stand-in"
"""Where the process that claims an away deadline tells every process (itself included) that a
bot plays for the seat: whichever process commits the match's next moves then plays it too."""

SESSIONS_CHANNEL = "sessions:ended"
"""A session was signed out: its sockets close on every process (app/live/sessions.py)."""
SEATS_CHANNEL = "tables:seats"
"""The seating of a running match changed: every process re-reads its holders from the database
before it next sends a view or takes an action of that match (app/live/tables.py)."""


ROOM_CHANNEL_PREFIX = "room:"


def room_channel(room_id: int) -> str:
    return f"{ROOM_CHANNEL_PREFIX}{room_id}"


def rooms_read_again(pubsub: InProcessPubSub) -> None:
    """Every room this process has sockets in is read again by them: after the bus could not
    hear the other processes for a while, a room change made through one of them may be missed
    (app/live/pubsub.py's `on_heard_again`)."""
    for channel in pubsub.channels():
        if channel.startswith(ROOM_CHANNEL_PREFIX):
            pubsub.deliver(channel, room_changed())


def room_changed() -> Message:
    """Seats, members, settings, presence or the latest match changed: read the room again."""
    return {"kind": ROOM}


def state_changed(match_id: int, version: int, log: tuple[int, list[list[Any]]] | None = None) -> Message:
    """The match committed `version`: each socket asks the table service for its own state.

    `log`, for other server processes only: `(first, entries)`, the committed entries from log
    position `first` up to `version`, each `[seat, action, auto]`, so a process whose copy of
    the match is at `first` or later applies them without reading the log back (a batch too long
    for a NOTIFY is left out by the adapter, and read from the database instead). They contain
    every seat's moves, hidden ones too: they go from server to server and no socket forwards
    them (app/routes/ws.py sends each reader a state built for them)."""
    message: Message = {"kind": STATE, "match_id": match_id, "version": version}
    if log is not None:
        message[LOG] = {"first": log[0], "entries": log[1]}
    return message


def logged_entries(message: Message, position: int, version: int) -> list[tuple[int, Any, str | None]] | None:
    """The entries from log `position` up to `version` that a state message carries, as
    `(seat, action, auto)`; None when it carries none or not all of them."""
    carried = message.get(LOG)
    if not isinstance(carried, dict):
        return None
    first, entries = carried.get("first"), carried.get("entries")
    if not isinstance(first, int) or not isinstance(entries, list) or not first <= position:
        return None
    if first + len(entries) < version:
        return None
    try:
        return [(int(seat), action, auto) for seat, action, auto in entries[position - first :]]
    except (TypeError, ValueError):
        return None


def chat_line(line: dict[str, Any]) -> Message:
    """A committed chat line (public: everyone in the room may read it)."""
    return {"kind": CHAT, "message": line}


def timers_changed(match_id: int, timers: dict[str, float]) -> Message:
    """The running turn countdowns: seconds left per seat when the change was made."""
    return {"kind": TIMERS, "match_id": match_id, "timers": timers}


def stand_in(match_id: int, seat: int, person_id: int | None) -> Message:
    """On STAND_IN_CHANNEL: a bot plays for this seat while its person is away."""
    return {"match_id": match_id, "seat": seat, "person_id": person_id}


def signed_out(token_hash: str) -> Message:
    """On SESSIONS_CHANNEL: the session with this token hash ended."""
    return {"kind": "signed_out", "token_hash": token_hash}


def seats_changed(match_id: int) -> Message:
    """On SEATS_CHANNEL: the match's seating changed."""
    return {"kind": "seats", "match_id": match_id}


def voice_channel(room_id: int) -> str:
    """A room's voice: who joins, leaves or mutes, and the WebRTC signalling between its people
    (app/live/voice.py). Apart from the room's channel, so a burst of ICE candidates never
    crowds a socket's queue of table changes."""
    return f"voice:{room_id}"


def voice_event(event: str, person_id: int | None = None, **fields: Any) -> Message:
    """On a voice channel: `event` ("roll_call", "joined", "left", "muted", "signal") of
    `person_id`. A signal carries its sender's SDP or ICE candidate to one person of the room:
    server to server only, each process hands it to the addressee's socket alone."""
    message: Message = {"kind": "voice", "event": event, **fields}
    if person_id is not None:
        message["person_id"] = person_id
    return message
