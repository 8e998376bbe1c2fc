"""Deadlines the server enforces, kept in PostgreSQL: absent players and the turn timer.

Two kinds of `seat_deadlines` rows (migration 0007), one per room seat and kind:
- `away`: the seat's person has no socket to the room on any live process. Written when their
  last socket closes (app/presence.py) and, for a process that died without closing its
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
commit is the match's version check (app/match_store.py): even a stale claim cannot move twice
or move for a turn that has not timed out (the check also reads the seat's moves in the log).

`Settings.deadline_scale` (test-only) multiplies every deadline's seconds, so tests run with
real rooms' settings (10-600 s) in a fraction of the time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING, Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.pubsub import PubSub
from app.tables import room_channel

if TYPE_CHECKING:
    from app.tables import LiveMatch, TableService

log = logging.getLogger(__name__)

AWAY_GRACE_MIN, AWAY_GRACE_MAX, AWAY_GRACE_DEFAULT = 10, 600, 60
TURN_TIMER_MIN, TURN_TIMER_MAX = 15, 600
LEASE_SECONDS = 10.0
"""How long a claim on a due deadline holds; after that another process may act on it."""
STAND_IN_CHANNEL = "deadlines:stand-in"
"""Where the process that claims an away deadline tells every process (itself included) that a
bot plays for the seat: whichever process commits the match's next moves then plays it too."""
STALE_PRESENCE = "35 seconds"
"""A process silent this long no longer counts as holding sockets (app/presence.py)."""

_PRESENT = f"""
    EXISTS (SELECT 1 FROM room_presence p JOIN server_processes sp ON sp.id = p.process_id
            WHERE p.room_id = {{room}} AND p.person_id = {{person}}
              AND sp.seen_at > now() - interval '{STALE_PRESENCE}')
"""

MARK_AWAY = text(
    """
    INSERT INTO seat_deadlines (room_id, seat, kind, person_id, due_at)
    SELECT s.room_id, s.n, 'away', s.person_id, now() + make_interval(secs => r.away_grace * :scale)
    FROM room_seats s JOIN rooms r ON r.id = s.room_id
    WHERE s.room_id = :room AND s.kind = 'person' AND s.person_id = :person
      AND EXISTS (SELECT 1 FROM matches m WHERE m.room_id = s.room_id AND m.status = 'running')
    ON CONFLICT DO NOTHING
    """
)
"""Only during a match: someone away between matches gets a fresh grace when one starts."""

MARK_BACK = text(
    """
    DELETE FROM seat_deadlines
    WHERE room_id = :room AND kind = 'away' AND person_id = :person
    RETURNING due_at <= now()
    """
)

HEAL_AWAY = text(
    """
    INSERT INTO seat_deadlines (room_id, seat, kind, person_id, due_at)
    SELECT s.room_id, s.n, 'away', s.person_id, now() + make_interval(secs => r.away_grace * :scale)
    FROM room_seats s
    JOIN rooms r ON r.id = s.room_id
    JOIN matches m ON m.room_id = s.room_id AND m.status = 'running'
    WHERE s.kind = 'person' AND NOT """
    + _PRESENT.format(room="s.room_id", person="s.person_id")
    + """
    ON CONFLICT DO NOTHING
    """
)
"""Seated people of running matches with no socket anywhere (e.g. their process died) are away."""

HEAL_BACK = text(
    """
    DELETE FROM seat_deadlines d
    WHERE d.kind = 'away' AND ("""
    + _PRESENT.format(room="d.room_id", person="d.person_id")
    + """
      OR NOT EXISTS (SELECT 1 FROM room_seats s WHERE s.room_id = d.room_id AND s.n = d.seat
                     AND s.kind = 'person' AND s.person_id = d.person_id)
      OR NOT EXISTS (SELECT 1 FROM matches m WHERE m.room_id = d.room_id AND m.status = 'running'))
    RETURNING d.room_id, d.due_at <= now()
    """
)
"""Away rows of people who are connected again, who no longer hold the seat, or whose room's
match has ended go (so rooms nobody plays in keep no rows)."""

CLAIM = text(
    """
    WITH due AS (
        SELECT d.room_id, d.seat, d.kind, d.claimed_until AS before
        FROM seat_deadlines d
        WHERE d.due_at <= now() AND (d.claimed_until IS NULL OR d.claimed_until < now())
          AND EXISTS (SELECT 1 FROM matches m WHERE m.room_id = d.room_id AND m.status = 'running')
        ORDER BY d.due_at
        LIMIT 100
        FOR UPDATE OF d SKIP LOCKED
    )
    UPDATE seat_deadlines d
    SET claimed_by = :me, claimed_until = now() + make_interval(secs => :lease)
    FROM due
    WHERE d.room_id = due.room_id AND d.seat = due.seat AND d.kind = due.kind
    RETURNING d.room_id, d.seat, d.kind, d.match_id, d.person_id, d.version, due.before IS NULL,
        (SELECT m.id FROM matches m WHERE m.room_id = d.room_id AND m.status = 'running')
    """
)

DROP_STALE_TURN = text(
    "DELETE FROM seat_deadlines"
    " WHERE room_id = :room AND seat = :seat AND kind = 'turn' AND version = :version"
)

RELEASE = text("UPDATE seat_deadlines SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = :me")

TURNS_DROP = text(
    """
    DELETE FROM seat_deadlines
    WHERE room_id = :room AND kind = 'turn' AND (match_id IS DISTINCT FROM :match OR NOT seat = ANY(:awaited))
      AND EXISTS (SELECT 1 FROM matches WHERE id = :match AND version = :version)
    """
)
TURNS_START = text(
    """
    INSERT INTO seat_deadlines (room_id, seat, kind, match_id, version, due_at)
    SELECT :room, seat, 'turn', :match, :version, now() + make_interval(secs => :seconds)
    FROM unnest(CAST(:seats AS int[])) AS seat
    WHERE EXISTS (SELECT 1 FROM matches WHERE id = :match AND version = :version)
    ON CONFLICT (room_id, seat, kind) DO UPDATE
    SET match_id = excluded.match_id, version = excluded.version, due_at = excluded.due_at,
        claimed_by = NULL, claimed_until = NULL
    """
)
"""New turns (the seat's options changed in this commit) start a full countdown."""
TURNS_KEEP = text(
    """
    INSERT INTO seat_deadlines (room_id, seat, kind, match_id, version, due_at)
    SELECT :room, seat, 'turn', :match, since, now() + make_interval(secs => :seconds)
    FROM unnest(CAST(:seats AS int[]), CAST(:since AS int[])) AS t(seat, since)
    WHERE EXISTS (SELECT 1 FROM matches WHERE id = :match AND version = :version)
    ON CONFLICT DO NOTHING
    """
)
"""A turn that goes on keeps its countdown (written only if missing, e.g. the timer was off)."""

TIMERS = text(
    """
    SELECT d.seat, extract(epoch FROM d.due_at - now())::float
    FROM seat_deadlines d JOIN matches m ON m.id = d.match_id AND m.status = 'running'
    WHERE d.room_id = :room AND d.kind = 'turn'
    """
)
AWAY_ROWS = text("SELECT seat, due_at <= now() FROM seat_deadlines WHERE room_id = :room AND kind = 'away'")
STANDING_IN = text(
    """
    SELECT 1 FROM seat_deadlines
    WHERE room_id = :room AND seat = :seat AND kind = 'away' AND person_id = :person AND due_at <= now()
    """
)


# ---- presence hooks (called by app/presence.py in its own session) ------------------------------
async def mark_away(session: AsyncSession, room_id: int, person_id: int, scale: float) -> None:
    """The person's last socket to the room closed: their seats' grace starts now."""
    await session.execute(MARK_AWAY, {"room": room_id, "person": person_id, "scale": scale})


async def mark_back(session: AsyncSession, room_id: int, person_id: int) -> bool:
    """The person connected again: their seats are theirs again. True if a bot stood in."""
    rows = (await session.execute(MARK_BACK, {"room": room_id, "person": person_id})).scalars().all()
    return any(rows)


# ---- what the room JSON shows ----------------------------------------------------------------------
async def room_extras(session: AsyncSession, room: Any, answer: dict[str, Any]) -> dict[str, Any]:
    """Add the room's settings, `stand_ins` (seats a bot plays for while their person is away;
    a seat's person is away when `connected` is false) and the running match's turn countdowns
    (`timers`: seconds left per seat) to a room JSON built by app/repository.py."""
    room_id = room.id
    due = {seat for seat, passed in await session.execute(AWAY_ROWS, {"room": room_id}) if passed}
    running = answer.get("match") is not None and answer["match"].get("status") == "running"
    answer["stand_ins"] = [
        seat["n"]
        for seat in answer["seats"]
        if running and seat["kind"] == "person" and not seat["connected"] and seat["n"] in due
    ]
    timers = await session.execute(TIMERS, {"room": room_id})
    answer["away_grace"] = room.away_grace
    answer["turn_timer"] = room.turn_timer
    answer["take_backs"] = room.take_backs
    answer["timers"] = {str(seat): round(max(0.0, left), 2) for seat, left in timers}
    return answer


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
                await session.execute(RELEASE, {"me": self.process_id})

    async def _listen(self) -> None:
        """Every process plays the stand-ins any process claimed (see STAND_IN_CHANNEL)."""
        async with self.pubsub.subscribe(STAND_IN_CHANNEL) as messages:
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
            await session.execute(HEAL_AWAY, {"scale": self.scale})
            back = (await session.execute(HEAL_BACK)).all()
            claimed = (await session.execute(CLAIM, {"me": self.process_id, "lease": LEASE_SECONDS})).all()
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
                        STAND_IN_CHANNEL, {"match_id": int(running), "seat": seat, "person_id": person_id}
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
                await session.execute(DROP_STALE_TURN, {"room": room_id, "seat": seat, "version": version})
            return
        self.claims.append(("turn", running, seat, version))
        log.info(
            "turn timer of seat %s in match %s (turn of version %s) ran out: a bot plays",
            seat,
            running,
            version,
        )

    async def _room_changed(self, room_id: int) -> None:
        await self.pubsub.publish(room_channel(room_id), {"kind": "room"})

    # ---- called by the table service ------------------------------------------------------------
    async def turns_changed(self, live: LiveMatch, before: int) -> None:
        """After a commit (from version `before`; -1 at the start) of a match with a turn timer:
        start the countdown of each person's seat whose turn began, drop those of seats no longer
        awaited, and tell the room. Skipped when the match has already moved on in the database
        (the later commit's process does it), so two processes never write older turns."""
        assert live.turn_timer is not None
        awaited: list[int] = []
        fresh: list[int] = []
        kept: list[int] = []
        since: list[int] = []
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
                    kept.append(seat)
                    since.append(started)
        params = {"room": live.room_id, "match": live.match_id, "version": live.version}
        seconds = live.turn_timer * self.scale
        async with self.db.session() as session:
            await session.execute(TURNS_DROP, {**params, "awaited": awaited})
            if fresh:
                await session.execute(TURNS_START, {**params, "seats": fresh, "seconds": seconds})
            if kept:
                await session.execute(
                    TURNS_KEEP, {**params, "seats": kept, "since": since, "seconds": seconds}
                )
            timers = (await session.execute(TIMERS, {"room": live.room_id})).all()
        await self.pubsub.publish(
            room_channel(live.room_id),
            {
                "kind": "timers",
                "match_id": live.match_id,
                "timers": {str(seat): round(max(0.0, left), 2) for seat, left in timers},
            },
        )

    async def standing_in(self, room_id: int, seat: int, person_id: int | None) -> bool:
        """Whether a bot still plays for this seat's person (they have not come back)."""
        async with self.db.session() as session:
            found = await session.scalar(STANDING_IN, {"room": room_id, "seat": seat, "person": person_id})
        return found is not None
