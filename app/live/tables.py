"""The table registry: this process's live matches, one `Table` each (app/live/table.py).

It finds a table or makes it (loading its match from the log on first use), hands it the
request, and drops it when nobody needs it any more: memory follows what is live.

Eviction (`evict_idle`, every `sweep_every` seconds): a table whose lock is free and whose
automation is idle leaves memory when no socket of this process watches its room and either
its match is over or nobody has read or moved it for `idle_after` seconds. Its match is loaded
again from its log when someone comes back; its turn timers and stand-ins are deadlines in the
database (app/live/deadlines.py), whose sweep loads the match again when one is due.

Shared by every table: the store, the bus, the bot pool and the gate on automatic moves
(`bot_turns`), the randomness, and what the app sets after start-up (the deadline clock,
metrics, the end-of-match hook, who watches a room).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.limits import BIGINT_MAX
from app.live import bus
from app.live.automation import TAKEOVER_AFTER
from app.live.bot_pool import BotPool
from app.live.chance import DealPlans, Randomness, settle_chance
from app.live.live_match import LiveMatch, SeatOptions
from app.live.pubsub import Message, PubSub
from app.live.refusals import ActionRejected, check_fields
from app.live.snapshots import Reader
from app.live.table import Table, TableLock
from app.metrics import Metrics
from app.store.db import Database
from app.store.matches import Controller, MatchStore
from engine import TAKE_BACK, get_game

log = logging.getLogger(__name__)

BOT_TURNS = 8
"""Bot and chance moves of all matches in flight at once. People's actions never wait for this
gate, so under load a person's move queues behind at most this many automatic ones instead of
one per busy table."""

__all__ = [
    "TAKEOVER_AFTER",
    "ActionRejected",
    "Controller",
    "LiveMatch",
    "Reader",
    "SeatOptions",
    "Table",
    "TableService",
]


class TableService:
    """Every live match of this process, one `Table` each: find or load, hand over, evict."""

    def __init__(
        self,
        db: Database,
        pubsub: PubSub,
        bot_delay: float,
        bots: BotPool | None = None,
        bot_level: str = "strong",
        deal_seed: int | None = None,
        idle_after: float = 300.0,
        sweep_every: float = 15.0,
    ) -> None:
        self.store = MatchStore(db)
        self.pubsub = pubsub
        self.bot_delay = bot_delay
        self.bots = bots or BotPool(workers=2, budget=0.2)
        self.bot_level = bot_level
        self.randomness = Randomness(deal_seed)
        self.deals = DealPlans(self.store)
        self.idle_after = idle_after
        self.sweep_every = sweep_every
        self.bot_turns = asyncio.Semaphore(BOT_TURNS)
        self.slow_bots: set[str] = set()
        """Games whose basic bot is slow enough to think in a thread (app/live/automation.py)."""
        self.closed = False
        self._tables: dict[int, Table] = {}
        self._listening: contextlib.AbstractAsyncContextManager[None] | None = None
        self._sweeping: asyncio.Task[None] | None = None
        self.clock: Any = None
        """app/live/deadlines.Deadlines once the app has started it: turn timers and stand-ins."""
        self.metrics: Metrics | None = None
        """app/metrics.py, once the app has made it: commits, state builds, bot decisions."""
        self.match_ended: Callable[[int], None] | None = None
        """Told the id of each match this process ends, once its end is committed (with its review
        queued): app/live/reviews.py's `Reviews.kick`."""
        self.watched: Callable[[int], bool] = lambda room_id: False
        """Whether a socket of this process is open to the room (app/live/presence.py): its
        tables stay in memory."""

    # ---- finding tables ----------------------------------------------------------------------------
    def table(self, match_id: int) -> Table:
        """The match's table, made when the match first comes into this process's memory."""
        table = self._tables.get(match_id)
        if table is None:
            table = self._tables[match_id] = Table(match_id, self)
        return table

    def drop(self, table: Table) -> None:
        """Let `table` go if it is still the one held for its match and runs no task."""
        if self._tables.get(table.match_id) is table and table.automation.idle:
            del self._tables[table.match_id]

    def lock(self, match_id: int) -> TableLock:
        return self.table(match_id).lock

    def live(self, match_id: int) -> LiveMatch | None:
        table = self._tables.get(match_id)
        return table.live if table is not None else None

    def live_count(self) -> int:
        """Matches held in memory now (the operator's `cardtable_live_tables`)."""
        return sum(1 for table in self._tables.values() if table.live is not None)

    async def _table_of_room(self, match_id: int, room_id: int | None) -> Table:
        """The table for a person's message about `match_id` in `room_id`. A match not in memory
        is first checked with one small read, before any lock or replay: match ids are
        sequential, so an outsider naming them one by one must not make this process load (and
        keep) every match ever played."""
        if room_id is not None and self.live(match_id) is None:
            owner = await self.store.room_of(match_id) if 0 < match_id <= BIGINT_MAX else None
            if owner is None:
                raise ActionRejected("illegal", f"there is no match {match_id}")
            if owner != room_id:
                raise ActionRejected("forbidden", f"match {match_id} is not played in this room")
        return self.table(match_id)

    # ---- a person's messages, handed to the table -------------------------------------------------
    async def submit(
        self, match_id: Any, person_id: int, seat: Any, version: Any, action: Any, room_id: int | None = None
    ) -> None:
        """A person's action from the WebSocket (for a match of `room_id`, when given); raises
        ActionRejected and changes nothing if refused."""
        check_fields(match_id, seat, version)
        if not isinstance(action, dict) or not isinstance(action.get("type"), str):
            raise ActionRejected("malformed", "'action' must be an object with a string 'type'")
        if action["type"] == TAKE_BACK:
            raise ActionRejected("malformed", 'a take-back is its own message: {"type": "take_back", …}')
        table = await self._table_of_room(match_id, room_id)
        await table.submit(person_id, seat, version, action, room_id)

    async def take_back(
        self, match_id: Any, person_id: int, seat: Any, version: Any, room_id: int | None = None
    ) -> None:
        """A person takes back their seat's last action (`Table.take_back`)."""
        check_fields(match_id, seat, version)
        try:
            table = await self._table_of_room(match_id, room_id)
        except ActionRejected as refused:
            if refused.code != "illegal":
                raise
            raise ActionRejected("take_back_refused", refused.message, refused.ja) from None
        await table.take_back(person_id, seat, version, room_id)

    async def state_text(
        self,
        match_id: int,
        person_id: int | None,
        reader: Reader,
        at_least: int | None = None,
        announced: Message | None = None,
    ) -> str | None:
        """One reader's `state` message (`Table.state_text`); KeyError for no such match."""
        return await self.table(match_id).state_text(person_id, reader, at_least, announced)

    def state_text_now(
        self,
        match_id: int,
        person_id: int | None,
        reader: Reader,
        at_least: int | None = None,
        announced: Message | None = None,
    ) -> str | None:
        """One reader's `state` message if it needs no wait (`Table.state_text_now`)."""
        table = self._tables.get(match_id)
        return table.state_text_now(person_id, reader, at_least, announced) if table is not None else None

    async def seats_changed(self, match_id: int) -> None:
        await self.table(match_id).seats_changed()

    async def stand_in(self, match_id: int, seat: int, person_id: int | None) -> None:
        """A bot stands in for the seat's person now (`Table.stand_in`), the match loaded
        from its log if it is not in memory."""
        await self.table(match_id).stand_in(seat, person_id)

    def person_back(self, room_id: int, person_id: int) -> None:
        """The person connected again: no bot plays their seats from their next turn on."""
        for table in self._tables.values():
            if table.live is not None and table.live.room_id == room_id:
                table.person_back(person_id)

    async def timer_move(self, match_id: int, seat: int, since: int) -> bool:
        """The turn timer of `seat` ran out (`Table.timer_move`)."""
        return await self.table(match_id).timer_move(seat, since)

    async def catch_up_all(self) -> int:
        """Every live table follows what the database holds beyond its copy (after the bus's
        listener reconnected, announcements may have been lost); how many were behind."""
        tables = [table for table in self._tables.values() if table.live is not None]
        stored = await self.store.versions([table.match_id for table in tables])
        moved = 0
        for table in tables:
            if table.match_id not in stored:
                continue  # the match is gone: nothing to catch up
            try:
                moved += await table.catch_up_with_store(stored[table.match_id])
            except Exception:
                log.exception("match %s could not catch up with the database", table.match_id)
        return moved

    # ---- starting ----------------------------------------------------------------------------------
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
        """After the start transaction committed: hold the match, tell the room, start bots.
        Finished matches of the same room leave memory (their history lives in the database)."""
        for old in [
            t for t in self._tables.values() if t.live is not None and t.live.room_id == live.room_id
        ]:
            if old.live is not None and old.live.finished:
                old.live = None
                if old.idle:
                    del self._tables[old.match_id]
        if self.metrics is not None:  # the opening chance actions, committed with the match
            self.metrics.committed_actions.inc(live.version)
        await self.table(live.match_id).open(live)

    # ---- memory follows what is live ---------------------------------------------------------------
    def evict_idle(self, now: float | None = None) -> int:
        """Drop every table nobody needs now (see the module docstring); how many left."""
        now = time.monotonic() if now is None else now
        gone = [table for table in self._tables.values() if self._evictable(table, now)]
        for table in gone:
            table.live = None
            del self._tables[table.match_id]
        if gone and self.metrics is not None:
            self.metrics.tables_evicted.inc(len(gone))
        return len(gone)

    def _evictable(self, table: Table, now: float) -> bool:
        if not table.idle:
            return False
        live = table.live
        if live is None:
            return True
        if live.committed != live.version or self.watched(live.room_id):
            return False
        return live.finished or now - table.used_at >= self.idle_after

    async def _sweep(self) -> None:
        while True:
            await asyncio.sleep(self.sweep_every)
            try:
                gone = self.evict_idle()
            except Exception:
                log.exception("could not let idle tables go")
                continue
            if gone:
                log.debug("%d idle table(s) left memory", gone)

    # ---- lifecycle ---------------------------------------------------------------------------------
    def _seats_moved(self, message: dict[str, Any]) -> None:
        """A bus message from any process (this one too): a match's seating changed."""
        match_id = message.get("match_id")
        live = self.live(match_id) if isinstance(match_id, int) else None
        if live is not None:
            live.seats_stale = True

    async def start(self) -> None:
        """Hear of seat changes made through every process (see `bus.SEATS_CHANNEL`), and start
        letting idle tables go."""
        self._listening = self.pubsub.listen(bus.SEATS_CHANNEL, self._seats_moved)
        await self._listening.__aenter__()
        self._sweeping = asyncio.create_task(self._sweep(), name="tables-eviction")

    async def resume_all(self) -> int:
        """Rebuild every unfinished match from its log and let its bots continue."""
        ids = await self.store.running_ids()
        for match_id in ids:
            try:
                await self.table(match_id).resume()
            except Exception:
                log.exception("could not resume match %s", match_id)
        return len(ids)

    async def close(self) -> None:
        self.closed = True
        if self._sweeping is not None:
            self._sweeping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeping
            self._sweeping = None
        if self._listening is not None:
            await self._listening.__aexit__(None, None, None)
            self._listening = None
        for table in list(self._tables.values()):
            await table.automation.close()
        await self.bots.close()
        await self.store.close()
