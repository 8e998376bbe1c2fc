"""One live match of this process, as one object: its lock, its cached match, its commits, its
automatic seats, its take-backs, following other processes' commits, and publishing.

PostgreSQL is the source of truth. The match in memory (`live`) is a cache rebuilt with
`game.replay(players, options, log)` from `match_actions` whenever it is missing or suspect; the
registry (app/live/tables.py) drops the whole table when nobody needs it.

A person's action, always under the table's lock:
1. the acting seat must be held by the sender,
2. the version the sender saw must be the current one, or one since which the sender's seat has
   had the very same legal actions (others acted meanwhile, as in a simultaneous exchange);
   else `stale`, and nothing changes,
3. the committer applies and commits it (app/live/committer.py),
4. only then is the change published, and the automation (app/live/automation.py) plays any
   bot or chance that is next.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from app.live import bus
from app.live.automation import Automation
from app.live.committer import Committer, Unsaved
from app.live.following import follow, logged_since_published
from app.live.live_match import LiveMatch
from app.live.pubsub import Message
from app.live.refusals import ActionRejected
from app.live.snapshots import Reader
from app.store.matches import MatchNotFound
from engine import TAKE_BACK, get_game, unknown_field

if TYPE_CHECKING:
    from app.live.tables import TableService


class TableLock:
    """The table's lock, counting who holds or awaits it: a table is let go only when nobody
    does (asyncio.Lock does not tell its waiters, and between a release and the next holder's
    wake-up it reads as free)."""

    __slots__ = ("_lock", "users")

    def __init__(self) -> None:
        self._lock = asyncio.Lock()
        self.users = 0

    def locked(self) -> bool:
        return self._lock.locked()

    async def acquire(self) -> None:
        self.users += 1
        try:
            await self._lock.acquire()
        except BaseException:
            self.users -= 1
            raise

    def release(self) -> None:
        self._lock.release()
        self.users -= 1

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc_info: object) -> None:
        self.release()


class Table:
    """Everything this process holds for one match, dropped together when the match leaves
    memory: the lock its changes take turns on, the cached match (`live`: None until it is
    loaded, and again after a failed commit until it is rebuilt from the log), its committer and
    its automation (bots, chance, stand-ins, timed-out moves). The lock and the automation
    outlive a rebuilt cache. `used_at` (the event loop's clock) is when anyone last read or
    moved the match here: an idle table leaves memory."""

    __slots__ = ("automation", "committer", "live", "lock", "match_id", "tables", "used_at")

    def __init__(self, match_id: int, tables: TableService) -> None:
        self.match_id = match_id
        self.tables = tables
        self.lock = TableLock()
        self.live: LiveMatch | None = None
        self.committer = Committer(tables)
        self.automation = Automation(self)
        self.used_at = time.monotonic()

    @property
    def idle(self) -> bool:
        """Nobody holds or awaits the lock and no task runs for it: the table may be dropped."""
        return self.lock.users == 0 and self.automation.idle

    # ---- the cached match ------------------------------------------------------------------------
    async def load(self) -> LiveMatch:
        """The cached match, or one rebuilt from the database (call with the lock held);
        KeyError when there is no such match."""
        self.used_at = time.monotonic()
        if self.live is not None:
            return self.live
        tables = self.tables
        try:
            stored = await tables.store.load(self.match_id)
        except MatchNotFound:
            tables.drop(self)  # no such match: keep nothing for it
            raise KeyError(self.match_id) from None
        game = get_game(stored.game_id)
        match = await asyncio.to_thread(game.replay, stored.players, stored.options, stored.log)
        deals = None
        if stored.same_deals_as is not None and not stored.finished:
            deals = await tables.deals.plan(stored.same_deals_as, stored.rotate_deals)
        self.live = LiveMatch(
            match_id=self.match_id,
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
        return self.live

    async def seated(self) -> LiveMatch:
        """`load`, with the seats' holders read again when a change was announced."""
        live = await self.load()
        if live.seats_stale:
            await self.reseat(live)
        return live

    async def reseat(self, live: LiveMatch) -> None:
        """Read who holds each seat from the database (call with the lock held)."""
        live.seats_stale = False  # a change announced during the read marks it stale again
        live.controllers = await self.tables.store.controllers(live.room_id)

    async def fresh(self) -> LiveMatch:
        """The match as committed in the database now, with its current controllers (call with
        the lock held). A deadline may be acted on by a process whose cache fell behind while
        another process moved the match (its automation would see a turn long gone)."""
        live = await self.load()
        if await self.tables.store.version(self.match_id) > live.committed:
            self.live = None
            live = await self.load()
        else:
            live.controllers = await self.tables.store.controllers(live.room_id)
        return live

    # ---- commits -----------------------------------------------------------------------------------
    async def commit(
        self, live: LiveMatch, seat: int, action: dict[str, Any], auto: str | None = None
    ) -> None:
        """Apply and commit one action (app/live/committer.py); a refusal that leaves the cache
        in doubt drops it, to be rebuilt from the log."""
        try:
            await self.committer.apply_and_commit(live, seat, action, auto)
        except Unsaved:
            self.live = None
            raise

    async def commit_chance(self, live: LiveMatch) -> None:
        try:
            await self.committer.apply_chance(live)
        except Unsaved:
            self.live = None
            raise

    # ---- a person's messages -----------------------------------------------------------------------
    async def submit(
        self, person_id: int, seat: int, version: int, action: dict[str, Any], room_id: int | None
    ) -> None:
        """A person's action (fields checked by the registry); raises ActionRejected and changes
        nothing if refused. Committed, then published, then the bots play on."""
        async with self.lock:
            live = await self._held_by(person_id, seat, room_id)
            if not live.saw_current_options(seat, version):
                raise ActionRejected(
                    "stale", f"the table moved on (version {live.version}, you sent {version}); try again"
                )
            # A field no legal action of its type has: the engine would refuse it too, but as an
            # illegal move; to the client it is a malformed message (and this costs no lookup).
            unknown = unknown_field(action, live.legal(seat))
            if unknown is not None:
                raise ActionRejected("malformed", f"a '{action['type']}' action has no field {unknown!r}")
            await self.commit(live, seat, action)
        await self.publish()
        self.automation.kick()

    async def take_back(self, person_id: int, seat: int, version: int, room_id: int | None) -> None:
        """A person takes back their seat's last action, the one that made `version`: committed
        as a log entry through the same version check as any action (so of a take-back and the
        next action racing, on any processes, exactly one wins). Raises ActionRejected
        ("take_back_refused" with the reason in both languages) and changes nothing if refused."""
        try:
            async with self.lock:
                live = await self._held_by(person_id, seat, room_id)
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
                    await self.commit(live, seat, {"type": TAKE_BACK})
                except ActionRejected as lost:
                    if lost.code != "stale":
                        raise
                    raise ActionRejected(
                        "take_back_refused",
                        "someone acted first; the action can no longer be taken back",
                        "先に他の人が行動したため、取り消せませんでした",
                    ) from None
        except ActionRejected as refused:
            if refused.code != "illegal":  # forbidden and malformed keep their codes
                raise
            raise ActionRejected("take_back_refused", refused.message, refused.ja) from None
        await self.publish()
        self.automation.kick()

    async def _held_by(self, person_id: int, seat: int, room_id: int | None) -> LiveMatch:
        """The live match (call with the lock held), once the sender is known to hold `seat` of
        this running match of `room_id` (ActionRejected otherwise)."""
        try:
            live = await self.seated()
        except KeyError:
            raise ActionRejected("illegal", f"there is no match {self.match_id}") from None
        if room_id is not None and live.room_id != room_id:
            raise ActionRejected("forbidden", f"match {self.match_id} is not played in this room")
        controller = live.controllers.get(seat)
        if controller is None or controller.kind != "person" or controller.person_id != person_id:
            raise ActionRejected("forbidden", f"you do not hold seat {seat}")
        if live.finished:
            raise ActionRejected("illegal", "the match is over")
        return live

    # ---- states for readers ------------------------------------------------------------------------
    async def state_text(
        self,
        person_id: int | None,
        reader: Reader,
        at_least: int | None = None,
        announced: Message | None = None,
    ) -> str | None:
        """The `state` message for one reader, or None when it has already seen this version.

        Never shows an action whose commit is still in flight: the shared snapshot of the
        committed version is used when it exists, else the lock is awaited. `at_least` is the
        version a pub/sub message (`announced`) announced: when another server process committed
        it, our cache is behind and follows the entries the message carries, or else the log in
        the database."""
        text = self.state_text_now(person_id, reader, at_least, announced)
        if text is not None:
            return text or None
        repeat = at_least is not None  # a bus message: skip it if this reader has seen it all
        first = reader.version is None
        async with self.lock:
            live = self.live
            if (
                live is not None
                and at_least is not None
                and live.committed < at_least
                and not await self.catch_up(live, at_least, announced)
            ):
                self.live = None
            cached = self.live is not None
            live = await self.load()
            if cached and (first or live.seats_stale):
                await self.reseat(live)
            self.automation.watch_owner(live)
            return live.message_for(person_id, reader, skip_seen=repeat) or None

    def state_text_now(
        self,
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
        message carries its entries and nobody holds the lock, so that both processes send a
        move's states the same way: with two processes half of every table's sockets are on the
        one that did not commit it (docs/BENCHMARKS.md)."""
        live = self.live
        # A reader's first state reads the seats' holders from the database: a seat change made
        # through another process may not have been announced here yet.
        if live is None or reader.version is None or live.seats_stale:
            return None
        self.used_at = time.monotonic()
        if at_least is not None and not self.caught_up_now(live, at_least, announced):
            return None
        text = live.message_for(person_id, reader, skip_seen=at_least is not None)
        if text is not None:
            self.automation.watch_owner(live)
        return text

    # ---- following other processes -----------------------------------------------------------------
    def caught_up_now(self, live: LiveMatch, at_least: int, announced: Message | None) -> bool:
        """Whether our copy has `at_least` committed, after following another process's commits
        without waiting, from the entries `announced` carries: only when the lock is free and no
        commit of ours is in flight, so this is what `catch_up` under the lock would do. A copy
        that cannot follow them is dropped (the waiting path rebuilds it from the log); False
        leaves the waiting to that path."""
        if live.committed >= at_least:
            return True
        if announced is None or self.lock.locked() or live.version != live.committed:
            return False
        entries = bus.logged_entries(announced, live.committed, at_least)  # None unless all there
        if entries is None:
            return False
        if not follow(live, entries, at_least):
            self.live = None
            return False
        return True

    async def catch_up(self, live: LiveMatch, at_least: int, announced: Message | None = None) -> bool:
        """Apply to our copy the actions another process committed since its version (`follow`).
        The entries come with the bus message that announced them (`announced`) when it carries
        them all, else from the database. False when the copy cannot follow them (the caller
        rebuilds it from the log, without events). Call with the lock held."""
        if live.version != live.committed:
            return False
        entries = bus.logged_entries(announced, live.committed, at_least) if announced else None
        if entries is None:
            entries = await self.tables.store.actions_from(live.match_id, live.committed)
        return follow(live, entries, at_least)

    async def catch_up_with_store(self, stored: int) -> bool:
        """Follow the database's version `stored` of this match (announcements may have been
        lost, e.g. while the bus reconnected): the copy follows the log or is dropped to be
        rebuilt, the seats are read again (a seat change may have been missed too), this
        process's sockets are sent the newer state and the bots go on. True when it was behind."""
        async with self.lock:
            live = self.live
            if live is None:
                return False
            live.seats_stale = True
            behind = stored > live.committed
            if behind and not await self.catch_up(live, stored):
                self.live = None
                await self.fresh()  # rebuilt from the log
        if behind:
            await self.publish()
        self.automation.kick()
        return behind

    # ---- seats, stand-ins and timers ---------------------------------------------------------------
    async def seats_changed(self) -> None:
        """The room's seating changed during this match: every process re-reads the holders
        (this one at once), then bots resume. The match is loaded here if this process does not
        hold it: the state announced below is what sends the other processes' sockets their
        views without the seats their people no longer hold."""
        await self.tables.pubsub.publish(bus.SEATS_CHANNEL, bus.seats_changed(self.match_id))
        async with self.lock:
            try:
                live = await self.load()
            except KeyError:  # no such match: nothing to announce
                return
            await self.reseat(live)
        await self.publish()
        self.automation.kick()

    async def stand_in(self, seat: int, person_id: int | None) -> None:
        """A bot stands in for this seat's person now, from its next decision on, until they are
        back (checked before every move); nothing if the seat is no longer theirs."""
        async with self.lock:
            live = await self.fresh()
            controller = live.controllers.get(seat)
            if controller is None or controller.kind != "person" or controller.person_id != person_id:
                return
            self.automation.stand_ins.add(seat)
        self.automation.kick()

    def person_back(self, person_id: int) -> None:
        """The person connected again: no bot plays their seats from their next turn on."""
        if self.live is not None and self.automation.stand_ins:
            self.automation.stand_ins -= set(self.live.seats_of(person_id))

    async def timer_move(self, seat: int, since: int) -> bool:
        """The turn timer of `seat` (its turn began at version `since`) ran out: a bot plays that
        one move. False when the deadline no longer applies (the seat has moved since, is not
        awaited, is not a person's, or the match is over)."""
        async with self.lock:
            live = await self.fresh()
            controller = live.controllers.get(seat)
            if live.finished or controller is None or controller.kind != "person":
                return False
            if seat not in live.match.to_act() or since > live.version:
                return False
            if any(acted == seat for acted, _ in live.match.log[since:]):
                return False
            self.automation.time_out(seat, live.version)
        self.automation.kick()
        return True

    # ---- publishing and life -----------------------------------------------------------------------
    async def publish(self) -> None:
        """Announce the committed version to the room's sockets on every process (with the new
        entries, for other processes to follow without reading the log)."""
        live = self.live
        if live is None:
            return
        self.used_at = time.monotonic()
        pubsub = self.tables.pubsub
        logged = logged_since_published(live) if pubsub.between_processes else None
        live.published = live.committed
        await pubsub.publish(
            bus.room_channel(live.room_id), bus.state_changed(self.match_id, live.committed, logged)
        )

    async def open(self, live: LiveMatch) -> None:
        """A match just started (its first entries committed with it): hold it, tell the room,
        start its turn timers and bots."""
        self.live = live
        await self.publish()
        await self.committer.turns_changed(live, -1)
        self.automation.kick()

    async def resume(self) -> None:
        """Rebuild the match from its log (a restart) and let its bots continue."""
        async with self.lock:
            await self.load()
        self.automation.kick()
