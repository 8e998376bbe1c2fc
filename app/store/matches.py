"""All persistence of matches: match rows, logs, seats' controllers and results (the history
pages read results in app/store/history.py).

The table service (`app/live/tables.py`) keeps matches in memory as caches of their logs; this module
is how those caches are filled and how every committed change reaches PostgreSQL. It raises
domain errors (`MatchNotFound`, `VersionConflict`), never HTTP errors.

The hot path, `append`, is one SQL statement on an autocommit psycopg connection from its own
pool (`psycopg_pool`): it bumps `matches.version` only if it still holds the version the caller
started from (so two processes can never both extend one log) and inserts the new log rows,
atomically and in a single round trip, with no BEGIN/COMMIT, pre-ping or reset round trips and
no ORM. Under load one such statement carries the actions of many matches, each checked on its
own (group commit, app/store/commits.py). When a hand or the match ends, the statement runs in
a transaction with the hand results and final results, its statements sent in pipeline mode
(psycopg's `pipeline()`: a round trip only where a result is read, not per statement).
Everything else uses SQLAlchemy Core.
Route handlers that change seats during a match call the helpers that take their session, so
the seat change and the room change commit together. The transaction that ends a match also
queues its review (app/store/analyses.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any, cast

import orjson
from psycopg import AsyncConnection as PgConnection
from psycopg_pool import AsyncConnectionPool
from sqlalchemy import Table, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.store import analyses
from app.store.commits import WRITERS, Extensions
from app.store.db import COMMIT, Database
from app.store.match_records import (
    Controller,
    HandRecord,
    MatchNotFound,
    SeatNotHeld,
    SeatResult,
    StoredMatch,
    VersionConflict,
)
from app.store.models import HandResult, MatchAction, MatchRow, MatchSeat, Room, RoomSeat
from app.store.presence import PRESENT

ACTIONS = cast(Table, MatchAction.__table__)
MATCHES = cast(Table, MatchRow.__table__)
HANDS = cast(Table, HandResult.__table__)
MATCH_SEATS = cast(Table, MatchSeat.__table__)
ROOM_SEATS = cast(Table, RoomSeat.__table__)
ROOMS = cast(Table, Room.__table__)


ACTIONS_FROM = (
    "SELECT seq, seat, action, auto FROM match_actions WHERE match_id = %s AND seq >= %s ORDER BY seq"
)
"""`MatchStore.actions_from`: the log from a position on (the unique (match_id, seq) index)."""

QUIET_FOR = text("""
SELECT CASE WHEN m.version = :version
    THEN EXTRACT(EPOCH FROM clock_timestamp() - COALESCE(a.created_at, m.created_at)) END
FROM matches m
LEFT JOIN match_actions a ON a.match_id = m.id AND a.seq = m.version - 1
WHERE m.id = :match_id
""")
"""`MatchStore.quiet_for`: how long ago the newest entry of a match's log was stored."""

FINISH = f"""
UPDATE matches m SET status = 'finished', finished_at = now(),
    abandoned = EXISTS (SELECT 1 FROM match_seats ms WHERE ms.match_id = m.id AND ms.person_id IS NOT NULL)
        AND NOT EXISTS (
            SELECT 1 FROM room_seats s
            WHERE s.room_id = m.room_id AND s.kind = 'person'
              AND {PRESENT.format(room="s.room_id", person="s.person_id")}
        )
WHERE m.id = %(match_id)s
"""
"""End a match: abandoned when people played it (a seat is credited to a person) but no person
seated at the table has a socket open to the room on a live process (bots finished it alone)."""


def log_text(rows: list[list[Any]]) -> str:
    """Log entries as JSON text for the commit's statement, by orjson: the standard library's
    encoder (a new one per call, for the compact separators) took 2.6% of the server's CPU
    samples at tables of four, this 0.4% (docs/BENCHMARKS.md). An integer past 64 bits, which
    orjson refuses, goes to the standard library: no legal action holds one, but the log is
    written as given all the same."""
    try:
        return orjson.dumps(rows).decode()
    except orjson.JSONEncodeError:
        return json.dumps(rows, separators=(",", ":"))


async def match_log(session: AsyncSession, match_id: int) -> list[tuple[int, dict[str, Any]]]:
    """A match's log, (seat, action) in order, inside the caller's transaction."""
    rows = await session.execute(
        select(ACTIONS.c.seat, ACTIONS.c.action).where(ACTIONS.c.match_id == match_id).order_by(ACTIONS.c.seq)
    )
    return [(seat, action) for seat, action in rows]


class MatchStore:
    """Reads and writes matches for the table service and the room routes."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.pool = AsyncConnectionPool(
            db.conninfo(COMMIT),
            min_size=1,
            max_size=db.pool_size,
            kwargs={"autocommit": True},
            open=False,
            name="match-store",
            timeout=db.options.pool_wait,
            reconnect_timeout=db.options.pool_wait,
        )
        """The commits' connections. While the database is away each slot keeps trying to
        connect, less and less often, for `reconnect_timeout` seconds and then gives up until the
        next request asks for it again: so a database that is back is used within seconds."""
        self._opened = False
        self._checking: asyncio.Task[None] | None = None
        self._writers = asyncio.Semaphore(db.pool_size)
        """Commits holding or about to take one of the pool's connections (see `_connection`)."""
        self.extensions = Extensions(self._connection, writers=WRITERS)
        """Log extensions without a hand's end, written together under load (app/store/commits.py)."""

    async def _writer(self) -> AsyncConnectionPool:
        if not self._opened:
            self._opened = True
            await self.pool.open()
        return self.pool

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[PgConnection[Any]]:
        """A writer connection. Commits beyond the pool's size wait for one on a plain semaphore
        (for as long as the pool would), not in the pool's queue: each of its waiters is a task
        (`asyncio.wait_for`) and a condition, about 7% of the server's CPU at 50 tables of four
        people, where commits queue behind the pool's connections (docs/BENCHMARKS.md)."""
        pool = await self._writer()
        async with asyncio.timeout(pool.timeout):
            await self._writers.acquire()
        try:
            async with pool.connection() as conn:
                try:
                    yield conn
                finally:
                    if conn.closed:
                        await self._lost_connection()
        finally:
            self._writers.release()

    async def _lost_connection(self) -> None:
        """A connection of the pool died (the pool drops it): the others may have died with it
        (a database restart ends them all), so the idle ones are tried at once and the dead
        replaced, rather than each failing the next commit that takes it. One check at a time;
        a caller that stops waiting does not stop it."""
        if self._checking is None or self._checking.done():
            self._checking = asyncio.create_task(self.pool.check(), name="match-store-check")
        with contextlib.suppress(Exception):
            await asyncio.shield(self._checking)

    async def writable(self) -> bool:
        """Whether a commit could be made now: a connection of the commits' pool answers, on a
        server that takes writes (not a standby still in recovery)."""
        async with self._connection() as conn:
            cursor = await conn.execute("SELECT NOT pg_is_in_recovery()")
            row = await cursor.fetchone()
        return bool(row and row[0])

    async def close(self) -> None:
        await self.extensions.close()
        if self._checking is not None:
            await asyncio.gather(self._checking, return_exceptions=True)
        if self._opened:
            await self.pool.close()

    # ---- reading ---------------------------------------------------------------------------
    async def load(self, match_id: int) -> StoredMatch:
        """The match row, its whole log, how many hands are stored and the seats' controllers,
        read in one transaction."""
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(
                        MATCHES.c.room_id, MATCHES.c.game_id, MATCHES.c.players, MATCHES.c.options,
                        MATCHES.c.status, MATCHES.c.same_deals_as, MATCHES.c.rotate_deals,
                    ).where(MATCHES.c.id == match_id)
                )
            ).first()  # fmt: skip
            if row is None:
                raise MatchNotFound(match_id)
            actions = (
                await conn.execute(
                    select(ACTIONS.c.seat, ACTIONS.c.action, ACTIONS.c.auto)
                    .where(ACTIONS.c.match_id == match_id)
                    .order_by(ACTIONS.c.seq)
                )
            ).all()
            hands_stored = await conn.scalar(
                select(func.count()).select_from(HANDS).where(HANDS.c.match_id == match_id)
            )
            controllers = await self._controllers(conn, row.room_id)
            settings = (
                await conn.execute(
                    select(ROOMS.c.turn_timer, ROOMS.c.take_backs).where(ROOMS.c.id == row.room_id)
                )
            ).one()
            await conn.rollback()
        return StoredMatch(
            match_id=match_id,
            room_id=row.room_id,
            game_id=row.game_id,
            players=row.players,
            options=row.options,
            finished=row.status == "finished",
            log=[(seat, action) for seat, action, _ in actions],
            hands_stored=int(hands_stored or 0),
            controllers=controllers,
            same_deals_as=row.same_deals_as,
            rotate_deals=bool(row.rotate_deals),
            turn_timer=settings.turn_timer,
            take_backs=settings.take_backs,
            auto_moves={
                version: (seat, auto)
                for version, (seat, _, auto) in enumerate(actions, start=1)
                if auto is not None
            },
        )

    async def actions_from(self, match_id: int, seq: int) -> list[tuple[int, Any, str | None]]:
        """The log entries from position `seq` on, each with its auto-move mark: what another
        process committed since a cached copy's version. Every other process asks this after
        every move, so it is one statement on the commits' autocommit connections (prepared by
        psycopg after a few calls), as the commit itself is: through SQLAlchemy's engine (its
        pool, statement cache, result rows and a rollback) it was the largest single part of
        a second process's CPU at tables of four people (docs/BENCHMARKS.md, "Two processes
        behind nginx")."""
        async with self._connection() as conn:
            rows = await (await conn.execute(ACTIONS_FROM, (match_id, seq))).fetchall()
        if any(row[0] != seq + index for index, row in enumerate(rows)):
            return []  # a gap can only mean a log rewritten under us: the caller reloads it whole
        return [(seat, action, auto) for _, seat, action, auto in rows]

    async def versions(self, match_ids: list[int]) -> dict[int, int]:
        """The committed version of each of these matches that exists, as the database has it now."""
        if not match_ids:
            return {}
        async with self._connection() as conn:
            cursor = await conn.execute("SELECT id, version FROM matches WHERE id = ANY(%s)", (match_ids,))
            return {int(match_id): int(version) for match_id, version in await cursor.fetchall()}

    async def version(self, match_id: int) -> int:
        """The match's committed version (log length) as the database has it now."""
        async with self.db.engine.connect() as conn:
            found = await conn.scalar(select(MATCHES.c.version).where(MATCHES.c.id == match_id))
            await conn.rollback()
        if found is None:
            raise MatchNotFound(match_id)
        return int(found)

    async def quiet_for(self, match_id: int, version: int) -> float:
        """Seconds, by the database's clock, since the match reached `version` (its newest log
        entry was stored, or the match was created); 0.0 when it is no longer at `version`.

        Every process reads the same clock here, so how long a table has been silent can be
        told by a process that has only just loaded it (after another one died)."""
        async with self.db.engine.connect() as conn:
            found = (await conn.execute(QUIET_FOR, {"match_id": match_id, "version": version})).first()
            await conn.rollback()
        if found is None:
            raise MatchNotFound(match_id)
        return 0.0 if found[0] is None else max(0.0, float(found[0]))

    async def room_of(self, match_id: int) -> int | None:
        """The room a match is played in (None: no such match), without reading its log."""
        async with self.db.engine.connect() as conn:
            found = await conn.scalar(select(MATCHES.c.room_id).where(MATCHES.c.id == match_id))
            await conn.rollback()
        return None if found is None else int(found)

    async def controllers(self, room_id: int) -> dict[int, Controller]:
        async with self.db.engine.connect() as conn:
            found = await self._controllers(conn, room_id)
            await conn.rollback()
        return found

    @staticmethod
    async def _controllers(conn: AsyncConnection, room_id: int) -> dict[int, Controller]:
        rows = await conn.execute(
            select(ROOM_SEATS.c.n, ROOM_SEATS.c.kind, ROOM_SEATS.c.person_id, ROOM_SEATS.c.bot_level).where(
                ROOM_SEATS.c.room_id == room_id
            )
        )
        return {n: Controller(kind, person_id, level) for n, kind, person_id, level in rows}

    async def running_ids(self) -> list[int]:
        async with self.db.engine.connect() as conn:
            ids = (await conn.execute(select(MATCHES.c.id).where(MATCHES.c.status == "running"))).scalars()
            found = list(ids)
            await conn.rollback()
        return found

    @staticmethod
    async def running_match(session: AsyncSession, room_id: int) -> MatchRow | None:
        """The room's running match, inside the caller's transaction."""
        return await session.scalar(
            select(MatchRow).where(MatchRow.room_id == room_id, MatchRow.status == "running")
        )

    # ---- writing ---------------------------------------------------------------------------
    @staticmethod
    async def create(
        session: AsyncSession,
        room_id: int,
        game_id: str,
        players: int,
        options: dict[str, Any],
        log: list[tuple[int, dict[str, Any]]],
        same_deals_as: int | None = None,
        rotate_deals: bool = False,
    ) -> tuple[int, dict[int, Controller]]:
        """A new match for the room's current seating, with its opening log, inside the caller's
        transaction (the start route commits it). Returns its id and the seats' controllers.
        Its number in the room comes from bumping the room's counter: the UPDATE holds the
        room's row until commit, so two processes starting matches in one room get 1, 2, …"""
        conn = await session.connection()
        seating = await MatchStore._controllers(conn, room_id)
        highest = (
            select(func.coalesce(func.max(MATCHES.c.number), 0))
            .where(MATCHES.c.room_id == room_id)
            .scalar_subquery()
        )
        number = await conn.scalar(
            update(ROOMS)
            .where(ROOMS.c.id == room_id)
            .values(matches_started=func.greatest(ROOMS.c.matches_started, highest) + 1)
            .returning(ROOMS.c.matches_started)
        )
        match_id = await conn.scalar(
            insert(MATCHES)
            .values(
                room_id=room_id, number=int(number or 1), game_id=game_id, players=players,
                options=options, status="running", version=len(log),
                same_deals_as=same_deals_as, rotate_deals=rotate_deals,
            )
            .returning(MATCHES.c.id)
        )  # fmt: skip
        assert match_id is not None
        await conn.execute(
            insert(MATCH_SEATS),
            [
                {
                    "match_id": match_id,
                    "n": n,
                    "kind": seating[n].kind if n in seating else None,
                    "person_id": seating[n].person_id if n in seating else None,
                }
                for n in range(players)
            ],
        )
        if log:
            await conn.execute(
                insert(ACTIONS),
                [
                    {"match_id": match_id, "seq": seq, "seat": seat, "action": action}
                    for seq, (seat, action) in enumerate(log)
                ],
            )
        return int(match_id), seating

    async def append(
        self,
        match_id: int,
        before: int,
        entries: list[tuple[int, dict[str, Any]]],
        hands: list[HandRecord],
        final: list[SeatResult] | None,
        teams: list[int] | None,
        holder: Controller | None = None,
        auto: str | None = None,
    ) -> None:
        """Commit log entries `before`, `before + 1`, … in one transaction, with any hands that
        finished and (when `final` is given) the match's end and results. Raises
        `VersionConflict` and writes nothing when the match is not at `before` any more, and
        `SeatNotHeld` when `holder` (a person, or a bot) no longer holds the seat of the first
        entry in the database: the seating may have changed through another process. `auto`
        ("time" or "away") marks the first entry as a bot's move for a person's seat, stored in
        the same statement."""
        after = before + len(entries)
        actor = entries[0][0] if holder is not None and entries else None
        rows: list[list[Any]] = [[seat, action] for seat, action in entries]
        if auto is not None and rows:
            rows[0].append(auto)
        params = {
            "after": after,
            "match_id": match_id,
            "before": before,
            "entries": log_text(rows),
            "seat": actor,
            "kind": holder.kind if holder is not None else None,
            "person_id": holder.person_id if holder is not None else None,
        }
        if not hands and final is None:
            self._check(params, *await self.extensions.commit(params))
            return
        async with self._connection() as conn, conn.pipeline(), conn.transaction():
            self._check(params, *await Extensions.extend_one(conn.cursor(), params))
            if hands:
                async with conn.cursor() as cursor:
                    await cursor.executemany(
                        "INSERT INTO hand_results (match_id, hand_no, scores, details)"
                        " VALUES (%s, %s, %s::jsonb, %s::jsonb)",
                        [(match_id, h.hand_no, json.dumps(h.scores), json.dumps(h.details)) for h in hands],
                    )
            if final is not None:
                await conn.execute(FINISH, {"match_id": match_id})
                await self._store_final(conn, match_id, final, teams)
                await conn.execute(analyses.ENQUEUE, {"match_id": match_id})

    @staticmethod
    def _check(params: dict[str, Any], extended: bool, held: bool) -> None:
        """Raise what an extension that was not made means for its caller."""
        if not extended and not held:
            raise SeatNotHeld(f"seat {params['seat']} of match {params['match_id']} changed hands")
        if not extended:
            raise VersionConflict(f"match {params['match_id']} is no longer at version {params['before']}")

    @staticmethod
    async def _store_final(
        conn: PgConnection[Any], match_id: int, final: list[SeatResult], teams: list[int] | None
    ) -> None:
        """Credit each seat to the last person who sat in it; a person holding several seats of
        one team is counted once."""
        cursor = await conn.execute("SELECT n, person_id FROM match_seats WHERE match_id = %s", (match_id,))
        credited = {n: person_id for n, person_id in await cursor.fetchall()}
        await conn.execute("DELETE FROM match_results WHERE match_id = %s", (match_id,))
        team_of = teams or [result.seat for result in final]
        seen: set[tuple[int, int]] = set()
        rows = []
        for result in final:
            person_id = credited.get(result.seat)
            counted = person_id is None or (person_id, team_of[result.seat]) not in seen
            if person_id is not None:
                seen.add((person_id, team_of[result.seat]))
            rows.append((match_id, result.seat, person_id, result.score, result.rank, counted))
        async with conn.cursor() as cursor:
            await cursor.executemany(
                "INSERT INTO match_results (match_id, seat, person_id, score, rank, counted)"
                " VALUES (%s, %s, %s, %s, %s, %s)",
                rows,
            )

    @staticmethod
    async def seat_changed(
        session: AsyncSession, match_id: int, n: int, kind: str | None, person_id: int | None = None
    ) -> None:
        """Record who controls seat `n` of a running match now, inside the caller's transaction.
        A person who sits down is credited with the seat; a bot or an empty seat keeps the last
        person's credit (they keep the seat's scores)."""
        values: dict[str, Any] = {"kind": kind}
        if kind == "person":
            values["person_id"] = person_id
        await session.execute(
            update(MatchSeat).where(MatchSeat.match_id == match_id, MatchSeat.n == n).values(**values)
        )
