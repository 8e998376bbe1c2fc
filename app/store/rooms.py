"""Rooms: invite codes, membership, settings, and the one room JSON every reader gets (who sits
where, and starting a match: app/store/seats.py).

Every check a room change needs is made here, inside the caller's transaction (the routes open
it with `Database.session` and commit it), and a refusal is a domain error (app/errors.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from typing import Any, SupportsFloat, cast

from sqlalchemy import delete, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, DomainError, Forbidden, Invalid, NotFound
from app.limits import AWAY_GRACE_MAX, AWAY_GRACE_MIN, check_option_bounds
from app.security import new_invite_code
from app.store import presence
from app.store.matches import MatchStore
from app.store.models import MatchRow, Membership, Person, Preset, Room, RoomSeat
from app.store.people import BOT_NAME
from app.store.room_names import clean_room_name, room_display_name
from engine import GAMES, Game, IllegalAction

UNSET: Any = object()
"""A setting the caller leaves as it is (None is a value: no name, no turn timer)."""


# ---- rules of a table ----------------------------------------------------------------------------
def game_or_error(game_id: str) -> Game:
    game = GAMES.get(game_id)
    if game is None:
        raise Invalid(
            f"unknown game {game_id!r}; available: {', '.join(sorted(GAMES))}",
            f"ゲーム {game_id!r} はありません。選べるゲーム: {', '.join(sorted(GAMES))}",
        )
    return game


def effective_options(game: Game, seats: int, overrides: dict[str, Any]) -> dict[str, Any]:
    """The engine's defaults for `seats` players with the host's choices on top, validated."""
    try:
        parsed = game.parse_options({**game.default_options(seats), **overrides}, seats)
    except IllegalAction as exc:
        raise Invalid(exc.reason, exc.ja or f"この設定では始められません: {exc.reason}") from None
    return parsed.model_dump(mode="json")


def check_seat_count(game: Game, seats: int) -> None:
    if not game.min_players <= seats <= game.max_players:
        raise Invalid(
            f"{game.names['en']} needs {game.min_players} to {game.max_players} seats",
            f"{game.names.get('ja', game.names['en'])}は{game.min_players}〜{game.max_players}席です",
        )


def check_table(game: Game, seats: int, options: dict[str, Any]) -> None:
    """A seat count and options the room may be set to."""
    check_option_bounds(options)
    check_seat_count(game, seats)
    effective_options(game, seats, options)


def host_only(room: Room, person_id: int) -> None:
    if room.host_id != person_id:
        raise Forbidden("only the host can do that", "それはホストだけができます")


# ---- reading ---------------------------------------------------------------------------------------
async def default_name_ordinals(session: AsyncSession, room_ids: Iterable[int]) -> dict[int, int]:
    """For each of these rooms that has no name: which of its host's unnamed rooms of that game it
    is (1, 2, … by creation), so their default names differ (app/store/room_names.py)."""
    ids = list(room_ids)
    if not ids:
        return {}
    hosts = select(Room.host_id).where(Room.id.in_(ids))
    numbered = (
        select(
            Room.id,
            func.row_number().over(partition_by=(Room.host_id, Room.game_id), order_by=Room.id).label("n"),
        )
        .where(Room.name.is_(None), Room.host_id.in_(hosts))
        .subquery()
    )
    rows = await session.execute(select(numbered.c.id, numbered.c.n).where(numbered.c.id.in_(ids)))
    return {int(room_id): int(n) for room_id, n in rows}


async def room_name_of(session: AsyncSession, room: Room, host_name: str | None) -> dict[str, str]:
    """A room's display name; the ordinal of a default name is read only for an unnamed room."""
    ordinal = 1 if room.name else (await default_name_ordinals(session, [room.id])).get(room.id, 1)
    return room_display_name(room.name, host_name, room.game_id, ordinal)


async def room_by_code(
    session: AsyncSession, code: str, *, lock: bool = False, key_share: bool = False
) -> Room:
    """The room for an invite code; a wrong code is a plain "not found" (codes are the only key).
    `lock`: FOR UPDATE (a change to the room); `key_share`: FOR KEY SHARE, the lock a new row
    referring to the room takes anyway, taken first (see `open_room`)."""
    statement = select(Room).where(Room.code == code)
    if lock:
        statement = statement.with_for_update()
    elif key_share:
        statement = statement.with_for_update(read=True, key_share=True)
    room = await session.scalar(statement)
    if room is None:
        raise NotFound("no room has this invite code", "この招待コードの部屋はありません")
    return room


async def join_room(session: AsyncSession, room: Room, person_id: int) -> bool:
    """Make the person a member (holding the code is what entitles them); True if they were not one."""
    result = await session.execute(
        insert(Membership).values(room_id=room.id, person_id=person_id).on_conflict_do_nothing()
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def open_room(session: AsyncSession, code: str, person_id: int | None) -> tuple[int, bool]:
    """The room's id, with a signed-in person made a member: (room id, whether they joined now)."""
    # A joining person's membership row locks the room (its foreign key) after the row: a seat
    # change for the same person, which locks the room and then inserts the same membership,
    # would deadlock with it. Locking the room first keeps the order of every other path.
    room = await room_by_code(session, code, key_share=person_id is not None)
    joined = person_id is not None and await join_room(session, room, person_id)
    return room.id, joined


async def is_member(session: AsyncSession, room_id: int, person_id: int) -> bool:
    found = await session.scalar(
        select(Membership.person_id).where(Membership.room_id == room_id, Membership.person_id == person_id)
    )
    return found is not None


MEMBERS_ONLY = {
    "chat": (
        "only the room's members can read its chat; open the room first",
        "チャットは部屋のメンバーだけが読めます。先に部屋を開いてください",
    ),
    "leaderboard": (
        "only the room's members can see its leaderboard; open the room first",
        "ランキングは部屋のメンバーだけが見られます。先に部屋を開いてください",
    ),
}
"""What a non-member is told, per members-only part of a room."""


async def require_member(session: AsyncSession, code: str, person_id: int, what: str) -> Room:
    """The room, for one of its members only (`what`: a key of MEMBERS_ONLY)."""
    room = await room_by_code(session, code)
    if not await is_member(session, room.id, person_id):
        raise Forbidden(*MEMBERS_ONLY[what])
    return room


async def latest_match(session: AsyncSession, room_id: int) -> MatchRow | None:
    return await session.scalar(
        select(MatchRow).where(MatchRow.room_id == room_id).order_by(MatchRow.number.desc()).limit(1)
    )


async def room_seats(session: AsyncSession, room_id: int) -> dict[int, RoomSeat]:
    rows = (await session.execute(select(RoomSeat).where(RoomSeat.room_id == room_id))).scalars()
    return {seat.n: seat for seat in rows}


# ---- the room JSON ---------------------------------------------------------------------------------
async def room_json(session: AsyncSession, code: str, viewer_id: int | None) -> dict[str, Any]:
    """The room as `viewer_id` sees it (docs/ARCHITECTURE.md, "Room JSON"): what every reader
    shares (`shared_room_json`) with the viewer's own `me`."""
    room = await room_by_code(session, code)
    return for_viewer(await shared_room_json(session, room), viewer_id)


def for_viewer(room: dict[str, Any], person_id: int | None) -> dict[str, Any]:
    """The shared room JSON with this reader's own `me` (a WebSocket reads the room once per
    event and gives each socket its `me` this way)."""
    return {
        **room,
        "me": {
            "person_id": person_id,
            "is_host": person_id == room["host_id"],
            "is_member": any(m["person_id"] == person_id for m in room["members"]),
            "seats": [s["n"] for s in room["seats"] if s["kind"] == "person" and s["person_id"] == person_id],
        },
    }


async def shared_room_json(session: AsyncSession, room: Room) -> dict[str, Any]:
    """The room as every reader sees it (`me` as for nobody: see `for_viewer`): seats, members
    and who is connected, options, the latest match, the room's deadline settings, `stand_ins`
    (seats a bot plays for while their person is away; a seat's person is away when its
    `connected` is false), the running match's turn countdowns (`timers`: seconds per seat) and
    when it was read (`read_at`)."""
    game = GAMES.get(room.game_id)
    connected = await presence.connected(session, room.id)
    # The reading transaction's start in the database's clock rides along with the members
    # (one round trip): everything committed before it is in this copy, so a client that holds a
    # copy read later keeps it when an older one arrives (an answer to its own change can
    # overtake the socket's copy read before that change).
    read_at_epoch = func.extract("epoch", func.now())
    member_rows = (
        await session.execute(
            select(Person.id, Person.name, read_at_epoch)
            .join(Membership, Membership.person_id == Person.id)
            .where(Membership.room_id == room.id)
            .order_by(Membership.joined_at, Person.id)
        )
    ).all()
    members = [(person_id, name) for person_id, name, _ in member_rows]
    read_at = (
        float(member_rows[0][2])
        if member_rows
        else float(cast(SupportsFloat, await session.scalar(select(read_at_epoch))))
    )
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
    seat_list: list[dict[str, Any]] = []
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
                    "name": names.get(seat.person_id) if seat.person_id is not None else None,
                    "connected": seat.person_id in connected,
                    "level": None,
                }
            )
    match = await latest_match(session, room.id)
    options = dict(room.options)
    if game is not None:
        with contextlib.suppress(DomainError):  # show the stored choices if the engine now rejects them
            options = effective_options(game, room.seat_count, room.options)
    answer = for_viewer(
        {
            "code": room.code,
            "name": room.name,
            "display_name": await room_name_of(session, room, names.get(room.host_id)),
            "game_id": room.game_id,
            "game_names": dict(game.names) if game else None,
            "host_id": room.host_id,
            "seat_count": room.seat_count,
            "options": options,
            "option_overrides": dict(room.options),
            "seats": seat_list,
            "members": [
                {
                    "person_id": pid,
                    "name": name,
                    "connected": pid in connected,
                    "is_host": pid == room.host_id,
                }
                for pid, name in members
            ],
            "match": (
                {"id": match.id, "number": match.number, "status": match.status, "version": match.version}
                if match
                else None
            ),
            "invite_url": f"/r/{room.code}",
            "me": None,
        },
        None,
    )
    running = match is not None and match.status == "running"
    due = await presence.away_due(session, room.id) if running else set()
    answer["stand_ins"] = [
        seat["n"]
        for seat in seat_list
        if seat["kind"] == "person" and not seat["connected"] and seat["n"] in due
    ]
    answer["away_grace"] = room.away_grace
    answer["turn_timer"] = room.turn_timer
    answer["take_backs"] = room.take_backs
    answer["hints"] = room.hints
    answer["timers"] = await presence.timers(session, room.id)
    answer["read_at"] = read_at
    return answer


async def invitation_json(session: AsyncSession, code: str) -> dict[str, Any]:
    """What holding the code shows someone who has not joined: enough to decide to join (the
    room's name, host and game), never who is in it or how its match stands."""
    room = await room_by_code(session, code)
    game = GAMES.get(room.game_id)
    host_name = await session.scalar(select(Person.name).where(Person.id == room.host_id))
    return {
        "code": room.code,
        "name": room.name,
        "display_name": await room_name_of(session, room, host_name),
        "game_id": room.game_id,
        "game_names": dict(game.names) if game else None,
        "host_name": host_name,
        "seat_count": room.seat_count,
        "invite_url": f"/r/{room.code}",
    }


# ---- changing ----------------------------------------------------------------------------------------
TAKE_BACKS = ("off", "until_next")
"""The take-back settings: never, or a person's own last action until someone acts."""
TABLE_MANNERS_JA = {
    "away_grace": "離席の猶予",
    "turn_timer": "手番の制限時間",
    "take_backs": "待った（手の取り消し）",
    "hints": "ヒント",
}
"""The room settings a running match holds fixed, by their Japanese names (for the refusal)."""


async def create_room(
    session: AsyncSession,
    host_id: int,
    game_id: str,
    seats: int | None,
    options: dict[str, Any],
    preset: str | None,
    name: str | None,
    away_grace: int,
    turn_timer: int | None,
    take_backs: str = "until_next",
    hints: bool = False,
) -> str:
    """A new room whose host (and first member) is `host_id`; returns its invite code. A preset's
    options and seat count apply under the host's own choices; `name` None: the default name."""
    game = game_or_error(game_id)
    check_option_bounds(options)
    if preset is not None:
        found = await session.scalar(select(Preset).where(Preset.game_id == game.id, Preset.key == preset))
        if found is None:
            raise Invalid(f"no preset {preset!r} for this game", f"プリセット {preset!r} はありません")
        options = {**found.options, **options}
        seats = seats or found.seats
    seats = seats or game.min_players
    check_seat_count(game, seats)
    effective_options(game, seats, options)
    name = clean_room_name(name) if name is not None else None
    room = Room(
        code=new_invite_code(),
        game_id=game.id,
        host_id=host_id,
        seat_count=seats,
        options=options,
        name=name,
        away_grace=away_grace,
        turn_timer=turn_timer,
        take_backs=take_backs,
        hints=hints,
    )
    session.add(room)
    await session.flush()
    await join_room(session, room, host_id)
    return room.code


async def change_settings(
    session: AsyncSession,
    code: str,
    host_id: int,
    *,
    seats: int | None = None,
    options: dict[str, Any] | None = None,
    name: str | None = UNSET,
    away_grace: int | None = UNSET,
    turn_timer: int | None = UNSET,
    take_backs: str | None = UNSET,
    hints: bool | None = UNSET,
) -> int:
    """The host changes the room (only what is given): seat count, options, `away_grace`,
    `turn_timer`, `take_backs` and `hints` between matches, the name (None: the default) at any
    time. Returns the room's id."""
    room = await room_by_code(session, code, lock=True)
    host_only(room, host_id)
    given = {"away_grace": away_grace, "turn_timer": turn_timer, "take_backs": take_backs, "hints": hints}
    timing = sorted(key for key, value in given.items() if value is not UNSET)
    if timing:
        if await MatchStore.running_match(session, room.id) is not None:
            raise Conflict(
                f"a match is running; {' and '.join(timing)} can be changed between matches",
                f"対戦中は{'・'.join(TABLE_MANNERS_JA[key] for key in timing)}を変えられません。"
                "対戦が終わってから変更してください",
            )
        if away_grace is not UNSET:
            if away_grace is None:
                raise Invalid(
                    f"away_grace must be {AWAY_GRACE_MIN} to {AWAY_GRACE_MAX} seconds",
                    f"離席の猶予は{AWAY_GRACE_MIN}〜{AWAY_GRACE_MAX}秒です",
                )
            room.away_grace = away_grace
        if turn_timer is not UNSET:
            room.turn_timer = turn_timer
        if take_backs is not UNSET:
            if take_backs not in TAKE_BACKS:
                raise Invalid(
                    "take_backs must be 'off' or 'until_next'", "待ったの設定は off か until_next です"
                )
            room.take_backs = take_backs
        if hints is not UNSET:
            if not isinstance(hints, bool):
                raise Invalid("hints must be true or false", "ヒントの設定は true か false です")
            room.hints = hints
    if seats is not None or options is not None:
        if await MatchStore.running_match(session, room.id) is not None:
            raise Conflict("a match is running; change the table after it ends", "対戦中は変更できません")
        game = game_or_error(room.game_id)
        new_seats = seats if seats is not None else room.seat_count
        new_options = options if options is not None else room.options
        check_table(game, new_seats, new_options)
        room.seat_count = new_seats
        room.options = dict(new_options)
        await session.execute(delete(RoomSeat).where(RoomSeat.room_id == room.id, RoomSeat.n >= new_seats))
    if name is not UNSET:
        room.name = clean_room_name(name) if name is not None else None
    return room.id
