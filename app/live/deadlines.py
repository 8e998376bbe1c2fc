"""Deadlines the server enforces, kept in PostgreSQL: absent players and the turn timer.

Two kinds of `seat_deadlines` rows (migration 0007), one per room seat and kind:
- `away`: the seat's person has no socket to the room on any live process. Written when their
  last socket closes (app/live/presence.py) and, for a process that died without closing its
  sockets, by every sweep; deleted when they connect again. Due `away_grace` seconds later:
  from then on, while the room has a running match, a bot plays for the seat (a "stand-in")
  until the person is back. The person stays in the seat, so they stay credited with its score.
- `turn`: a person's seat is awaited and the room has a `turn_timer`. Written after the commit
  that started the turn (`version`: the match's version then), kept while the seat's options
  stay the same, deleted when it has acted or the match ended. Due when the turn has lasted
  the timer: a bot then plays that one move for the seat.

Every process runs one sweeper (`Deadlines.start`). Each `poll` seconds it claims the due rows
nobody holds (`FOR UPDATE SKIP LOCKED`, then a lease in `claimed_by`/`claimed_until`), so one
process acts on each deadline; a lease that runs out (its process died) lets another process
claim the row again. The move itself goes through the table service's automation, whose
commit is the match's version check (app/store/matches.py): even a stale claim cannot move twice
or move for a turn that has not timed out (the check also reads the seat's moves in the log).
A match that left this process's memory while it waited (app/live/tables.py lets idle tables
go) is loaded again from its log by the deadline that acts on it; a stand-in of an evicted
table is set again when the away claim is renewed (every LEASE_SECONDS at most).

`Settings.deadline_scale` (test-only) multiplies every deadline's seconds, so tests run with
real rooms' settings (10-600 s) in a fraction of the time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING

from app.live import bus
from app.live.pubsub import PubSub
from app.store import presence as store
from app.store.db import Database

if TYPE_CHECKING:
    from app.live.tables import LiveMatch, TableService

log = logging.getLogger(__name__)

LEASE_SECONDS = 10.0
"""How long a claim on a due deadline holds; after that another process may act on it."""


class Deadlines:
    """One process's sweeper, and the turn-timer bookkeeping the table service calls after
    each commit of a match whose room has a timer."""

    def __init__(
        self,
        db: Database,
        pubsub: PubSub,
        tables: TableService,
        process_id: str,
        scale: float = 1.0,
        poll: float = 1.0,
    ) -> None:
        self.db = db
        self.pubsub = pubsub
        self.tables = tables
        self.process_id = process_id
        self.scale = scale
        self.poll = poll
        self.claims: deque[tuple[str, int, int, int | None]] = deque(maxlen=10_000)
        """(kind, match id, seat, version) of the deadlines this process acted on lately (tests
        read it; bounded, since a long absence renews its claim every LEASE_SECONDS)."""
        self._tasks: list[asyncio.Task[None]] = []
        self._listening = asyncio.Event()

    async def start(self) -> None:
        self._tasks = [
            asyncio.create_task(self._listen(), name="deadlines-stand-ins"),
            asyncio.create_task(self._run(), name="deadlines"),
        ]

    async def close(self) -> None:
        """Stop sweeping and hand this process's claims back, so another process acts at once."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(Exception):
            async with self.db.session() as session:
                await store.release_claims(session, self.process_id)

    async def _listen(self) -> None:
        """Every process plays the stand-ins any process claimed (see bus.STAND_IN_CHANNEL)."""
        async with self.pubsub.subscribe(bus.STAND_IN_CHANNEL) as messages:
            self._listening.set()
            async for message in messages:
                try:
                    await self.tables.stand_in(
                        int(message["match_id"]), int(message["seat"]), message["person_id"]
                    )
                except Exception:
                    log.exception("could not let a bot play for %s", message)

    async def _run(self) -> None:
        await self._listening.wait()
        while True:
            try:
                await self.sweep()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database may be restarting; the next sweep tries again
                log.warning("deadline sweep failed", exc_info=True)
            await asyncio.sleep(self.poll)

    async def sweep(self) -> None:
        """Bring away rows up to date with presence, then act on every due deadline we claim."""
        async with self.db.session() as session:
            back, claimed = await store.sweep(session, self.process_id, LEASE_SECONDS, self.scale)
        for room_id in {room_id for room_id, stood_in in back if stood_in}:
            await self._room_changed(room_id)
        for room_id, seat, kind, match_id, person_id, version, first, running in claimed:
            if running is None:
                continue
            try:
                if kind == "turn":
                    await self._turn_over(room_id, int(running), seat, match_id, version)
                else:
                    self.claims.append((kind, int(running), seat, None))
                    await self.pubsub.publish(
                        bus.STAND_IN_CHANNEL, bus.stand_in(int(running), seat, person_id)
                    )
                    if first:
                        log.info("a bot plays for seat %s of match %s (person away)", seat, running)
                        await self._room_changed(room_id)
            except Exception:
                log.exception("could not act on the %s deadline of seat %s in room %s", kind, seat, room_id)

    async def _turn_over(
        self, room_id: int, running: int, seat: int, match_id: int | None, version: int | None
    ) -> None:
        if match_id != running or version is None or not await self.tables.timer_move(running, seat, version):
            async with self.db.session() as session:
                await store.drop_stale_turn(session, room_id, seat, version)
            return
        self.claims.append(("turn", running, seat, version))
        log.info(
            "turn timer of seat %s in match %s (turn of version %s) ran out: a bot plays",
            seat,
            running,
            version,
        )

    async def _room_changed(self, room_id: int) -> None:
        await self.pubsub.publish(bus.room_channel(room_id), bus.room_changed())

    # ---- called by the table service ------------------------------------------------------------
    async def turns_changed(self, live: LiveMatch, before: int) -> None:
        """After a commit (from version `before`; -1 at the start) of a match with a turn timer:
        start the countdown of each person's seat whose turn began, drop those of seats no longer
        awaited, and tell the room. Skipped when the match has already moved on in the database
        (the later commit's process does it), so two processes never write older turns."""
        assert live.turn_timer is not None
        awaited: list[int] = []
        fresh: list[int] = []
        kept: list[tuple[int, int]] = []
        if not live.finished:
            for seat in live.match.to_act():
                controller = live.controllers.get(seat)
                if seat < 0 or controller is None or controller.kind != "person":
                    continue
                awaited.append(seat)
                started = live.options_from(seat)
                if started > before:
                    fresh.append(seat)
                else:
                    kept.append((seat, started))
        async with self.db.session() as session:
            timers = await store.write_turns(
                session,
                live.room_id,
                live.match_id,
                live.version,
                live.turn_timer * self.scale,
                awaited,
                fresh,
                kept,
            )
        await self.pubsub.publish(bus.room_channel(live.room_id), bus.timers_changed(live.match_id, timers))

    async def standing_in(self, room_id: int, seat: int, person_id: int | None) -> bool:
        """Whether a bot still plays for this seat's person (they have not come back)."""
        async with self.db.session() as session:
            return await store.standing_in(session, room_id, seat, person_id)
