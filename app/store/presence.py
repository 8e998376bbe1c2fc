"""Who is connected where, and the deadlines that hang on it: every query of `room_presence`,
`server_processes` and `seat_deadlines`.

Each process keeps one `room_presence` row per (room, person) it serves a socket to, and
refreshes its `server_processes.seen_at` (app/live/presence.py keeps the counts and the heartbeat);
rows of a process silent for `STALE_AFTER_SECONDS` no longer count, and processes silent for
`SWEEP_AFTER` are deleted with their rows. The deadlines (app/live/deadlines.py has the sweeper and
what each kind means): a person's last socket anywhere closing writes their seats' `away` rows,
their first socket again deletes them, in the same transaction as the presence row, so every
process reads the two in agreement.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncSession

from app.store.models import RoomPresence, ServerProcess

STALE_AFTER_SECONDS = 35
"""A few missed heartbeats: a process silent this long is gone, its sockets no longer count."""
STALE_AFTER = timedelta(seconds=STALE_AFTER_SECONDS)
SWEEP_AFTER = timedelta(minutes=10)
"""Processes this long silent are deleted with their rows at the next start."""


# ---- processes and sockets -----------------------------------------------------------------------
async def register_process(session: AsyncSession, process_id: str) -> None:
    """Sweep long-dead processes and register this one."""
    await session.execute(delete(ServerProcess).where(ServerProcess.seen_at < func.now() - SWEEP_AFTER))
    session.add(ServerProcess(id=process_id))


async def forget_process(session: AsyncSession, process_id: str) -> None:
    await session.execute(delete(ServerProcess).where(ServerProcess.id == process_id))


async def heartbeat(session: AsyncSession, process_id: str) -> None:
    await session.execute(
        update(ServerProcess).where(ServerProcess.id == process_id).values(seen_at=func.now())
    )


async def socket_opened(session: AsyncSession, process_id: str, room_id: int, person_id: int) -> bool:
    """The person's first socket to the room on this process: their presence row, and their
    seats are theirs again. True when they were connected nowhere before."""
    elsewhere = person_id in await connected(session, room_id)
    await session.execute(
        insert(RoomPresence)
        .values(process_id=process_id, room_id=room_id, person_id=person_id)
        .on_conflict_do_nothing()
    )
    await mark_back(session, room_id, person_id)
    return not elsewhere


async def socket_closed(
    session: AsyncSession, process_id: str, room_id: int, person_id: int, scale: float
) -> bool:
    """The person's last socket to the room on this process closed. True when that was their last
    socket anywhere (their seats' away grace then starts)."""
    await session.execute(
        delete(RoomPresence).where(
            RoomPresence.process_id == process_id,
            RoomPresence.room_id == room_id,
            RoomPresence.person_id == person_id,
        )
    )
    gone = person_id not in await connected(session, room_id)
    if gone:
        await mark_away(session, room_id, person_id, scale)
    return gone


async def connected(session: AsyncSession, room_id: int) -> set[int]:
    """People with an open socket to the room on any live process (read in the caller's
    session, so a request never holds two database connections at once)."""
    rows = await session.scalars(
        select(RoomPresence.person_id)
        .join(ServerProcess, ServerProcess.id == RoomPresence.process_id)
        .where(RoomPresence.room_id == room_id, ServerProcess.seen_at > func.now() - STALE_AFTER)
    )
    return set(rows)


# ---- deadlines -----------------------------------------------------------------------------------
PRESENT = f"""
    EXISTS (SELECT 1 FROM room_presence p JOIN server_processes sp ON sp.id = p.process_id
            WHERE p.room_id = {{room}} AND p.person_id = {{person}}
              AND sp.seen_at > now() - make_interval(secs => {STALE_AFTER_SECONDS}))
"""
"""SQL: the person `{person}` has a socket open to room `{room}` on a live process (format in
the column names); the deadlines here and the end of a match (store/matches.py) share it."""

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
    + PRESENT.format(room="s.room_id", person="s.person_id")
    + """
    ON CONFLICT DO NOTHING
    """
)
"""Seated people of running matches with no socket anywhere (e.g. their process died) are away."""

HEAL_BACK = text(
    """
    DELETE FROM seat_deadlines d
    WHERE d.kind = 'away' AND ("""
    + PRESENT.format(room="d.room_id", person="d.person_id")
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


async def mark_away(session: AsyncSession, room_id: int, person_id: int, scale: float) -> None:
    """The person's last socket to the room closed: their seats' grace starts now."""
    await session.execute(MARK_AWAY, {"room": room_id, "person": person_id, "scale": scale})


async def mark_back(session: AsyncSession, room_id: int, person_id: int) -> bool:
    """The person connected again: their seats are theirs again. True if a bot stood in."""
    rows = (await session.execute(MARK_BACK, {"room": room_id, "person": person_id})).scalars().all()
    return any(rows)


async def sweep(
    session: AsyncSession, process_id: str, lease: float, scale: float
) -> tuple[list[Row[*tuple[Any, ...]]], list[Row[*tuple[Any, ...]]]]:
    """Bring away rows up to date with presence and claim the due deadlines nobody holds:
    (rooms whose away rows went, with whether a bot stood in; the claimed rows, see CLAIM)."""
    await session.execute(HEAL_AWAY, {"scale": scale})
    back = list((await session.execute(HEAL_BACK)).all())
    claimed = list((await session.execute(CLAIM, {"me": process_id, "lease": lease})).all())
    return back, claimed


async def drop_stale_turn(session: AsyncSession, room_id: int, seat: int, version: int | None) -> None:
    await session.execute(DROP_STALE_TURN, {"room": room_id, "seat": seat, "version": version})


async def release_claims(session: AsyncSession, process_id: str) -> None:
    """Hand this process's claims back, so another process acts on them at once."""
    await session.execute(RELEASE, {"me": process_id})


async def write_turns(
    session: AsyncSession,
    room_id: int,
    match_id: int,
    version: int,
    seconds: float,
    awaited: list[int],
    fresh: list[int],
    kept: list[tuple[int, int]],
) -> dict[str, float]:
    """After a commit at `version`: drop the turn rows of seats no longer `awaited`, start a full
    countdown for the `fresh` turns, keep (or write if missing) those of `kept` (seat, since
    which version) turns; all only if the match is still at `version`. Returns the timers."""
    params = {"room": room_id, "match": match_id, "version": version}
    await session.execute(TURNS_DROP, {**params, "awaited": awaited})
    if fresh:
        await session.execute(TURNS_START, {**params, "seats": fresh, "seconds": seconds})
    if kept:
        await session.execute(
            TURNS_KEEP,
            {**params, "seats": [s for s, _ in kept], "since": [v for _, v in kept], "seconds": seconds},
        )
    return await timers(session, room_id)


async def timers(session: AsyncSession, room_id: int) -> dict[str, float]:
    """Seconds left of each running turn countdown of the room, by seat (as a JSON key)."""
    rows = await session.execute(TIMERS, {"room": room_id})
    return {str(seat): round(max(0.0, left), 2) for seat, left in rows}


async def away_due(session: AsyncSession, room_id: int) -> set[int]:
    """Seats of the room whose away grace has run out."""
    return {seat for seat, passed in await session.execute(AWAY_ROWS, {"room": room_id}) if passed}


async def standing_in(session: AsyncSession, room_id: int, seat: int, person_id: int | None) -> bool:
    """Whether a bot still plays for this seat's person (they have not come back)."""
    found = await session.scalar(STANDING_IN, {"room": room_id, "seat": seat, "person": person_id})
    return found is not None
