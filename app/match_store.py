"""All persistence of matches: the one place that reads and writes match rows, logs and results.

The table service (`app/tables.py`) keeps matches in memory as caches of their logs; this module
is how those caches are filled and how every committed change reaches PostgreSQL. It raises
domain errors (`MatchNotFound`, `VersionConflict`), never HTTP errors.

The hot path, `append`, is SQLAlchemy Core on a plain connection: one transaction per committed
action that inserts the new log rows, bumps `matches.version` only if it still holds the version
the caller started from (so two processes can never both extend one log), and stores finished
hands and final results. Route handlers that change seats during a match call the helpers that
take their own session, so the seat change and the room change commit together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.db import Database
from app.models import HandResult, MatchAction, MatchResult, MatchRow, MatchSeat, RoomSeat

ACTIONS = MatchAction.__table__
MATCHES = MatchRow.__table__
HANDS = HandResult.__table__
RESULTS = MatchResult.__table__
MATCH_SEATS = MatchSeat.__table__
ROOM_SEATS = RoomSeat.__table__


class MatchStoreError(Exception):
    """Base of the store's domain errors."""


class MatchNotFound(MatchStoreError):
    """No match has this id."""


class VersionConflict(MatchStoreError):
    """The match is no longer at the version the caller extended (another writer came first,
    or it has finished)."""


@dataclass(frozen=True)
class Controller:
    """Who plays a seat now: a person (by id) or a bot."""

    kind: str
    person_id: int | None = None


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


class MatchStore:
    """Reads and writes matches for the table service and the room routes."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # ---- reading ---------------------------------------------------------------------------
    async def load(self, match_id: int) -> StoredMatch:
        """The match row, its whole log, how many hands are stored and the seats' controllers,
        read in one transaction."""
        async with self.db.engine.connect() as conn:
            row = (
                await conn.execute(
                    select(
                        MATCHES.c.room_id, MATCHES.c.game_id, MATCHES.c.players, MATCHES.c.options,
                        MATCHES.c.status,
                    ).where(MATCHES.c.id == match_id)
                )
            ).first()  # fmt: skip
            if row is None:
                raise MatchNotFound(match_id)
            actions = (
                await conn.execute(
                    select(ACTIONS.c.seat, ACTIONS.c.action)
                    .where(ACTIONS.c.match_id == match_id)
                    .order_by(ACTIONS.c.seq)
                )
            ).all()
            hands_stored = await conn.scalar(
                select(func.count()).select_from(HANDS).where(HANDS.c.match_id == match_id)
            )
            controllers = await self._controllers(conn, row.room_id)
            await conn.rollback()
        return StoredMatch(
            match_id=match_id,
            room_id=row.room_id,
            game_id=row.game_id,
            players=row.players,
            options=row.options,
            finished=row.status == "finished",
            log=[(seat, action) for seat, action in actions],
            hands_stored=int(hands_stored or 0),
            controllers=controllers,
        )

    async def controllers(self, room_id: int) -> dict[int, Controller]:
        async with self.db.engine.connect() as conn:
            found = await self._controllers(conn, room_id)
            await conn.rollback()
        return found

    @staticmethod
    async def _controllers(conn: AsyncConnection, room_id: int) -> dict[int, Controller]:
        rows = await conn.execute(
            select(ROOM_SEATS.c.n, ROOM_SEATS.c.kind, ROOM_SEATS.c.person_id).where(
                ROOM_SEATS.c.room_id == room_id
            )
        )
        return {n: Controller(kind, person_id) for n, kind, person_id in rows}

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
    ) -> tuple[int, dict[int, Controller]]:
        """A new match for the room's current seating, with its opening log, inside the caller's
        transaction (the start route commits it). Returns its id and the seats' controllers."""
        conn = await session.connection()
        seating = await MatchStore._controllers(conn, room_id)
        number = await conn.scalar(
            select(func.coalesce(func.max(MATCHES.c.number), 0) + 1).where(MATCHES.c.room_id == room_id)
        )
        match_id = await conn.scalar(
            insert(MATCHES)
            .values(
                room_id=room_id, number=int(number or 1), game_id=game_id, players=players,
                options=options, status="running", version=len(log),
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
    ) -> None:
        """Commit log entries `before`, `before + 1`, … in one transaction, with any hands that
        finished and (when `final` is given) the match's end and results. Raises
        `VersionConflict` and writes nothing when the match is not at `before` any more."""
        after = before + len(entries)
        values: dict[str, Any] = {"version": after}
        if final is not None:
            values.update(status="finished", finished_at=func.now())
        async with self.db.engine.begin() as conn:
            bumped = await conn.execute(
                update(MATCHES)
                .where(MATCHES.c.id == match_id, MATCHES.c.version == before, MATCHES.c.status == "running")
                .values(**values)
            )
            if bumped.rowcount != 1:
                raise VersionConflict(f"match {match_id} is no longer at version {before}")
            if entries:
                await conn.execute(
                    insert(ACTIONS),
                    [
                        {"match_id": match_id, "seq": before + i, "seat": seat, "action": action}
                        for i, (seat, action) in enumerate(entries)
                    ],
                )
            if hands:
                await conn.execute(
                    insert(HANDS),
                    [
                        {"match_id": match_id, "hand_no": h.hand_no, "scores": h.scores, "details": h.details}
                        for h in hands
                    ],
                )
            if final is not None:
                await self._store_final(conn, match_id, final, teams)

    @staticmethod
    async def _store_final(
        conn: AsyncConnection, match_id: int, final: list[SeatResult], teams: list[int] | None
    ) -> None:
        """Credit each seat to the last person who sat in it; a person holding several seats of
        one team is counted once."""
        credited = dict(
            (
                await conn.execute(
                    select(MATCH_SEATS.c.n, MATCH_SEATS.c.person_id).where(MATCH_SEATS.c.match_id == match_id)
                )
            ).all()
        )
        await conn.execute(delete(RESULTS).where(RESULTS.c.match_id == match_id))
        team_of = teams or [result.seat for result in final]
        seen: set[tuple[int, int]] = set()
        rows = []
        for result in final:
            person_id = credited.get(result.seat)
            counted = person_id is None or (person_id, team_of[result.seat]) not in seen
            if person_id is not None:
                seen.add((person_id, team_of[result.seat]))
            rows.append(
                {
                    "match_id": match_id,
                    "seat": result.seat,
                    "person_id": person_id,
                    "score": result.score,
                    "rank": result.rank,
                    "counted": counted,
                }
            )
        await conn.execute(insert(RESULTS), rows)

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
