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

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.live.wire import Parts, compact, dumps, join_parts, patch_text, shared_text, view_parts

__all__ = [
    "Parts",
    "Reader",
    "RecentEvents",
    "SeatState",
    "Snapshot",
    "build_seat",
    "dumps",
    "state_message",
]


@dataclass(slots=True)
class SeatState:
    """One seat's view (or the spectators') at one version, as JSON pieces."""

    version: int
    parts: Parts
    legal: str


def build_seat(
    version: int,
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    like: tuple[dict[str, Any], Parts] | None = None,
) -> SeatState:
    """A seat's state; `like`: another seat's view of this version and its parts, whose texts
    this one's equal keys share (`view_parts`)."""
    return SeatState(version=version, parts=view_parts(view, like), legal=shared_text(dumps(compact(legal))))


class RecentEvents:
    """The engine events of a match's last `limit` batches (one batch per committed change), as
    JSON text for readers that are a few versions behind.

    One string and two small arrays: a deque of (version, event dicts) was ~10 KB of a Familia
    table for as long as it lived, and a deque of (version, text) tuples still ~4 KB for ~1 KB
    of text (deque block, tuples, string headers)."""

    __slots__ = ("_afters", "_ends", "_limit", "_text")

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._afters = array("q")  # the version each batch led to, oldest first
        self._ends = array("q")  # where each batch's text ends in `_text`
        self._text = ""

    def __len__(self) -> int:
        return len(self._afters)

    def append(self, after: int, events: list[dict[str, Any]]) -> None:
        batch = dumps(events)[1:-1]
        if len(self._afters) >= self._limit:
            cut = self._ends[0]
            del self._afters[0], self._ends[0]
            self._text = self._text[cut:]
            for n in range(len(self._ends)):
                self._ends[n] -= cut
        self._afters.append(after)
        self._text += batch
        self._ends.append(len(self._text))

    def since(self, version: int) -> str:
        """The events of the batches that led past `version`, as one JSON array."""
        batches: list[str] = []
        start = 0
        for after, end in zip(self._afters, self._ends, strict=True):
            if after > version and end > start:
                batches.append(self._text[start:end])
            start = end
        return "[" + ",".join(batches) + "]"


@dataclass(slots=True)
class Reader:
    """What one socket last received of one match: the version, the seats it showed, how many
    finished hands it holds, and the encoded views it holds (shared strings, not copies), so
    each message is a patch against exactly what this reader has, however many versions it
    skipped."""

    version: int | None = None
    seats: tuple[int, ...] | None = None
    hands: int = 0
    views: dict[str, Parts] = field(default_factory=dict)


@dataclass(slots=True)
class Snapshot:
    """Every seat state built for one committed version, plus cached event lists."""

    version: int
    seats: dict[int | None, SeatState] = field(default_factory=dict)
    events: dict[int | None, str] = field(default_factory=dict)
    # The current hand's events for readers that just connected (app/live/hand_log.py), built once.
    hand_log: str | None = None
    take_back: int | None = None
    """The seat whose person may take back its last action now (the action made this version)."""


def state_message(
    match_id: int,
    snapshot: Snapshot,
    seats: tuple[int, ...],
    reader: Reader,
    events: str,
    total: int,
    hands: Callable[[], Sequence[dict[str, Any]]],
    hand_log: str | None = None,
) -> str:
    """The `state` message for a reader holding `seats` (empty: a spectator), as text.
    `total` finished hands, whose records `hands()` gives: asked for and encoded only for a
    reader that lacks some (on connect, when a hand ends), not kept as text for the match's
    whole life (a game may build its records on each call: engine.core `_hand_records`).
    `hand_log`: the current hand's events as a JSON array, for a reader that just connected."""
    same_seats = reader.seats == seats
    patched: list[str] = []
    held: dict[str, Parts] = {}

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
    sent_hands = ""
    if reader.hands != total:
        start = reader.hands if reader.hands < total else 0
        sent_hands = f',"hands_from":{start},"hands":[{",".join(dumps(h) for h in hands()[start:])}]'
    reader.version, reader.seats, reader.hands, reader.views = snapshot.version, seats, total, held
    log_part = f',"hand_log":{hand_log}' if hand_log is not None else ""
    take_back = f',"take_back":{snapshot.take_back}' if snapshot.take_back is not None else ""
    return (
        f'{{"type":"state","match_id":{match_id},"version":{snapshot.version},"views":{views},'
        f'"legal":{legal},"spectator":{spectator},"patched":{dumps(patched)},"events":{events},'
        f'"hands_total":{total}{sent_hands}{log_part}{take_back}}}'
    )
