"""The bus's vocabulary: every channel and message the server publishes is built here.

Messages say what changed, never a seat's private view (each socket builds its own message from
the table service, see app/live/pubsub.py), and they stay small: with `CARDTABLE_PUBSUB=postgres`
each one is a NOTIFY payload. A room's sockets listen on `room_channel(room_id)`.
"""

from __future__ import annotations

from typing import Any

from app.live.pubsub import Message

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


def room_channel(room_id: int) -> str:
    return f"room:{room_id}"


def room_changed() -> Message:
    """Seats, members, settings, presence or the latest match changed: read the room again."""
    return {"kind": ROOM}


def state_changed(match_id: int, version: int) -> Message:
    """The match committed `version`: each socket asks the table service for its own state."""
    return {"kind": STATE, "match_id": match_id, "version": version}


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
