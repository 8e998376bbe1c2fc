"""A match held in memory: its engine state, who holds each seat, what each seat may do since
when, and the shared state messages built from it (app/live/snapshots.py).

PostgreSQL is the source of truth: a `LiveMatch` is a cache rebuilt with
`game.replay(players, options, log)` from `match_actions` whenever it is missing or suspect
(app/live/table.py loads it; app/live/committer.py moves it forward).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.live.hand_log import AutoMoves, current_hand_events
from app.live.snapshots import Parts, Reader, RecentEvents, Snapshot, build_seat, dumps, state_message
from app.store.matches import Controller
from app.store.rematch import DealPlan
from engine import Game, Match
from engine.core import LEGAL_CACHE_LIMIT

__all__ = ["LiveMatch", "Reader", "SeatOptions"]

RECENT_EVENT_BATCHES = 16


@dataclass(slots=True)
class SeatOptions:
    """What one seat may do, since which version: the list itself when it is short, else only
    its length and a fingerprint. A several-card choice (Fairy Five Hundred's kitty discard:
    1,001 actions, about 280 KB) is not held while a person thinks about it; the stale check
    compares fingerprints, and whoever needs the actions (a bot, a snapshot build) asks the
    engine again, which does not keep such lists either (engine.core.LEGAL_CACHE_LIMIT)."""

    since: int
    count: int
    actions: list[dict[str, Any]] | None
    digest: bytes | None = None

    @staticmethod
    def fingerprint(legal: list[dict[str, Any]]) -> bytes:
        return hashlib.blake2b(orjson.dumps(legal, option=orjson.OPT_SORT_KEYS), digest_size=16).digest()

    @classmethod
    def of(cls, since: int, legal: list[dict[str, Any]]) -> SeatOptions:
        if len(legal) <= LEGAL_CACHE_LIMIT:
            return cls(since, len(legal), legal)
        return cls(since, len(legal), None, cls.fingerprint(legal))

    def same(self, legal: list[dict[str, Any]]) -> bool:
        """Whether `legal` is the list these options stand for."""
        if len(legal) != self.count:
            return False
        if self.actions is not None:
            return self.actions == legal
        return self.fingerprint(legal) == self.digest


@dataclass
class LiveMatch:
    """A match held in memory, with who controls each seat (missing key: the seat is empty).

    `committed` is the log length known to be in the database: while an action's commit is in
    flight `version` is ahead of it, and nothing of that action may be shown."""

    match_id: int
    room_id: int
    game: Game
    match: Match
    controllers: dict[int, Controller]
    hands_stored: int
    finished: bool
    committed: int = 0
    # The last batches of engine events, as text: all they are ever used for is being sent.
    recent_events: RecentEvents = field(default_factory=lambda: RecentEvents(RECENT_EVENT_BATCHES))
    # seat -> since which version its legal actions are unchanged, and what they are
    options_since: dict[int, SeatOptions] = field(default_factory=dict)
    snapshot: Snapshot | None = None
    # True while a bot reads the match in a worker thread: readers then wait for the lock.
    busy: bool = False
    # A same-deal rematch: the chance actions to deal instead of random ones.
    deals: DealPlan | None = None
    # The room's turn timer in seconds (None: off); settings change only between matches.
    turn_timer: int | None = None
    # Moves a bot made for a person's seat (app/live/hand_log.py), stored with the log (its
    # `auto` column): read back with it whenever the match is rebuilt, by any process.
    auto_moves: AutoMoves = field(default_factory=dict)
    # The room's take-back setting ("off" or "until_next"), fixed while the match runs.
    take_backs: str = "until_next"
    # Another process announced a seat change: `controllers` must be read again before use.
    seats_stale: bool = False
    # The log length the last published state message announced (its entries since then are
    # what the next one carries to other processes: `Table.publish`).
    published: int = 0
    # seats_of's answers for the current `controllers` dict (that dict, then person -> seats).
    _held: tuple[dict[int, Controller], dict[int, tuple[int, ...]]] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.committed = self.published = self.version
        self.note_options()

    def note_options(self) -> None:
        """Call after every change: remember since which version each seat's options stand."""
        version, acting = self.version, set(self.match.to_act())
        for seat in range(self.match.players):
            legal = self.match.legal_actions(seat) if seat in acting else []
            known = self.options_since.get(seat)
            if known is None or not known.same(legal):
                self.options_since[seat] = SeatOptions.of(version, legal)

    def now_committed(self, events: list[dict[str, Any]]) -> None:
        """The log up to `version` is in the database (committed here, or by another process and
        applied here): show it, with `events`, the batch that led to it."""
        self.committed = self.version
        self.note_events(events)
        self.note_options()

    def note_events(self, events: list[dict[str, Any]]) -> None:
        """Keep the events of the batch that made the current version, for readers behind it."""
        self.recent_events.append(self.version, events)

    def saw_current_options(self, seat: int, version: int) -> bool:
        """Whether a client at `version` saw what `seat` may do now: the current version, or an
        older one when only other seats have moved since (so simultaneous moves are not stale)."""
        known = self.options_since.get(seat)
        return known is not None and known.since <= version <= self.version

    def options_from(self, seat: int) -> int:
        """The version since which `seat`'s legal actions stand (when its turn began)."""
        known = self.options_since.get(seat)
        return known.since if known is not None else self.version

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """`seat`'s legal actions at the current version (a long list is built again by the
        engine: see `SeatOptions`)."""
        known = self.options_since.get(seat)
        if known is None or known.count == 0:
            return []
        if known.actions is not None:
            return known.actions
        return self.match.legal_actions(seat)

    def legal_count(self, seat: int) -> int:
        known = self.options_since.get(seat)
        return known.count if known is not None else 0

    @property
    def version(self) -> int:
        return len(self.match.log)

    def seats_of(self, person_id: int | None) -> tuple[int, ...]:
        """The seats `person_id` holds, worked out once per person and seating (asked for every
        message to every socket; `controllers` is only ever replaced whole, never changed)."""
        if person_id is None:
            return ()
        held = self._held
        if held is None or held[0] is not self.controllers:
            held = self._held = (self.controllers, {})
        seats = held[1].get(person_id)
        if seats is None:
            mine = (s for s, c in self.controllers.items() if c.kind == "person" and c.person_id == person_id)
            seats = held[1][person_id] = tuple(sorted(mine))
        return seats

    def events_since(self, version: int | None) -> str:
        """Engine events of the actions after `version`, as a JSON array (of the last
        RECENT_EVENT_BATCHES batches; none for a reader that has no version yet)."""
        return "[]" if version is None else self.recent_events.since(version)

    # ---- shared state messages -------------------------------------------------------------
    def current_snapshot(self, wanted: tuple[int | None, ...] = ()) -> Snapshot:
        """The snapshot of the committed version with states for `wanted` seats (None: the
        spectators). A new version first rebuilds every seat someone looked at in the previous
        one (right after the commit, once). Call only when no commit is in flight."""
        assert self.version == self.committed, "a commit is in flight"
        snapshot = self.snapshot
        like: tuple[dict[str, Any], Parts] | None = None  # the last view built now, and its parts
        if snapshot is None or snapshot.version != self.version:
            previous = snapshot
            snapshot = self.snapshot = Snapshot(version=self.version, take_back=self.take_back_seat())
            if previous is not None:
                for seat in previous.seats:
                    like = self._build(snapshot, seat, like)
        for seat in wanted:
            if seat not in snapshot.seats:
                like = self._build(snapshot, seat, like)
        return snapshot

    def take_back_seat(self) -> int | None:
        """The seat whose person may take back the last action now (the engine's check is cheap:
        no replay), or None."""
        match = self.match
        if self.take_backs != "until_next" or self.finished or not match.log:
            return None
        seat = match.log[-1][0]
        controller = self.controllers.get(seat)
        if controller is None or controller.kind != "person" or match.take_back_refusal(seat) is not None:
            return None
        return int(seat)

    def _build(
        self, snapshot: Snapshot, seat: int | None, like: tuple[dict[str, Any], Parts] | None
    ) -> tuple[dict[str, Any], Parts]:
        """Build `seat`'s state into `snapshot`, sharing the texts of keys equal in `like` (another
        seat's view built for this version); returns this seat's view and parts for the next."""
        legal = self.legal(seat) if seat is not None else []
        view = self.match.view(seat)
        state = snapshot.seats[seat] = build_seat(self.version, view, legal, like)
        return view, state.parts

    def events_text(self, snapshot: Snapshot, since: int | None) -> str:
        cached = snapshot.events.get(since)
        if cached is None:
            cached = snapshot.events[since] = self.events_since(since)
        return cached

    def message_for(self, person_id: int | None, reader: Reader, skip_seen: bool = False) -> str | None:
        """One reader's `state` message at the committed version (see app/live/snapshots.py); ""
        when `skip_seen` and the reader already has this version for the same seats; None
        while a commit is in flight and the committed snapshot lacks this reader's seats (the
        caller then waits for the match's lock)."""
        seats = self.seats_of(person_id)
        if skip_seen and reader.version == self.committed and reader.seats == seats:
            return ""
        wanted: tuple[int | None, ...] = seats or (None,)
        if self.busy:
            return None
        snapshot: Snapshot | None
        if self.version == self.committed:
            snapshot = self.current_snapshot(wanted)
        else:
            snapshot = self.snapshot
            if snapshot is None or snapshot.version != self.committed:
                return None
            if any(seat not in snapshot.seats for seat in wanted):
                return None
        events = self.events_text(snapshot, reader.version)
        hand_log = None
        if reader.version is None:  # a reader that just connected gets the whole hand's events
            if snapshot.hand_log is None:
                snapshot.hand_log = dumps(current_hand_events(self.match, snapshot.version, self.auto_moves))
            hand_log = snapshot.hand_log
        match = self.match
        return state_message(
            self.match_id, snapshot, seats, reader, events, match.hands_done, lambda: match.hands, hand_log
        )
