"""Hints in PostgreSQL (`match_hints`, migration 0013): who may ask, and the hints given.

A hint is the strong bot's choice for a person's own seat (app/live/hints.py computes it). It is
kept per match, state version and seat: a second ask in the same state reads the same answer,
and the match review marks the decisions that had one (`hints_of`). Refusals are domain errors.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, Forbidden, NotFound
from app.store.models import MatchHint, MatchRow, Room
from app.store.rooms import is_member


async def check_asker(session: AsyncSession, match_id: int, person_id: int) -> MatchRow:
    """The running match a member of its room may ask hints in: not found for anyone else (as a
    match page), forbidden where the room has hints off, a conflict once the match is over."""
    row = await session.get(MatchRow, match_id)
    if row is None or not await is_member(session, row.room_id, person_id):
        raise NotFound(
            "no such match, or you are not a member of its room",
            "その対戦はないか、あなたはその部屋のメンバーではありません",
        )
    room = await session.get(Room, row.room_id)
    if room is None or not room.hints:
        raise Forbidden(
            "hints are off in this room (the host can turn them on between matches)",
            "この部屋ではヒントが使えません（ホストが対戦の合間に設定できます）",
        )
    if row.status != "running":
        raise Conflict("the match is over", "対戦は終わっています")
    return row


async def stored_hint(session: AsyncSession, match_id: int, version: int, seat: int) -> list[Any] | None:
    """The actions of the hint already given for this state and seat, if any."""
    return await session.scalar(
        select(MatchHint.actions).where(
            MatchHint.match_id == match_id, MatchHint.version == version, MatchHint.seat == seat
        )
    )


async def save_hint(
    session: AsyncSession, match_id: int, version: int, seat: int, person_id: int, actions: list[Any]
) -> list[Any]:
    """Keep a hint; when one was kept meanwhile for the same state and seat (two asks at once),
    that one stands and is returned."""
    await session.execute(
        insert(MatchHint)
        .values(match_id=match_id, version=version, seat=seat, person_id=person_id, actions=actions)
        .on_conflict_do_nothing()
    )
    return await stored_hint(session, match_id, version, seat) or actions


async def hints_of(session: AsyncSession, match_id: int) -> list[tuple[int, int, list[Any]]]:
    """Every hint given in the match: (version of the state asked in, seat, actions)."""
    rows = await session.execute(
        select(MatchHint.version, MatchHint.seat, MatchHint.actions)
        .where(MatchHint.match_id == match_id)
        .order_by(MatchHint.version, MatchHint.seat)
    )
    return [(int(version), int(seat), list(actions)) for version, seat, actions in rows]
