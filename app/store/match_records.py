"""What the match store (app/store/matches.py) hands out, and the domain errors it raises."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class MatchStoreError(Exception):
    """Base of the store's domain errors."""


class MatchNotFound(MatchStoreError):
    """No match has this id."""


class VersionConflict(MatchStoreError):
    """The match is no longer at the version the caller extended (another writer came first,
    or it has finished)."""


class SeatNotHeld(MatchStoreError):
    """The acting seat is no longer held by whom the caller believed (the seating changed,
    perhaps through another server process): nothing was written."""


@dataclass(frozen=True, slots=True)
class Controller:
    """Who plays a seat now: a person (by id) or a bot (at its level, "basic" or "strong").
    Slotted: every live table keeps one per seat."""

    kind: str
    person_id: int | None = None
    level: str | None = None


@dataclass
class StoredMatch:
    """What the database knows of a match: enough to replay it."""

    match_id: int
    room_id: int
    game_id: str
    players: int
    options: dict[str, Any]
    finished: bool
    log: list[tuple[int, dict[str, Any]]]
    hands_stored: int
    controllers: dict[int, Controller]
    same_deals_as: int | None = None
    """The finished match whose chance actions this one replays (app/store/rematch.py), if any."""
    rotate_deals: bool = False
    turn_timer: int | None = None
    """The room's turn timer in seconds (None: off); see app/live/deadlines.py."""
    take_backs: str = "until_next"
    """The room's take-back setting ("off" or "until_next"), fixed while a match runs."""
    auto_moves: dict[int, tuple[int, str]] = field(default_factory=dict)
    """Moves a bot made for a person's seat: version after the move -> (seat, "time" | "away")."""


@dataclass
class HandRecord:
    """One finished hand as stored in `hand_results`."""

    hand_no: int
    scores: list[Any]
    details: dict[str, Any]


@dataclass
class SeatResult:
    """Final score and rank of one seat (the store works out whom it is credited to)."""

    seat: int
    score: float
    rank: int
