"""The table service: live matches, one action at a time, committed before anyone hears of it.

PostgreSQL is the source of truth. A live match in memory is a cache rebuilt with
`game.replay(players, options, log)` from `match_actions` whenever it is missing or suspect.

Processing one action (always under the match's asyncio.Lock):
1. the acting seat must be held by the sender (or be a bot / chance),
2. the version the sender saw must be the current one, or one since which the sender's seat has
   had the very same legal actions (others acted meanwhile, as in a simultaneous exchange);
   else `stale`, and nothing changes,
3. the engine validates and applies it on the live match (`IllegalAction` leaves it untouched),
4. any chance actions the match now awaits are drawn from a fresh `secrets`-seeded RNG and applied
   (a same-deal rematch takes them from its source match's log instead: app/live/chance.py),
5. the new log rows (plus finished hands and final results) are committed in one transaction
   by `MatchStore.append`; if that fails the cached match is dropped and rebuilt from the log,
6. only then is the shared snapshot rebuilt (once per version, for every seat being watched;
   see app/live/snapshots.py) and the change published.

Bots and chance are "automatic seats": one background task per match plays them, bots after
`bot_delay` seconds so people can follow the play. A strong bot thinks in a worker process
(app/live/bot_pool.py) during that delay, without holding the match's lock; its answer counts only
if the match has not moved meanwhile.

That task runs in the process that last had reason to start it (a person's action, a start, a
seat change, a restart). Any other process serving the match's room watches it: when a reader
there is sent a state whose next move is automatic and no automation of its own runs, and the
match has not moved `bot_delay + TAKEOVER_AFTER` seconds after its last commit (the database's
clock: `MatchStore.quiet_for`), it starts its own (the owner died: issue #26, point 4). Should
the owner only have been slow, both play until the next person's turn; the version check of
every commit keeps that to one move per turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from app.limits import BIGINT_MAX
from app.live import bus
from app.live.bot_pool import BotPool
from app.live.chance import DealPlans, Randomness, chance_rng, settle_chance
from app.live.hand_log import AutoMoves, auto_mark, current_hand_events
from app.live.pubsub import Message, PubSub
from app.live.snapshots import Parts, Reader, RecentEvents, Snapshot, build_seat, dumps, state_message
from app.metrics import Metrics
from app.races import log_commit_failure
from app.rematch import DealPlan
from app.store.db import Database
from app.store.matches import Controller, HandRecord, MatchNotFound, MatchStore, SeatNotHeld, SeatResult
from engine import CHANCE, TAKE_BACK, Game, IllegalAction, Match, get_game, unknown_field
from engine.bots import get_chooser
from engine.core import LEGAL_CACHE_LIMIT

log = logging.getLogger(__name__)

RECENT_EVENT_BATCHES = 16
BOT_TURNS = 8
"""Bot and chance moves of all matches in flight at once. People's actions never wait for this
gate, so under load a person's move queues behind at most this many automatic ones instead of
one per busy table."""
SLOW_BOT_SECONDS = 0.002
"""A game whose bot once took longer than this to decide thinks in a worker thread from then on,
so it cannot stall every other table; quicker bots run in the event loop (a thread hand-off
costs more than their whole decision)."""
TAKEOVER_AFTER = 1.5
"""Seconds beyond the bot delay that an automatic move may be late, counted from its table's
last commit, before another process that serves the room plays it (a strong bot's search, 0.5 s
at most, runs within the delay). An owner that was only slow costs a duplicate attempt, which
the commit's version check refuses."""

__all__ = ["ActionRejected", "Controller", "LiveMatch", "Reader", "Table", "TableService"]


class ActionRejected(Exception):
    """An action refused with a WebSocket error code: stale, illegal, malformed, forbidden or
    take_back_refused; `ja` is the reason in Japanese where there is one."""

    def __init__(self, code: str, message: str, ja: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ja = ja



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
    # what the next one carries to other processes: `TableService.publish_state`).
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


def _check_fields(match_id: Any, seat: Any, version: Any) -> None:
    """A person's message names a match, a seat and the version it answers, as integers."""
    if not isinstance(match_id, int) or isinstance(match_id, bool):
        raise ActionRejected("malformed", "'match_id' must be the id of the match you were sent")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ActionRejected("malformed", "'seat' must be a seat number")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ActionRejected("malformed", "'version' must be the state version you saw")


def final_ranks(match: Match) -> list[int]:
    """Rank per seat (1 = best, ties share a rank). A game may define `final_ranks()` itself
    (e.g. tie-breaks from its rules); otherwise the higher cumulative score ranks first."""
    custom = getattr(match, "final_ranks", None)
    if callable(custom):
        return [int(r) for r in custom()]
    scores = list(match.scores)
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


class Table:
    """Everything this process holds for one match, dropped together when the match leaves
    memory: the lock its changes take turns on, the cached match (`live`: None until it is
    loaded, and again after a failed commit until it is rebuilt from the log), the task playing
    its bots and chance, the person seats a bot plays for while their person is away
    (`stand_ins`), and the seats whose turn timer ran out with the version of that one move
    (`timed_out`), and the task that takes its automation over if the process playing it stays
    silent (`watch`). The lock, the stand-ins and the timer moves outlive a rebuilt cache."""

    __slots__ = ("automation", "live", "lock", "match_id", "stand_ins", "timed_out", "watch")

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.lock = asyncio.Lock()
        self.live: LiveMatch | None = None
        self.automation: asyncio.Task[None] | None = None
        self.watch: asyncio.Task[None] | None = None
        self.stand_ins: set[int] = set()
        self.timed_out: dict[int, int] = {}

    @property
    def idle(self) -> bool:
        """Nobody holds or awaits the lock and no task runs for it: the table may be dropped."""
        tasks = (self.automation, self.watch)
        return not self.lock.locked() and all(task is None or task.done() for task in tasks)

    @property
    def automating(self) -> bool:
        return self.automation is not None and not self.automation.done()

    def automatic_seat(self, live: LiveMatch) -> int | None:
        """The seat the automation plays next: chance, a bot, or a person's seat that a bot
        plays for (its person is away, or its turn timer ran out at this version)."""
        if live.finished:
            return None
        acting = live.match.to_act()
        if CHANCE in acting:
            return CHANCE
        for seat in acting:
            controller = live.controllers.get(seat)
            if controller is None:
                continue
            if controller.kind == "bot":
                return seat
            if seat in self.stand_ins or self.timed_out_at(live, seat):
                return seat
        return None

    def settled_for_people(self) -> bool:
        """Whether the cached match, with no commit in flight and its seating known, awaits only
        people: its automation would start, find nothing to play and stop. At a table of four
        people that was a task, a lock and a fresh RNG per move for nothing (docs/BENCHMARKS.md)."""
        live = self.live
        if live is None or live.seats_stale or live.committed != live.version:
            return False
        return self.automatic_seat(live) is None

    def timed_out_at(self, live: LiveMatch, seat: int) -> bool:
        return self.timed_out.get(seat) == live.version

    def stands_in(self, live: LiveMatch, seat: int) -> bool:
        """Whether the automation plays this person's seat because they are away (not a timer)."""
        controller = live.controllers.get(seat)
        return (
            controller is not None
            and controller.kind == "person"
            and seat in self.stand_ins
            and not self.timed_out_at(live, seat)
        )

    def auto_reason(self, live: LiveMatch, seat: int) -> str | None:
        """Why the automation moves this seat: "time" (its turn timer ran out), "away" (a bot
        stands in for its person), or None for a bot's own seat."""
        controller = live.controllers.get(seat)
        if controller is None or controller.kind != "person":
            return None
        return "time" if self.timed_out_at(live, seat) else "away"

    def time_out(self, seat: int, version: int) -> None:
        """The seat's turn timer ran out at `version`: the automation plays that one move."""
        for stale in [s for s, v in self.timed_out.items() if v != version]:
            del self.timed_out[stale]
        self.timed_out[seat] = version


class TableService:
    """Owns every live match of this process, one `Table` each: the cache, the action pipeline,
    bots and chance, and the shared state messages. All persistence goes through `MatchStore`."""

    def __init__(
        self,
        db: Database,
        pubsub: PubSub,
        bot_delay: float,
        bots: BotPool | None = None,
        bot_level: str = "strong",
        deal_seed: int | None = None,
    ) -> None:
        self.store = MatchStore(db)
        self.pubsub = pubsub
        self.bot_delay = bot_delay
        self.bots = bots or BotPool(workers=2, budget=0.2)
        self.bot_level = bot_level
        self.randomness = Randomness(deal_seed)
        self._tables: dict[int, Table] = {}
        self._slow_bots: set[str] = set()
        self._bot_turns = asyncio.Semaphore(BOT_TURNS)
        self._closed = False
        self.deals = DealPlans(self.store)
        self.clock: Any = None
        """app/live/deadlines.Deadlines once the app has started it: turn timers and stand-ins."""
        self._listening: contextlib.AbstractAsyncContextManager[None] | None = None
        self.metrics: Metrics | None = None
        """app/metrics.py, once the app has made it: commits, state builds, bot decisions."""
        self.match_ended: Callable[[int], None] | None = None
        """Told the id of each match this process ends, once its end is committed (with its review
        queued): app/live/reviews.py's `Reviews.kick`."""

    # ---- cache --------------------------------------------------------------------------------
    def table(self, match_id: int) -> Table:
        """The match's table, made when the match first comes into this process's memory."""
        table = self._tables.get(match_id)
        if table is None:
            table = self._tables[match_id] = Table(match_id)
        return table

    def lock(self, match_id: int) -> asyncio.Lock:
        return self.table(match_id).lock

    def live_count(self) -> int:
        """Matches held in memory now (the operator's `cardtable_live_tables`)."""
        return sum(1 for table in self._tables.values() if table.live is not None)

    def live(self, match_id: int) -> LiveMatch | None:
        table = self._tables.get(match_id)
        return table.live if table is not None else None

    async def _load(self, match_id: int) -> LiveMatch:
        """The cached match, or one rebuilt from the database (call with the lock held)."""
        table = self.table(match_id)
        if table.live is not None:
            return table.live
        try:
            stored = await self.store.load(match_id)
        except MatchNotFound:
            if self._tables.get(match_id) is table and table.automation is None and table.watch is None:
                del self._tables[match_id]  # no such match: keep nothing for it
            raise KeyError(match_id) from None
        game = get_game(stored.game_id)
        match = await asyncio.to_thread(game.replay, stored.players, stored.options, stored.log)
        deals = None
        if stored.same_deals_as is not None and not stored.finished:
            deals = await self.deals.plan(stored.same_deals_as, stored.rotate_deals)
        live = LiveMatch(
            match_id=match_id,
            room_id=stored.room_id,
            game=game,
            match=match,
            controllers=stored.controllers,
            hands_stored=stored.hands_stored,
            finished=stored.finished,
            deals=deals,
            turn_timer=stored.turn_timer,
            auto_moves=stored.auto_moves,
            take_backs=stored.take_backs,
        )
        table.live = live
        return live

    async def state_text(
        self,
        match_id: int,
        person_id: int | None,
        reader: Reader,
        at_least: int | None = None,
        announced: Message | None = None,
    ) -> str | None:
        """The `state` message for one reader, or None when it has already seen this version.

        Never shows an action whose commit is still in flight: the shared snapshot of the
        committed version is used when it exists, else the match's lock is awaited.
        `at_least` is the version a pub/sub message (`announced`) announced: when another server
        process committed it, our cache is behind and follows the entries the message carries,
        or else the log in the database."""
        text = self.state_text_now(match_id, person_id, reader, at_least, announced)
        if text is not None:
            return text or None
        repeat = at_least is not None  # a bus message: skip it if this reader has seen it all
        first = reader.version is None
        async with self.lock(match_id):
            live = self.live(match_id)
            if (
                live is not None
                and at_least is not None
                and live.committed < at_least
                and not await self._catch_up(live, at_least, announced)
            ):
                self.forget(match_id)
            cached = self.live(match_id) is not None
            live = await self._load(match_id)
            if cached and (first or live.seats_stale):
                await self._reseat(live)
            self._watch(live)
            return live.message_for(person_id, reader, skip_seen=repeat) or None

    def state_text_now(
        self,
        match_id: int,
        person_id: int | None,
        reader: Reader,
        at_least: int | None = None,
        announced: Message | None = None,
    ) -> str | None:
        """`state_text` when it needs no wait: from the shared snapshot of the committed version
        of a cached match ("" when this reader has seen it all), or None when it would have to
        wait (a commit in flight, a reader's first state, seats changed elsewhere, a version
        committed by another process that `announced` does not carry in full).

        A version another process committed is followed here, in the bus's turn, when the
        message carries its entries and nobody holds the match's lock, so that both processes
        send a move's states the same way: with two processes half of every table's sockets are
        on the one that did not commit it, and each move reached them through a task and the
        lock (what that cost, and what it did not: docs/BENCHMARKS.md)."""
        live = self.live(match_id)
        # A reader's first state reads the seats' holders from the database: a seat change made
        # through another process may not have been announced here yet.
        if live is None or reader.version is None or live.seats_stale:
            return None
        if at_least is not None and not self._caught_up_now(live, at_least, announced):
            return None
        text = live.message_for(person_id, reader, skip_seen=at_least is not None)
        if text is not None:
            self._watch(live)
        return text

    def _caught_up_now(self, live: LiveMatch, at_least: int, announced: Message | None) -> bool:
        """Whether our copy has `at_least` committed, after following another process's commits
        without waiting, from the entries `announced` carries: only when the lock is free and no
        commit of ours is in flight, so this is what `_catch_up` under the lock would do. A copy
        that cannot follow them is dropped (the waiting path rebuilds it from the log); False
        leaves the waiting to that path."""
        if live.committed >= at_least:
            return True
        if announced is None or self.lock(live.match_id).locked() or live.version != live.committed:
            return False
        entries = bus.logged_entries(announced, live.committed, at_least)  # None unless all there
        if entries is None:
            return False
        if not self._follow(live, entries, at_least):
            self.forget(live.match_id)
            return False
        return True

    async def _catch_up(self, live: LiveMatch, at_least: int, announced: Message | None = None) -> bool:
        """Apply to our copy the actions another process committed since its version (`_follow`).
        The entries come with the bus message that announced them (`announced`) when it carries
        them all, else from the database. False when the copy cannot follow them (the caller
        rebuilds it from the log, without events). Call with the match's lock held."""
        if live.version != live.committed:
            return False
        entries = bus.logged_entries(announced, live.committed, at_least) if announced else None
        if entries is None:
            entries = await self.store.actions_from(live.match_id, live.committed)
        return self._follow(live, entries, at_least)

    @staticmethod
    def _follow(live: LiveMatch, entries: list[tuple[int, Any, str | None]], at_least: int) -> bool:
        """Apply `entries`, committed by another process from our copy's version on, keeping their
        engine events and auto-move marks, so that this process's sockets see those moves as the
        other's do (a card that travels, the play log's line, "Time's up"). False, with the copy
        untouched, when they do not reach `at_least`; False when the copy cannot follow them,
        which may leave it half changed: it must then be rebuilt from the log. No await: nothing
        else can touch the copy meanwhile."""
        if live.committed + len(entries) < at_least:
            return False
        events: list[dict[str, Any]] = []
        try:
            for seat, action, auto in entries:
                applied = live.match.apply(seat, action)
                if auto is not None:
                    applied = [auto_mark(seat, auto, live.version, len(applied)), *applied]
                    live.auto_moves[live.version] = (seat, auto)
                events.extend(applied)
        except Exception:
            log.exception("match %s could not follow the log another process wrote", live.match_id)
            return False
        live.hands_stored = live.match.hands_done
        live.finished = live.match.is_over
        live.now_committed(events)
        live.published = live.committed  # announced already, by the process that committed it
        return True

    def forget(self, match_id: int) -> None:
        """Drop the cached match (it is rebuilt from the log when next needed); the table stays."""
        table = self._tables.get(match_id)
        if table is not None:
            table.live = None

    async def _reseat(self, live: LiveMatch) -> None:
        """Read who holds each seat from the database (call with the lock held)."""
        live.seats_stale = False  # a change announced during the read marks it stale again
        live.controllers = await self.store.controllers(live.room_id)

    async def _seated(self, match_id: int) -> LiveMatch:
        """`_load`, with the seats' holders read again when a change was announced."""
        live = await self._load(match_id)
        if live.seats_stale:
            await self._reseat(live)
        return live

    def _seats_moved(self, message: dict[str, Any]) -> None:
        """A bus message from any process (this one too): a match's seating changed."""
        match_id = message.get("match_id")
        live = self.live(match_id) if isinstance(match_id, int) else None
        if live is not None:
            live.seats_stale = True

    async def start(self) -> None:
        """Hear of seat changes made through every process (see `bus.SEATS_CHANNEL`)."""
        self._listening = self.pubsub.listen(bus.SEATS_CHANNEL, self._seats_moved)
        await self._listening.__aenter__()

    # ---- starting -------------------------------------------------------------------------------
    async def start_match(
        self,
        session: AsyncSession,
        room_id: int,
        game_id: str,
        players: int,
        options: dict[str, Any],
        same_deals_as: int | None = None,
        rotate: bool = False,
        turn_timer: int | None = None,
        take_backs: str = "until_next",
    ) -> LiveMatch:
        """Create a match for the room's current seating inside the caller's transaction, with its
        opening chance actions logged (from match `same_deals_as`, when given). The caller
        commits, then calls `activate` with the result."""
        game = get_game(game_id)
        match = game.new_match(players, options)
        deals = await self.deals.plan(same_deals_as, rotate) if same_deals_as is not None else None
        events = settle_chance(match, deals, self.randomness)
        match_id, controllers = await self.store.create(
            session, room_id, game_id, players, options, list(match.log), same_deals_as, rotate
        )
        live = LiveMatch(
            match_id=match_id,
            room_id=room_id,
            game=game,
            match=match,
            controllers=controllers,
            hands_stored=0,
            finished=False,
            deals=deals,
            turn_timer=turn_timer,
            take_backs=take_backs,
        )
        live.note_events(events)
        return live

    async def activate(self, live: LiveMatch) -> None:
        """After the start transaction committed: cache the match, tell the room, start bots.
        Finished matches of the same room leave the cache (their history lives in the database)."""
        for old in [
            t for t in self._tables.values() if t.live is not None and t.live.room_id == live.room_id
        ]:
            if old.live is not None and old.live.finished:
                old.live = None
                if old.idle:
                    del self._tables[old.match_id]
        table = self.table(live.match_id)
        table.live = live
        if self.metrics is not None:  # the opening chance actions, committed with the match
            self.metrics.committed_actions.inc(live.version)
        await self.publish_state(live.match_id)
        await self._turns_changed(live, -1)
        self.kick(live.match_id)

    # ---- actions --------------------------------------------------------------------------------
    async def submit(
        self, match_id: Any, person_id: int, seat: Any, version: Any, action: Any, room_id: int | None = None
    ) -> None:
        """A person's action from the WebSocket (for a match of `room_id`, when given); raises
        ActionRejected and changes nothing if refused."""
        _check_fields(match_id, seat, version)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ActionRejected("malformed", "'action' must be an object with a string 'type'")
        if action["type"] == TAKE_BACK:
            raise ActionRejected("malformed", "a take-back is its own message: {\"type\": \"take_back\", …}")
        async with self._person_turn(match_id, person_id, seat, room_id) as live:
            if not live.saw_current_options(seat, version):
                raise ActionRejected(
                    "stale", f"the table moved on (version {live.version}, you sent {version}); try again"
                )
            # A field no legal action of its type has: the engine would refuse it too, but as an
            # illegal move; to the client it is a malformed message (and this costs no lookup).
            unknown = unknown_field(action, live.legal(seat))
            if unknown is not None:
                raise ActionRejected("malformed", f"a '{action['type']}' action has no field {unknown!r}")
            await self._apply_and_commit(live, seat, action)
        await self.publish_state(match_id)
        self.kick(match_id)

    async def take_back(
        self, match_id: Any, person_id: int, seat: Any, version: Any, room_id: int | None = None
    ) -> None:
        """A person takes back their seat's last action, the one that made `version`: committed
        as a log entry through the same version check as any action (so of a take-back and the
        next action racing, on any processes, exactly one wins). Raises ActionRejected
        ("take_back_refused" with the reason in both languages) and changes nothing if refused."""
        _check_fields(match_id, seat, version)
        try:
            await self._take_back(match_id, person_id, seat, version, room_id)
        except ActionRejected as refused:
            if refused.code != "illegal":  # forbidden and malformed keep their codes
                raise
            raise ActionRejected("take_back_refused", refused.message, refused.ja) from None
        await self.publish_state(match_id)
        self.kick(match_id)

    async def _take_back(
        self, match_id: int, person_id: int, seat: int, version: int, room_id: int | None
    ) -> None:
        async with self._person_turn(match_id, person_id, seat, room_id) as live:
            if live.take_backs != "until_next":
                raise ActionRejected(
                    "take_back_refused",
                    "this room does not allow take-backs",
                    "この部屋では待ったはできません",
                )
            if version != live.version:
                raise ActionRejected(
                    "take_back_refused",
                    "the table has moved on since that action; it can no longer be taken back",
                    "その後に場が進んだため、もう取り消せません",
                )
            refusal = live.match.take_back_refusal(seat)
            if refusal is not None:
                raise ActionRejected("take_back_refused", refusal.reason, refusal.ja)
            try:
                await self._apply_and_commit(live, seat, {"type": TAKE_BACK})
            except ActionRejected as lost:
                if lost.code != "stale":
                    raise
                raise ActionRejected(
                    "take_back_refused",
                    "someone acted first; the action can no longer be taken back",
                    "先に他の人が行動したため、取り消せませんでした",
                ) from None

    @contextlib.asynccontextmanager
    async def _person_turn(
        self, match_id: int, person_id: int, seat: int, room_id: int | None
    ) -> AsyncIterator[LiveMatch]:
        """The match's lock and live match, once the sender is known to hold `seat` of this
        running match of `room_id` (ActionRejected otherwise)."""
        if room_id is not None and self.live(match_id) is None:
            # Before any lock or replay: match ids are sequential, so an outsider naming them one
            # by one must not make this process load (and keep) every match ever played.
            await self._check_room(match_id, room_id)
        async with self.lock(match_id):
            try:
                live = await self._seated(match_id)
            except KeyError:
                raise ActionRejected("illegal", f"there is no match {match_id}") from None
            if room_id is not None and live.room_id != room_id:
                raise ActionRejected("forbidden", f"match {match_id} is not played in this room")
            controller = live.controllers.get(seat)
            if controller is None or controller.kind != "person" or controller.person_id != person_id:
                raise ActionRejected("forbidden", f"you do not hold seat {seat}")
            if live.finished:
                raise ActionRejected("illegal", "the match is over")
            yield live

    async def _check_room(self, match_id: int, room_id: int) -> None:
        """Refuse an action naming a match of another room (or none) from one small read."""
        owner = await self.store.room_of(match_id) if 0 < match_id <= BIGINT_MAX else None
        if owner is None:
            raise ActionRejected("illegal", f"there is no match {match_id}")
        if owner != room_id:
            raise ActionRejected("forbidden", f"match {match_id} is not played in this room")

    async def _apply_and_commit(
        self, live: LiveMatch, seat: int, action: dict[str, Any], auto: str | None = None
    ) -> None:
        """Apply `action` (and any chance that follows) and commit it; see the module docstring.
        `auto` ("time" or "away") marks a bot's move for a person's seat (app/live/hand_log.py)."""
        before = live.version
        try:
            events = live.match.apply(seat, action)
            if auto is not None:
                events = [auto_mark(seat, auto, before + 1, len(events)), *events]
        except IllegalAction as exc:
            raise ActionRejected("illegal", exc.reason) from None
        except Exception:
            # The contract says bad input raises IllegalAction; anything else is an engine bug
            # that may have left the match half-changed, so rebuild it from the log.
            log.exception("engine error on match %s for %r", live.match_id, action)
            self.forget(live.match_id)
            raise ActionRejected("illegal", "the game could not apply this action") from None
        events.extend(settle_chance(live.match, live.deals, self.randomness))
        refusal = "the action could not be saved; the table was reloaded"
        if auto is not None:  # before the commit: a reader connecting right after it sees the mark
            live.auto_moves[before + 1] = (seat, auto)
        try:
            await self._commit_or_forget(live, before, events, refusal)
        except ActionRejected:
            live.auto_moves.pop(before + 1, None)
            raise

    async def _commit_or_forget(
        self, live: LiveMatch, before: int, events: list[dict[str, Any]], refusal: str
    ) -> None:
        started = time.perf_counter()
        try:
            await self._commit(live, before)
        except SeatNotHeld:
            # The database says someone else holds the seat now: nothing was written.
            self.forget(live.match_id)
            raise ActionRejected(
                "forbidden", "this seat is no longer yours; the table was reloaded"
            ) from None
        except Exception as exc:
            log_commit_failure(log, exc, "could not commit match %s at version %s", live.match_id, before)
            self.forget(live.match_id)
            raise ActionRejected("stale", refusal) from None
        committed = time.perf_counter()
        live.now_committed(events)
        live.current_snapshot()  # rebuild what readers of the last version look at, once
        if self.metrics is not None:
            built = time.perf_counter()
            self.metrics.committed(live.version - before, committed - started, built - committed)
        await self._turns_changed(live, before)

    async def _turns_changed(self, live: LiveMatch, before: int) -> None:
        """Turn timers follow the committed turns (app/live/deadlines.py); the action is committed
        already, so a failure here is logged, never reported as a refusal."""
        if live.turn_timer is None or self.clock is None:
            return
        try:
            await self.clock.turns_changed(live, before)
        except Exception:
            log.exception("could not update the turn timers of match %s", live.match_id)

    async def _commit(self, live: LiveMatch, before: int) -> None:
        """One transaction: the new log rows, finished hands, and at the end the results."""
        match = live.match
        finished = match.hands[live.hands_stored :] if match.hands_done > live.hands_stored else []
        hands = [
            HandRecord(
                hand_no=int(hand.get("hand_no", index + 1)),
                scores=list(hand["scores"]),
                details={k: v for k, v in hand.items() if k != "scores"},
            )
            for index, hand in enumerate(finished, start=live.hands_stored)
        ]
        final = None
        if match.is_over:
            final = [
                SeatResult(seat=seat, score=float(score), rank=rank)
                for seat, (score, rank) in enumerate(zip(match.scores, final_ranks(match), strict=True))
            ]
        actor = match.log[before][0] if len(match.log) > before else CHANCE
        holder = None if actor == CHANCE else live.controllers.get(actor, Controller(kind="empty"))
        mark = live.auto_moves.get(before + 1)  # a bot's move for a person: stored with the action
        auto = mark[1] if mark is not None else None
        await self.store.append(
            live.match_id, before, match.log[before:], hands, final, match.teams, holder, auto
        )
        live.hands_stored = match.hands_done
        live.finished = match.is_over
        if final is not None and self.match_ended is not None:
            self.match_ended(live.match_id)

    # ---- seats ---------------------------------------------------------------------------------
    async def seats_changed(self, match_id: int) -> None:
        """The room's seating changed during this match: every process re-reads the holders
        (this one at once), then bots resume."""
        await self.pubsub.publish(bus.SEATS_CHANNEL, bus.seats_changed(match_id))
        async with self.lock(match_id):
            live = self.live(match_id)
            if live is not None:
                await self._reseat(live)
        await self.publish_state(match_id)
        self.kick(match_id)

    # ---- automatic seats (bots, chance) ---------------------------------------------------------
    def kick(self, match_id: int) -> None:
        """Make sure a task plays this match's bots and chance if any are to act."""
        if self._closed:
            return
        table = self.table(match_id)
        if table.automating or table.settled_for_people():
            return
        table.automation = asyncio.create_task(self._automate(table), name=f"bots-{match_id}")

    def _watch(self, live: LiveMatch) -> None:
        """A reader here was sent this match's committed state: if an automatic move is due and
        no automation of this process plays the match, make sure one will if nobody else does."""
        table = self.table(live.match_id)
        if self._closed or table.watch is not None or live.committed != live.version:
            return
        if table.automating or table.automatic_seat(live) is None:
            return
        table.watch = asyncio.create_task(
            self._take_over_if_silent(table, live.committed), name=f"watch-{live.match_id}"
        )

    async def _take_over_if_silent(self, table: Table, version: int) -> None:
        """Start this process's automation of the match if it is still at `version` once its
        owner had time to move: the owner died (or hangs), so nobody else will. While the bus
        tells of newer commits with automatic moves still due, it keeps watching.

        The first wait counts from when `version` was committed, not from now: a process that
        has just loaded the match (its person reconnected here after the owner died) may find
        the table silent for a while already."""
        match_id = table.match_id
        patience = self.bot_delay + TAKEOVER_AFTER
        try:
            wait = patience - await self.store.quiet_for(match_id, version)
            while True:
                await asyncio.sleep(max(0.0, wait))
                wait = patience
                live = table.live
                if live is None or live.committed == version:
                    if await self.store.version(match_id) == version:
                        log.info("match %s stayed at version %s: this process plays it", match_id, version)
                        self.kick(match_id)
                    return
                if live.committed != live.version or table.automating:
                    return
                if self._closed or table.automatic_seat(live) is None:
                    return
                version = live.committed  # the owner moved; watch its next move
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("could not check whether match %s is still played", match_id)
        finally:
            if table.watch is asyncio.current_task():
                table.watch = None

    async def _fresh(self, match_id: int) -> LiveMatch:
        """The match as committed in the database now, with its current controllers (call with
        the lock held). A deadline may be acted on by a process whose cache fell behind while
        another process moved the match (its automation would see a turn long gone)."""
        live = await self._load(match_id)
        if await self.store.version(match_id) > live.committed:
            self.forget(match_id)
            live = await self._load(match_id)
        else:
            live.controllers = await self.store.controllers(live.room_id)
        return live

    async def stand_in(self, match_id: int, seat: int, person_id: int | None) -> None:
        """The seat's person has been away longer than the room's grace: a bot plays for the
        seat from its next decision on, until they are back (checked before every move)."""
        async with self.lock(match_id):
            live = await self._fresh(match_id)
            controller = live.controllers.get(seat)
            if controller is None or controller.kind != "person" or controller.person_id != person_id:
                return
            self.table(match_id).stand_ins.add(seat)
        self.kick(match_id)

    def person_back(self, room_id: int, person_id: int) -> None:
        """The person connected again: no bot plays their seats from their next turn on."""
        for table in self._tables.values():
            if table.live is not None and table.live.room_id == room_id and table.stand_ins:
                table.stand_ins -= set(table.live.seats_of(person_id))

    async def timer_move(self, match_id: int, seat: int, since: int) -> bool:
        """The turn timer of `seat` (its turn began at version `since`) ran out: a bot plays that
        one move. False when the deadline no longer applies (the seat has moved since, is not
        awaited, is not a person's, or the match is over)."""
        async with self.lock(match_id):
            live = await self._fresh(match_id)
            controller = live.controllers.get(seat)
            if live.finished or controller is None or controller.kind != "person":
                return False
            if seat not in live.match.to_act() or since > live.version:
                return False
            if any(acted == seat for acted, _ in live.match.log[since:]):
                return False
            self.table(match_id).time_out(seat, live.version)
        self.kick(match_id)
        return True

    @staticmethod
    def _bot_action(live: LiveMatch, seat: int, rng: random.Random) -> dict[str, Any]:
        """The game's bot for `seat`, given its view and the legal actions already computed."""
        legal = live.legal(seat) or live.match.legal_actions(seat)
        if not legal:
            raise IllegalAction(f"seat {seat} has nothing to do")
        return get_chooser(live.game.id)(live.match.view(seat), legal, rng)

    async def _decide(self, live: LiveMatch, seat: int, rng: random.Random) -> dict[str, Any]:
        """The bot's action (call with the lock held), in a thread for games with slow bots."""
        if live.game.id in self._slow_bots:
            live.busy = True
            try:
                return await asyncio.to_thread(self._bot_action, live, seat, rng)
            finally:
                live.busy = False
        started = time.perf_counter()
        action = self._bot_action(live, seat, rng)
        seconds = time.perf_counter() - started
        if seconds > SLOW_BOT_SECONDS:
            self._slow_bots.add(live.game.id)
        if self.metrics is not None:
            self.metrics.bot_decided("basic", seconds)
        return action

    def _searches(self, live: LiveMatch, seat: int) -> bool:
        """Whether this bot seat thinks in a worker: a strong bot with a real choice to make."""
        controller = live.controllers.get(seat)
        level = (controller.level if controller is not None else None) or self.bot_level
        return level == "strong" and live.legal_count(seat) > 1

    async def _thought(
        self, thinking: asyncio.Future[dict[str, Any]], match_id: int
    ) -> dict[str, Any] | None:
        """A worker's answer, or None (the basic bot then plays) if the worker failed."""
        try:
            return await thinking
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("strong bot of match %s failed; the basic bot plays this move", match_id)
            return None

    async def _automate(self, table: Table) -> None:
        """Play chance at once and bots after `bot_delay`, until a person is to act or it ends.

        A strong bot thinks in a worker process during the delay (not under the lock, so people
        and readers never wait for it); its answer is used only if the match is still at the
        version it thought about, else it thinks again.
        A commit that fails (e.g. another server process wrote first) only costs a retry from the
        rebuilt match; a bot proposing an illegal action is a bug and stops the loop loudly."""
        match_id = table.match_id
        rng = chance_rng()
        failures = 0
        loop = asyncio.get_running_loop()
        try:
            while True:
                thinking: asyncio.Future[dict[str, Any]] | None = None
                async with self.lock(match_id):
                    live = await self._seated(match_id)
                    seat = table.automatic_seat(live)
                    if seat is None:
                        # Leave under the lock, so a later kick() always sees this task gone.
                        table.automation = None
                        return
                    thought_at = live.version
                    if seat != CHANCE and self._searches(live, seat):
                        seed = self.randomness.for_match(live.match, rng).getrandbits(64)
                        thinking = self.bots.decide(match_id, live.match, seat, seed)
                started = loop.time()
                action = await self._thought(thinking, match_id) if thinking is not None else None
                if action is not None and self.metrics is not None:
                    self.metrics.bot_decided("strong", loop.time() - started)
                if seat != CHANCE and self.bot_delay > 0:
                    await asyncio.sleep(max(0.0, self.bot_delay - (loop.time() - started)))
                try:
                    async with self._bot_turns, self.lock(match_id):
                        live = await self._seated(match_id)
                        if table.automatic_seat(live) != seat:
                            continue
                        if thinking is not None and live.version != thought_at:
                            continue  # the match moved while the bot thought: think again
                        if table.stands_in(live, seat) and not await self._still_away(live, seat):
                            table.stand_ins.discard(seat)
                            continue  # the person came back (perhaps to another process)
                        if seat == CHANCE:
                            await self._apply_chance(live)
                        else:
                            if action is None:
                                action = await self._decide(
                                    live, seat, self.randomness.for_match(live.match, rng)
                                )
                            await self._apply_and_commit(live, seat, action, table.auto_reason(live, seat))
                except ActionRejected as rejected:
                    failures += 1
                    # "forbidden": the seat changed hands meanwhile; the reloaded table decides
                    if rejected.code not in ("stale", "forbidden") or failures >= 5:
                        raise
                    await asyncio.sleep(0.05 * failures)
                    continue
                failures = 0
                await self.publish_state(match_id)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("automatic play of match %s stopped", match_id)
            table.automation = None

    async def _still_away(self, live: LiveMatch, seat: int) -> bool:
        if self.clock is None:
            return False
        controller = live.controllers.get(seat)
        return bool(
            await self.clock.standing_in(live.room_id, seat, controller.person_id if controller else None)
        )

    async def _apply_chance(self, live: LiveMatch) -> None:
        before = live.version
        events = settle_chance(live.match, live.deals, self.randomness)
        await self._commit_or_forget(live, before, events, "the shuffle could not be saved")

    # ---- publishing ------------------------------------------------------------------------------
    async def publish_state(self, match_id: int) -> None:
        live = self.live(match_id)
        if live is None:
            return
        logged = self._logged_since_published(live) if self.pubsub.between_processes else None
        live.published = live.committed
        await self.pubsub.publish(
            bus.room_channel(live.room_id), bus.state_changed(match_id, live.committed, logged)
        )

    @staticmethod
    def _logged_since_published(live: LiveMatch) -> tuple[int, list[list[Any]]] | None:
        """The entries committed since the last state message, as stored (`[seat, action,
        auto]`), for other processes to follow without reading them back (`_catch_up`)."""
        first, end = live.published, live.committed
        if not first < end <= len(live.match.log):
            return None
        entries: list[list[Any]] = []
        for position in range(first, end):
            seat, action = live.match.log[position]
            mark = live.auto_moves.get(position + 1)
            entries.append([seat, action, mark[1] if mark is not None else None])
        return first, entries

    # ---- catching up after the bus was deaf -------------------------------------------------
    async def catch_up_all(self) -> None:
        """Bring every live match of this process up to what the store holds. Called when the
        bus's listener has connected again (app/live/pubsub.py): what other processes announced
        meanwhile never reached this one. A match behind the store follows its log (or is rebuilt
        from it) and its sockets are sent the newer state; every match reads its seats again, and
        its bots and chance go on."""
        matches = [table.live for table in self._tables.values() if table.live is not None]
        stored = await self.store.versions([live.match_id for live in matches])
        for live in matches:
            match_id = live.match_id
            live.seats_stale = True  # a seat change may have been missed too
            if stored.get(match_id, 0) > live.committed:
                async with self.lock(match_id):
                    current = self.live(match_id)
                    if current is not None and not await self._catch_up(current, stored[match_id]):
                        self.forget(match_id)
                    with contextlib.suppress(KeyError):  # the match is gone: nothing to catch up
                        await self._load(match_id)
                await self.publish_state(match_id)
            self.kick(match_id)

    # ---- lifecycle ------------------------------------------------------------------------------
    async def resume_all(self) -> int:
        """Rebuild every unfinished match from its log and let its bots continue."""
        ids = await self.store.running_ids()
        for match_id in ids:
            try:
                async with self.lock(match_id):
                    await self._load(match_id)
            except Exception:
                log.exception("could not resume match %s", match_id)
                continue
            self.kick(match_id)
        return len(ids)

    async def close(self) -> None:
        self._closed = True
        if self._listening is not None:
            await self._listening.__aexit__(None, None, None)
            self._listening = None
        tasks = [
            task
            for table in self._tables.values()
            for task in (table.automation, table.watch)
            if task is not None
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for table in self._tables.values():
            table.automation = table.watch = None
        await self.bots.close()
        await self.store.close()
