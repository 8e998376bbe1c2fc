"""Seats and starting: who sits where (people, bots, a seat left mid-match), and whether the host
may start a match now.

Like app/store/rooms.py, every check runs inside the caller's transaction, holding the room's row,
and a refusal is a domain error (app/errors.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, NotFound
from app.store.matches import MatchStore
from app.store.models import MatchRow, MatchSeat, Room, RoomSeat
from app.store.rooms import (
    effective_options,
    game_or_error,
    host_only,
    is_member,
    join_room,
    room_by_code,
    room_seats,
)
from engine import get_game


@dataclass(frozen=True)
class SeatChange:
    """What a seat change touched: the room, and its running match (whose table must hear of it)."""

    room_id: int
    match_id: int | None


async def take_seat(
    session: AsyncSession,
    code: str,
    n: int,
    person_id: int,
    *,
    as_bot: bool = False,
    replace: bool = False,
    level: str | None = None,
    default_level: str = "strong",
) -> SeatChange:
    """A person sits down in seat `n` (empty, or kept warm by a bot), or the host seats a bot
    there (`replace`: even over a person, who stays credited with the seat's scores). A bot gets
    `level`, else keeps the level it had, else `default_level`."""
    room = await room_by_code(session, code, lock=True)
    await join_room(session, room, person_id)
    if not 0 <= n < room.seat_count:
        raise NotFound(
            f"this room has seats 0 to {room.seat_count - 1}", f"席は0〜{room.seat_count - 1}番です"
        )
    seats = await room_seats(session, room.id)
    current = seats.get(n)
    running = await MatchStore.running_match(session, room.id)
    if not as_bot:
        if current is not None and current.kind == "person" and current.person_id != person_id:
            raise Conflict(f"seat {n} is taken", f"{n}番の席はふさがっています")
        if running is not None:
            await _check_one_seat(session, running, seats, n, person_id)
        if current is None:
            session.add(RoomSeat(room_id=room.id, n=n, kind="person", person_id=person_id))
        else:
            current.kind, current.person_id, current.bot_level = "person", person_id, None
        if running is not None:
            await MatchStore.seat_changed(session, running.id, n, "person", person_id)
    else:
        host_only(room, person_id)
        if current is not None and current.kind == "person" and not replace:
            raise Conflict(
                f"seat {n} has a person in it; remove them first",
                f"{n}番の席には人がいます。先に外してください",
            )
        kept = current.bot_level if current is not None and current.kind == "bot" else None
        chosen = level or kept or default_level
        if current is None:
            session.add(RoomSeat(room_id=room.id, n=n, kind="bot", person_id=None, bot_level=chosen))
        else:
            current.kind, current.person_id, current.bot_level = "bot", None, chosen
        if running is not None:
            await MatchStore.seat_changed(session, running.id, n, "bot")
    return SeatChange(room.id, running.id if running else None)


async def _check_one_seat(
    session: AsyncSession, running: MatchRow, seats: dict[int, RoomSeat], n: int, person_id: int
) -> None:
    """During a match a person holds one seat: each seat's view goes to its holder, so a second
    seat would show them another hand (in Familia, their partner's). The one exception is the
    game's own: a person taking back a seat of their team that was theirs in this match
    (Familia's two-person table, where each person plays both seats of a pair)."""
    held = sorted(k for k, seat in seats.items() if k != n and seat.person_id == person_id)
    if not held:
        return
    teams = get_game(running.game_id).new_match(running.players, running.options).teams
    credited = await session.scalar(
        select(MatchSeat.person_id).where(MatchSeat.match_id == running.id, MatchSeat.n == n)
    )
    if teams is not None and credited == person_id and all(teams[k] == teams[n] for k in held):
        return
    listed = ", ".join(str(k) for k in held)
    raise Conflict(
        f"you already hold seat {listed} of this match; a person plays one seat of a match",
        f"この対戦ではすでに{listed}番の席に座っています。1人が座れるのは1つの席だけです",
    )


async def leave_seat(
    session: AsyncSession, code: str, n: int, person_id: int, default_level: str = "strong"
) -> SeatChange:
    """Leave one's own seat, or (host) clear anyone's. During a match a person's seat goes to a
    bot of `default_level` at once, so the table never waits on a seat nobody holds; the person
    who left stays credited with its scores, and anyone may take the seat from the bot. A bot's
    seat cleared during a match waits, empty."""
    room = await room_by_code(session, code, lock=True)
    current = (await room_seats(session, room.id)).get(n)
    if current is None:
        raise Conflict(f"seat {n} is already empty", f"{n}番の席は空いています")
    if not (current.kind == "person" and current.person_id == person_id):
        host_only(room, person_id)
    running = await MatchStore.running_match(session, room.id)
    if running is not None and current.kind == "person":
        current.kind, current.person_id, current.bot_level = "bot", None, default_level
        await MatchStore.seat_changed(session, running.id, n, "bot")
        return SeatChange(room.id, running.id)
    await session.delete(current)
    if running is not None:
        await MatchStore.seat_changed(session, running.id, n, None)
    return SeatChange(room.id, running.id if running else None)


@dataclass(frozen=True)
class Start:
    """A room ready to start a match: everything the table service needs to create it."""

    room_id: int
    game_id: str
    players: int
    options: dict[str, Any]
    turn_timer: int | None
    take_backs: str


async def ready_to_start(session: AsyncSession, code: str, host_id: int, same_deals_as: int | None) -> Start:
    """Check that the host may start a match now (no match running, every seat filled, a valid
    source match for `same_deals_as`), holding the room's row until the caller commits."""
    room = await room_by_code(session, code, lock=True)
    host_only(room, host_id)
    if await MatchStore.running_match(session, room.id) is not None:
        raise Conflict("a match is already running", "すでに対戦中です")
    game = game_or_error(room.game_id)
    seats = await room_seats(session, room.id)
    empty = [n for n in range(room.seat_count) if n not in seats]
    if empty:
        listed = ", ".join(str(n) for n in empty)
        raise Conflict(
            f"empty seats: {listed}; fill them with people or bots first",
            f"空席があります（{listed}）。人かボットで埋めてください",
        )
    if same_deals_as is not None:
        await _check_same_deals(session, room, host_id, same_deals_as)
    options = effective_options(game, room.seat_count, room.options)
    return Start(room.id, game.id, room.seat_count, options, room.turn_timer, room.take_backs)


async def _check_same_deals(session: AsyncSession, room: Room, person_id: int, source_id: int) -> None:
    """The match whose cards are dealt again must be a finished match of this room's game and
    seat count, played in this room. A match of a room the host is not a member of is "not found"."""
    source = await session.get(MatchRow, source_id)
    if source is None or not await is_member(session, source.room_id, person_id):
        raise NotFound(f"there is no match {source_id} you can see", f"対戦 {source_id} は見つかりません")
    if source.status != "finished":
        raise Conflict(
            f"match {source_id} has not finished; only a finished match's cards can be dealt again",
            f"対戦 {source_id} はまだ終わっていません。終わった対戦の配札だけを使えます",
        )
    if source.game_id != room.game_id:
        raise Conflict(
            f"match {source_id} was a game of {source.game_id}; this room plays {room.game_id}",
            f"対戦 {source_id} は別のゲーム（{source.game_id}）です。この部屋のゲームは {room.game_id} です",
        )
    if source.players != room.seat_count:
        raise Conflict(
            f"match {source_id} had {source.players} seats; this room has {room.seat_count}",
            f"対戦 {source_id} は{source.players}席でした。この部屋は{room.seat_count}席です",
        )
    if source.room_id != room.id:
        raise Conflict(
            f"match {source_id} was played in another room; only this room's matches can be dealt again here",
            f"対戦 {source_id} は別の部屋の対戦です。この部屋の対戦の配札だけを使えます",
        )
