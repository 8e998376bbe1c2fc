"""Every database query the routes need, and the JSON shapes of people, rooms and history."""

from __future__ import annotations

import contextlib
from collections import defaultdict
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import ApiError
from app.models import (
    GameRow,
    HandResult,
    MatchAction,
    MatchResult,
    MatchRow,
    MatchSeat,
    Membership,
    Person,
    Room,
    RoomSeat,
    Session,
)
from app.rematch import comparisons
from app.room_names import room_display_name
from app.security import new_account_id, new_session_token, token_hash
from engine import GAMES, TAKE_BACK, Game, IllegalAction

BOT_NAME = "Bot"


# ---- people ------------------------------------------------------------------------------------
def clean_name(name: str) -> str:
    """Display names: trimmed, 1–32 characters, no control characters."""
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= 32:
        raise ApiError(422, "a name must have 1 to 32 characters", "名前は1〜32文字にしてください")
    if any(not ch.isprintable() for ch in cleaned):
        raise ApiError(422, "a name cannot contain control characters", "名前に制御文字は使えません")
    return cleaned


def person_json(person: Person) -> dict[str, Any]:
    return {
        "id": person.id,
        "name": person.name,
        "account": person.account,
        "has_password": person.password_hash is not None,
    }


async def create_person(session: AsyncSession, name: str) -> Person:
    for _ in range(10):
        account = new_account_id()
        taken = await session.scalar(select(Person.id).where(Person.account == account))
        if taken is None:
            person = Person(name=clean_name(name), account=account)
            session.add(person)
            await session.flush()
            return person
    raise RuntimeError("could not find a free account id")


async def open_session(session: AsyncSession, person: Person) -> str:
    """A new cookie token for `person`; only its hash is stored."""
    token = new_session_token()
    session.add(Session(token_hash=token_hash(token), person_id=person.id))
    await session.flush()
    return token


async def person_by_token(session: AsyncSession, token: str | None) -> Person | None:
    if not token:
        return None
    return await session.scalar(
        select(Person)
        .join(Session, Session.person_id == Person.id)
        .where(Session.token_hash == token_hash(token))
    )


# ---- rooms -------------------------------------------------------------------------------------
def game_or_error(game_id: str) -> Game:
    game = GAMES.get(game_id)
    if game is None:
        raise ApiError(
            422,
            f"unknown game {game_id!r}; available: {', '.join(sorted(GAMES))}",
            f"ゲーム {game_id!r} はありません。選べるゲーム: {', '.join(sorted(GAMES))}",
        )
    return game


def effective_options(game: Game, seats: int, overrides: dict[str, Any]) -> dict[str, Any]:
    """The engine's defaults for `seats` players with the host's choices on top, validated."""
    try:
        parsed = game.parse_options({**game.default_options(seats), **overrides}, seats)
    except IllegalAction as exc:
        raise ApiError(422, exc.reason, exc.ja or f"この設定では始められません: {exc.reason}") from None
    return parsed.model_dump(mode="json")


def check_seat_count(game: Game, seats: int) -> None:
    if not game.min_players <= seats <= game.max_players:
        raise ApiError(
            422,
            f"{game.names['en']} needs {game.min_players} to {game.max_players} seats",
            f"{game.names.get('ja', game.names['en'])}は{game.min_players}〜{game.max_players}席です",
        )


async def room_by_code(session: AsyncSession, code: str, *, lock: bool = False) -> Room:
    """The room for an invite code; a wrong code is a plain 404 (codes are the only key)."""
    statement = select(Room).where(Room.code == code)
    if lock:
        statement = statement.with_for_update()
    room = await session.scalar(statement)
    if room is None:
        raise ApiError(404, "no room has this invite code", "この招待コードの部屋はありません")
    return room


async def join_room(session: AsyncSession, room: Room, person: Person) -> bool:
    """Make `person` a member (holding the code is what entitles them); True if they were not one."""
    result = await session.execute(
        insert(Membership).values(room_id=room.id, person_id=person.id).on_conflict_do_nothing()
    )
    return bool(result.rowcount)


async def is_member(session: AsyncSession, room_id: int, person_id: int) -> bool:
    found = await session.scalar(
        select(Membership.person_id).where(Membership.room_id == room_id, Membership.person_id == person_id)
    )
    return found is not None


async def latest_match(session: AsyncSession, room_id: int) -> MatchRow | None:
    return await session.scalar(
        select(MatchRow).where(MatchRow.room_id == room_id).order_by(MatchRow.number.desc()).limit(1)
    )


async def room_seats(session: AsyncSession, room_id: int) -> dict[int, RoomSeat]:
    rows = (await session.execute(select(RoomSeat).where(RoomSeat.room_id == room_id))).scalars()
    return {seat.n: seat for seat in rows}


async def room_json(
    session: AsyncSession, room: Room, viewer: Person | None, connected: set[int]
) -> dict[str, Any]:
    """The room as the client draws it (see docs/ARCHITECTURE.md, "Room JSON")."""
    game = GAMES.get(room.game_id)
    members = (
        await session.execute(
            select(Person.id, Person.name)
            .join(Membership, Membership.person_id == Person.id)
            .where(Membership.room_id == room.id)
            .order_by(Membership.joined_at, Person.id)
        )
    ).all()
    names = {person_id: name for person_id, name in members}
    seats = await room_seats(session, room.id)
    missing = {s.person_id for s in seats.values() if s.person_id is not None and s.person_id not in names}
    if room.host_id not in names:
        missing.add(room.host_id)
    if missing:
        for person_id, name in await session.execute(
            select(Person.id, Person.name).where(Person.id.in_(missing))
        ):
            names[person_id] = name
    seat_list = []
    for n in range(room.seat_count):
        seat = seats.get(n)
        if seat is None:
            seat_list.append(
                {"n": n, "kind": None, "person_id": None, "name": None, "connected": False, "level": None}
            )
        elif seat.kind == "bot":
            seat_list.append(
                {
                    "n": n,
                    "kind": "bot",
                    "person_id": None,
                    "name": BOT_NAME,
                    "connected": True,
                    "level": seat.bot_level,
                }
            )
        else:
            seat_list.append(
                {
                    "n": n,
                    "kind": "person",
                    "person_id": seat.person_id,
                    "name": names.get(seat.person_id),
                    "connected": seat.person_id in connected,
                    "level": None,
                }
            )
    match = await latest_match(session, room.id)
    options = dict(room.options)
    if game is not None:
        with contextlib.suppress(ApiError):  # show the stored choices if the engine now rejects them
            options = effective_options(game, room.seat_count, room.options)
    viewer_id = viewer.id if viewer else None
    return {
        "code": room.code,
        "name": room.name,
        "display_name": room_display_name(room.name, names.get(room.host_id), room.game_id),
        "game_id": room.game_id,
        "game_names": dict(game.names) if game else None,
        "host_id": room.host_id,
        "seat_count": room.seat_count,
        "options": options,
        "option_overrides": dict(room.options),
        "seats": seat_list,
        "members": [
            {"person_id": pid, "name": name, "connected": pid in connected, "is_host": pid == room.host_id}
            for pid, name in members
        ],
        "match": (
            {"id": match.id, "number": match.number, "status": match.status, "version": match.version}
            if match
            else None
        ),
        "invite_url": f"/r/{room.code}",
        "me": {
            "person_id": viewer_id,
            "is_host": viewer_id == room.host_id,
            "is_member": any(pid == viewer_id for pid, _ in members),
            "seats": [s["n"] for s in seat_list if s["kind"] == "person" and s["person_id"] == viewer_id],
        },
    }


async def invitation_json(session: AsyncSession, room: Room) -> dict[str, Any]:
    """What holding the code shows someone who has not joined: enough to decide to join (the
    room's name, host and game), never who is in it or how its match stands."""
    game = GAMES.get(room.game_id)
    host_name = await session.scalar(select(Person.name).where(Person.id == room.host_id))
    return {
        "code": room.code,
        "name": room.name,
        "display_name": room_display_name(room.name, host_name, room.game_id),
        "game_id": room.game_id,
        "game_names": dict(game.names) if game else None,
        "host_name": host_name,
        "seat_count": room.seat_count,
        "invite_url": f"/r/{room.code}",
    }


# ---- history -----------------------------------------------------------------------------------
def _seat_name(kind: str | None, person_id: int | None, names: dict[int, str]) -> str | None:
    if person_id is not None:
        return names.get(person_id)
    return BOT_NAME if kind == "bot" else None


async def _names(session: AsyncSession, ids: set[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = await session.execute(select(Person.id, Person.name).where(Person.id.in_(ids)))
    return {pid: name for pid, name in rows}


async def my_matches(session: AsyncSession, person: Person) -> list[dict[str, Any]]:
    """Every match the person has been credited a seat in, newest first."""
    match_ids = select(MatchSeat.match_id).where(MatchSeat.person_id == person.id)
    rows = (
        await session.execute(
            select(MatchRow, Room.code, Room.name, Person.name)
            .join(Room, Room.id == MatchRow.room_id)
            .join(Person, Person.id == Room.host_id)
            .where(MatchRow.id.in_(match_ids))
            .order_by(MatchRow.created_at.desc(), MatchRow.id.desc())
        )
    ).all()
    if not rows:
        return []
    ids = [m.id for m, *_ in rows]
    seats = (await session.execute(select(MatchSeat).where(MatchSeat.match_id.in_(ids)))).scalars().all()
    results = (
        (await session.execute(select(MatchResult).where(MatchResult.match_id.in_(ids)))).scalars().all()
    )
    names = await _names(session, {s.person_id for s in seats if s.person_id is not None})
    seats_by_match: dict[int, list[MatchSeat]] = defaultdict(list)
    for seat in seats:
        seats_by_match[seat.match_id].append(seat)
    results_by_match: dict[int, dict[int, MatchResult]] = defaultdict(dict)
    for result in results:
        results_by_match[result.match_id][result.seat] = result
    answer = []
    for match, code, room_name, host_name in rows:
        match_seats = sorted(seats_by_match[match.id], key=lambda s: s.n)
        finals = results_by_match.get(match.id, {})
        my_seats = [s.n for s in match_seats if s.person_id == person.id]
        game = GAMES.get(match.game_id)
        answer.append(
            {
                "id": match.id,
                "room_code": code,
                "room_name": room_display_name(room_name, host_name, match.game_id),
                "number": match.number,
                "game_id": match.game_id,
                "game_names": dict(game.names) if game else None,
                "status": match.status,
                "players": match.players,
                "created_at": match.created_at.isoformat(),
                "finished_at": match.finished_at.isoformat() if match.finished_at else None,
                "seats": [
                    {
                        "n": s.n,
                        "kind": s.kind,
                        "person_id": s.person_id,
                        "name": _seat_name(s.kind, s.person_id, names),
                        "score": finals[s.n].score if s.n in finals else None,
                        "rank": finals[s.n].rank if s.n in finals else None,
                    }
                    for s in match_seats
                ],
                "my_seats": my_seats,
                "my_score": sum(finals[n].score for n in my_seats if n in finals and finals[n].counted)
                if finals
                else None,
                "my_rank": min((finals[n].rank for n in my_seats if n in finals), default=None),
            }
        )
    return answer


async def visible_match(session: AsyncSession, match_id: int, person: Person) -> MatchRow:
    """The match, if `person` is a member of its room; otherwise "not found", so that nothing
    tells an outsider whether the match exists."""
    row = await session.get(MatchRow, match_id)
    if row is None or not await is_member(session, row.room_id, person.id):
        raise ApiError(
            404,
            "no such match, or you are not a member of its room",
            "その対戦はないか、あなたはその部屋のメンバーではありません",
        )
    return row


async def match_detail(session: AsyncSession, match_id: int, person: Person) -> dict[str, Any]:
    """One match's hand-by-hand score table and final ranking, for members of its room only."""
    row = await visible_match(session, match_id, person)
    room = await session.get(Room, row.room_id)
    seats = (
        (await session.execute(select(MatchSeat).where(MatchSeat.match_id == match_id).order_by(MatchSeat.n)))
        .scalars()
        .all()
    )
    hands = (
        (
            await session.execute(
                select(HandResult).where(HandResult.match_id == match_id).order_by(HandResult.hand_no)
            )
        )
        .scalars()
        .all()
    )
    results = (
        (
            await session.execute(
                select(MatchResult).where(MatchResult.match_id == match_id).order_by(MatchResult.rank)
            )
        )
        .scalars()
        .all()
    )
    names = await _names(session, {s.person_id for s in seats if s.person_id is not None})
    seat_kind = {s.n: s.kind for s in seats}
    taken_back = await _take_backs(session, match_id)
    totals = [0.0] * row.players
    table = []
    for hand in hands:
        for seat, value in enumerate(hand.scores):
            totals[seat] += value
        table.append(
            {"hand_no": hand.hand_no, "scores": hand.scores, "totals": list(totals), "details": hand.details}
        )
    game = GAMES.get(row.game_id)
    host_name = (await _names(session, {room.host_id})).get(room.host_id) if room else None
    return {
        "id": row.id,
        "room_code": room.code if room else None,
        "room_name": room_display_name(room.name, host_name, room.game_id) if room else None,
        "number": row.number,
        "same_deals_as": row.same_deals_as,
        "rotate_deals": row.rotate_deals,
        "same_deals": await comparisons(session, row),
        "game_id": row.game_id,
        "game_names": dict(game.names) if game else None,
        "status": row.status,
        "players": row.players,
        "options": row.options,
        "version": row.version,
        "created_at": row.created_at.isoformat(),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "seats": [
            {
                "n": s.n,
                "kind": s.kind,
                "person_id": s.person_id,
                "name": _seat_name(s.kind, s.person_id, names),
                "take_backs": taken_back.get(s.n, 0),
            }
            for s in seats
        ],
        "hands": table,
        "totals": totals,
        "ranking": [
            {
                "seat": r.seat,
                "person_id": r.person_id,
                "name": _seat_name(seat_kind.get(r.seat) or "bot", r.person_id, names),
                "score": r.score,
                "rank": r.rank,
            }
            for r in results
        ],
    }


async def _take_backs(session: AsyncSession, match_id: int) -> dict[int, int]:
    """How many actions each seat took back in this match (its take-back log entries)."""
    rows = await session.execute(
        select(MatchAction.seat, func.count())
        .where(MatchAction.match_id == match_id, MatchAction.action["type"].astext == TAKE_BACK)
        .group_by(MatchAction.seat)
    )
    return {seat: count for seat, count in rows}


def _rank_entries(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    entries.sort(key=lambda e: (-e["score"], -e["wins"], e["name"] or ""))
    for entry in entries:
        entry["rank"] = 1 + sum(1 for other in entries if other["score"] > entry["score"])
    return entries


async def room_leaderboard(session: AsyncSession, room: Room) -> list[dict[str, Any]]:
    """Cumulative final scores per person in this room (all bots together as one entry)."""
    rows = (
        await session.execute(
            select(
                MatchResult.person_id,
                func.count(MatchResult.match_id.distinct()),
                func.sum(MatchResult.score),
                func.count().filter(MatchResult.rank == 1),
            )
            .join(MatchRow, MatchRow.id == MatchResult.match_id)
            .where(MatchRow.room_id == room.id, MatchResult.counted)
            .group_by(MatchResult.person_id)
        )
    ).all()
    names = await _names(session, {pid for pid, *_ in rows if pid is not None})
    entries = [
        {
            "person_id": pid,
            "kind": "person" if pid is not None else "bot",
            "name": names.get(pid) if pid is not None else BOT_NAME,
            "matches": int(matches),
            "score": float(score or 0),
            "wins": int(wins),
        }
        for pid, matches, score, wins in rows
    ]
    return _rank_entries(entries)


async def overall_leaderboard(session: AsyncSession, person: Person) -> list[dict[str, Any]]:
    """Cumulative scores per game of the viewer and everyone who shares a room with them.

    Scores of different games are never added together; each entry is one person in one game."""
    my_rooms = select(Membership.room_id).where(Membership.person_id == person.id)
    circle = select(Membership.person_id).where(Membership.room_id.in_(my_rooms))
    rows = (
        await session.execute(
            select(
                MatchRow.game_id,
                MatchResult.person_id,
                func.count(MatchResult.match_id.distinct()),
                func.sum(MatchResult.score),
                func.count().filter(MatchResult.rank == 1),
            )
            .join(MatchRow, MatchRow.id == MatchResult.match_id)
            .where(MatchResult.person_id.in_(circle), MatchResult.counted)
            .group_by(MatchRow.game_id, MatchResult.person_id)
        )
    ).all()
    names = await _names(session, {pid for _, pid, *_ in rows})
    by_game: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for game_id, pid, matches, score, wins in rows:
        by_game[game_id].append(
            {
                "game_id": game_id,
                "person_id": pid,
                "kind": "person",
                "name": names.get(pid),
                "matches": int(matches),
                "score": float(score or 0),
                "wins": int(wins),
                "is_me": pid == person.id,
            }
        )
    answer: list[dict[str, Any]] = []
    for game_id in sorted(by_game):
        answer.extend(_rank_entries(by_game[game_id]))
    return answer


async def catalog_rows(session: AsyncSession) -> list[GameRow]:
    return list((await session.execute(select(GameRow).order_by(GameRow.id))).scalars())
