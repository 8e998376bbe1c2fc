"""State messages built once per committed version and shared by every socket that shows a seat.

A `Snapshot` belongs to one live match and one committed version. For each seat somebody looks at
(and for spectators, seat `None`) it holds the view split into its top-level keys as JSON text,
and the compact legal actions. A socket's message is then assembled from these strings (a view
is patched against the parts that socket last received): no engine call, no database query and
no encoding of a view per socket.

Wire shape (see docs/ARCHITECTURE.md): a view never carries `hands` (finished hands' results go
once, in `hands`/`hands_from`, when the reader lacks them); a view listed in `patched` holds only
the keys that changed since the reader's previous state of this match (`"$removed"` lists keys
that disappeared).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.choices import compact

REMOVED = "$removed"


def dumps(value: Any) -> str:
    """Compact JSON, the one encoding of everything sent to clients. orjson: a view is encoded
    key by key (for patches), where the standard library costs ~15x more per call."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass
class SeatState:
    """One seat's view (or the spectators') at one version, as JSON pieces."""

    version: int
    parts: dict[str, str]
    legal: str


def view_parts(view: dict[str, Any]) -> dict[str, str]:
    return {key: dumps(value) for key, value in view.items() if key != "hands"}


def join_parts(parts: dict[str, str]) -> str:
    return "{" + ",".join(f"{dumps(key)}:{text}" for key, text in parts.items()) + "}"


def patch_text(old: dict[str, str], new: dict[str, str]) -> str:
    changed = {key: text for key, text in new.items() if old.get(key) != text}
    removed = [key for key in old if key not in new]
    if removed:
        changed[REMOVED] = dumps(removed)
    return join_parts(changed)


def build_seat(version: int, view: dict[str, Any], legal: list[dict[str, Any]]) -> SeatState:
    return SeatState(version=version, parts=view_parts(view), legal=dumps(compact(legal)))


@dataclass
class Reader:
    """What one socket last received of one match: the version, the seats it showed, how many
    finished hands it holds, and the encoded views it holds (shared strings, not copies), so
    each message is a patch against exactly what this reader has, however many versions it
    skipped."""

    version: int | None = None
    seats: tuple[int, ...] | None = None
    hands: int = 0
    views: dict[str, dict[str, str]] = field(default_factory=dict)


@dataclass
class Snapshot:
    """Every seat state built for one committed version, plus cached event lists."""

    version: int
    seats: dict[int | None, SeatState] = field(default_factory=dict)
    events: dict[int | None, str] = field(default_factory=dict)


def state_message(
    match_id: int,
    snapshot: Snapshot,
    seats: tuple[int, ...],
    reader: Reader,
    events: str,
    hands: Sequence[dict[str, Any]],
) -> str:
    """The `state` message for a reader holding `seats` (empty: a spectator), as text.
    `hands` are the match's finished hands' results: encoded only for a reader that lacks
    some (on connect, when a hand ends), not kept as text for the match's whole life."""
    same_seats = reader.seats == seats
    patched: list[str] = []
    held: dict[str, dict[str, str]] = {}

    def piece(seat: int | None, name: str) -> str:
        parts = snapshot.seats[seat].parts
        held[name] = parts
        old = reader.views.get(name) if same_seats else None
        if old is not None:
            patched.append(name)
            return patch_text(old, parts)
        return join_parts(parts)

    if seats:
        views = "{" + ",".join(f'"{s}":{piece(s, str(s))}' for s in seats) + "}"
        legal = "{" + ",".join(f'"{s}":{snapshot.seats[s].legal}' for s in seats) + "}"
        spectator = "null"
    else:
        views, legal = "{}", "{}"
        spectator = piece(None, "spectator")
    total = len(hands)
    sent_hands = ""
    if reader.hands != total:
        start = reader.hands if reader.hands < total else 0
        sent_hands = f',"hands_from":{start},"hands":[{",".join(dumps(h) for h in hands[start:])}]'
    reader.version, reader.seats, reader.hands, reader.views = snapshot.version, seats, total, held
    return (
        f'{{"type":"state","match_id":{match_id},"version":{snapshot.version},"views":{views},'
        f'"legal":{legal},"spectator":{spectator},"patched":{dumps(patched)},"events":{events},'
        f'"hands_total":{total}{sent_hands}}}'
    )
