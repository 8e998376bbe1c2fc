"""Rooms: private tables reached by invite code; seats, bots, options, start and rematch."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import delete, select

from app.deadlines import (
    AWAY_GRACE_DEFAULT,
    AWAY_GRACE_MAX,
    AWAY_GRACE_MIN,
    TURN_TIMER_MAX,
    TURN_TIMER_MIN,
    room_extras,
)
from app.errors import ApiError, error_responses
from app.limits import check_option_bounds
from app.match_store import MatchStore
from app.models import MatchRow, MatchSeat, Person, Room, RoomSeat
from app.repository import (
    check_seat_count,
    effective_options,
    game_or_error,
    invitation_json,
    is_member,
    join_room,
    room_by_code,
    room_json,
    room_leaderboard,
    room_seats,
)
from app.room_names import clean_room_name
from app.schemas import RoomInvitationOut, RoomLeaderboardEntry, RoomOut
from app.security import new_invite_code
from app.services import Services, SignedIn, current_person, get_services
from app.tables import room_channel
from engine import get_game

router = APIRouter(prefix="/api/rooms")


SeatCount = Annotated[int, Field(strict=True, ge=1, le=16)]
"""A seat count is a JSON integer (not `"4"`, not `false`); each game narrows the range further."""
Code = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
"""Invite codes are URL-safe base64; anything else cannot name a room."""
SeatNumber = Annotated[int, Path(ge=0, le=63)]


AwayGrace = Annotated[int, Field(strict=True, ge=AWAY_GRACE_MIN, le=AWAY_GRACE_MAX)]
"""Seconds a seated person may be disconnected while the table waits before a bot plays for them."""
TurnTimer = Annotated[int, Field(strict=True, ge=TURN_TIMER_MIN, le=TURN_TIMER_MAX)]
"""Seconds a person's turn may last before a bot plays that move for them."""
TakeBacks = Literal["off", "until_next"]
"""Whether a person may take back their own last action until someone acts."""


class CreateRoomBody(BaseModel):
    game_id: str = Field(max_length=64)
    seats: SeatCount | None = None
    options: dict[str, Any] = Field(default_factory=dict)
    preset: str | None = Field(default=None, max_length=64)
    # The room's name; absent or null: the default ("‹host›'s ‹game› table"), see app/room_names.py.
    name: str | None = Field(default=None, max_length=500)
    away_grace: AwayGrace = AWAY_GRACE_DEFAULT
    turn_timer: TurnTimer | None = None
    take_backs: TakeBacks = "until_next"


class PatchRoomBody(BaseModel):
    """Every field is optional and independent: only the ones sent change. `turn_timer: null`
    turns the timer off (absent leaves it as it is)."""

    seats: SeatCount | None = None
    options: dict[str, Any] | None = None
    # A new room name; null goes back to the default name. Allowed during a match.
    name: str | None = Field(default=None, max_length=500)
    # Between matches only (a running match keeps the deadlines it started with).
    away_grace: AwayGrace | None = None
    turn_timer: TurnTimer | None = None
    take_backs: TakeBacks | None = None


class StartBody(BaseModel):
    # Play the same cards again: reuse this finished match's shuffles (a match of this room).
    same_deals_as: int | None = Field(default=None, ge=1, le=2**63 - 1)
    # With same_deals_as: every hand's cards go one seat round (seat s gets what seat s-1 had).
    rotate: bool = False


class SeatBody(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    as_: Literal["me", "bot"] = Field(default="me", alias="as")
    # With "bot": the host may hand a person's seat to a bot in one step (someone left the table).
    replace: bool = False
    # With "bot": how well it plays; absent keeps a seated bot's level, else the server default.
    level: Literal["basic", "strong"] | None = None


async def _running_match(session: Any, room_id: int) -> MatchRow | None:
    return await MatchStore.running_match(session, room_id)


async def _room_answer(services: Services, code: str, viewer: Person | None) -> dict[str, Any]:
    async with services.db.session() as session:
        room = await room_by_code(session, code)
        answer = await room_json(session, room, viewer, await services.presence.connected(session, room.id))
        return await room_extras(session, room, answer)


async def _announce(services: Services, room_id: int, match_id: int | None = None) -> None:
    """Tell every socket in the room that seats/options/members changed (and the table, if live)."""
    await services.pubsub.publish(room_channel(room_id), {"kind": "room"})
    if match_id is not None:
        await services.tables.seats_changed(match_id)


def _host_only(room: Room, person: Person) -> None:
    if room.host_id != person.id:
        raise ApiError(403, "only the host can do that", "それはホストだけができます")


@router.post("", status_code=201, response_model=RoomOut, responses=error_responses(401, 403))
async def create_room(body: CreateRoomBody, request: Request, person: SignedIn) -> dict:
    """The creator becomes host and member; the invite code is the only way in."""
    services = get_services(request)
    game = game_or_error(body.game_id)
    check_option_bounds(body.options)
    options = dict(body.options)
    seats = body.seats
    if body.preset is not None:
        async with services.db.session() as session:
            from app.models import Preset

            preset = await session.scalar(
                select(Preset).where(Preset.game_id == game.id, Preset.key == body.preset)
            )
        if preset is None:
            raise ApiError(
                422, f"no preset {body.preset!r} for this game", f"プリセット {body.preset!r} はありません"
            )
        options = {**preset.options, **options}
        seats = seats or preset.seats
    seats = seats or game.min_players
    check_seat_count(game, seats)
    effective_options(game, seats, options)
    name = clean_room_name(body.name) if body.name is not None else None
    async with services.db.session() as session:
        room = Room(
            code=new_invite_code(),
            game_id=game.id,
            host_id=person.id,
            seat_count=seats,
            options=options,
            name=name,
            away_grace=body.away_grace,
            turn_timer=body.turn_timer,
            take_backs=body.take_backs,
        )
        session.add(room)
        await session.flush()
        await join_room(session, room, person)
        code = room.code
    return await _room_answer(services, code, person)


@router.get("/{code}", response_model=RoomOut | RoomInvitationOut, responses=error_responses(404))
async def get_room(code: Code, request: Request) -> dict:
    """A signed-in person holding the code becomes a member by opening it and sees the room;
    without a session the code shows only the invitation (name, host, game)."""
    services = get_services(request)
    person = await current_person(request)
    async with services.db.session() as session:
        room = await room_by_code(session, code)
        if person is None:
            return await invitation_json(session, room)
        joined = await join_room(session, room, person)
        room_id = room.id
    if joined:
        await _announce(services, room_id)
    return await _room_answer(services, code, person)


@router.patch("/{code}", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def patch_room(code: Code, body: PatchRoomBody, request: Request, person: SignedIn) -> dict:
    """Host only. Seat count, options, `away_grace`, `turn_timer` and `take_backs` change between
    matches; the name at any time."""
    services = get_services(request)
    async with services.db.session() as session:
        room = await room_by_code(session, code, lock=True)
        _host_only(room, person)
        if TABLE_MANNERS.keys() & body.model_fields_set:
            await _change_timing(session, room, body)
        if body.seats is not None or body.options is not None:
            await _change_table(session, room, body)
        if "name" in body.model_fields_set:
            room.name = clean_room_name(body.name) if body.name is not None else None
        room_id = room.id
    await _announce(services, room_id)
    return await _room_answer(services, code, person)


TABLE_MANNERS = {
    "away_grace": "離席の猶予",
    "turn_timer": "手番の制限時間",
    "take_backs": "待った（手の取り消し）",
}
"""Room settings a running match holds fixed (its deadlines, its take-backs), with their Japanese names."""


async def _change_timing(session: Any, room: Room, body: PatchRoomBody) -> None:
    """`away_grace`, `turn_timer` and/or `take_backs`, which a running match holds fixed."""
    timing = TABLE_MANNERS.keys() & body.model_fields_set
    if await _running_match(session, room.id) is not None:
        names = " and ".join(sorted(timing))
        names_ja = "・".join(TABLE_MANNERS[name] for name in sorted(timing))
        raise ApiError(
            409,
            f"a match is running; {names} can be changed between matches",
            f"対戦中は{names_ja}を変えられません。対戦が終わってから変更してください",
        )
    if "away_grace" in timing:
        if body.away_grace is None:
            raise ApiError(
                422,
                f"away_grace must be {AWAY_GRACE_MIN} to {AWAY_GRACE_MAX} seconds",
                f"離席の猶予は{AWAY_GRACE_MIN}〜{AWAY_GRACE_MAX}秒です",
            )
        room.away_grace = body.away_grace
    if "turn_timer" in timing:
        room.turn_timer = body.turn_timer
    if "take_backs" in timing:
        if body.take_backs is None:
            raise ApiError(
                422, "take_backs must be 'off' or 'until_next'", "待ったの設定は off か until_next です"
            )
        room.take_backs = body.take_backs


async def _change_table(session: Any, room: Room, body: PatchRoomBody) -> None:
    """The seat count and/or options, which a running match holds fixed."""
    if await _running_match(session, room.id) is not None:
        raise ApiError(409, "a match is running; change the table after it ends", "対戦中は変更できません")
    game = game_or_error(room.game_id)
    seats = body.seats if body.seats is not None else room.seat_count
    options = body.options if body.options is not None else room.options
    check_option_bounds(options)
    check_seat_count(game, seats)
    effective_options(game, seats, options)
    room.seat_count = seats
    room.options = dict(options)
    await session.execute(delete(RoomSeat).where(RoomSeat.room_id == room.id, RoomSeat.n >= seats))


@router.post("/{code}/seats/{n}", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def take_seat(code: Code, n: SeatNumber, body: SeatBody, request: Request, person: SignedIn) -> dict:
    """`{"as": "me"}` sits down (an empty seat, or one a bot keeps warm); `{"as": "bot"}` lets the
    host seat a bot. During a match this is how a bot takes over for someone who left, and how
    a person takes a bot's seat back. `{"as": "bot", "replace": true}` lets the host give a
    person's seat to a bot at once; that person stays credited with the seat's scores.
    `"level": "basic" | "strong"` chooses the bot's level (the host may change it on a bot's
    seat at any time, also during a match); without it a new bot gets the server's default."""
    services = get_services(request)
    async with services.db.session() as session:
        room = await room_by_code(session, code, lock=True)
        await join_room(session, room, person)
        if not 0 <= n < room.seat_count:
            raise ApiError(
                404, f"this room has seats 0 to {room.seat_count - 1}", f"席は0〜{room.seat_count - 1}番です"
            )
        seats = await room_seats(session, room.id)
        current = seats.get(n)
        running = await _running_match(session, room.id)
        if body.as_ == "me":
            if current is not None and current.kind == "person" and current.person_id != person.id:
                raise ApiError(409, f"seat {n} is taken", f"{n}番の席はふさがっています")
            if running is not None:
                await _check_one_seat(session, running, seats, n, person)
            if current is None:
                session.add(RoomSeat(room_id=room.id, n=n, kind="person", person_id=person.id))
            else:
                current.kind, current.person_id, current.bot_level = "person", person.id, None
            if running is not None:
                await MatchStore.seat_changed(session, running.id, n, "person", person.id)
        else:
            _host_only(room, person)
            if current is not None and current.kind == "person" and not body.replace:
                raise ApiError(
                    409,
                    f"seat {n} has a person in it; remove them first",
                    f"{n}番の席には人がいます。先に外してください",
                )
            kept = current.bot_level if current is not None and current.kind == "bot" else None
            level = body.level or kept or services.settings.bot_level
            if current is None:
                session.add(RoomSeat(room_id=room.id, n=n, kind="bot", person_id=None, bot_level=level))
            else:
                current.kind, current.person_id, current.bot_level = "bot", None, level
            if running is not None:
                await MatchStore.seat_changed(session, running.id, n, "bot")
        room_id, match_id = room.id, (running.id if running else None)
    await _announce(services, room_id, match_id)
    return await _room_answer(services, code, person)


async def _check_one_seat(
    session: Any, running: MatchRow, seats: dict[int, RoomSeat], n: int, person: Person
) -> None:
    """During a match a person holds one seat: each seat's view goes to its holder, so a second
    seat would show them another hand (in Familia, their partner's). The one exception is the
    game's own: a person taking back a seat of their team that was theirs in this match
    (Familia's two-person table, where each person plays both seats of a pair)."""
    held = sorted(k for k, seat in seats.items() if k != n and seat.person_id == person.id)
    if not held:
        return
    teams = get_game(running.game_id).new_match(running.players, running.options).teams
    credited = await session.scalar(
        select(MatchSeat.person_id).where(MatchSeat.match_id == running.id, MatchSeat.n == n)
    )
    if teams is not None and credited == person.id and all(teams[k] == teams[n] for k in held):
        return
    listed = ", ".join(str(k) for k in held)
    raise ApiError(
        409,
        f"you already hold seat {listed} of this match; a person plays one seat of a match",
        f"この対戦ではすでに{listed}番の席に座っています。1人が座れるのは1つの席だけです",
    )


@router.delete("/{code}/seats/{n}", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def leave_seat(code: Code, n: SeatNumber, request: Request, person: SignedIn) -> dict:
    """Leave your own seat, or (host) clear anyone's. During a match the seat waits, empty, until
    the host gives it to a bot or someone takes it."""
    services = get_services(request)
    async with services.db.session() as session:
        room = await room_by_code(session, code, lock=True)
        seats = await room_seats(session, room.id)
        current = seats.get(n)
        if current is None:
            raise ApiError(409, f"seat {n} is already empty", f"{n}番の席は空いています")
        if not (current.kind == "person" and current.person_id == person.id):
            _host_only(room, person)
        await session.delete(current)
        running = await _running_match(session, room.id)
        if running is not None:
            await MatchStore.seat_changed(session, running.id, n, None)
        room_id, match_id = room.id, (running.id if running else None)
    await _announce(services, room_id, match_id)
    return await _room_answer(services, code, person)


@router.post("/{code}/start", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def start(code: Code, request: Request, person: SignedIn, body: StartBody | None = None) -> dict:
    """Host: start a match with the current seating (a rematch once the last one has ended).
    With `same_deals_as`, the new match deals the same cards as that finished match of this room
    (rotated one seat with `rotate`); see app/rematch.py."""
    body = body or StartBody()
    if body.rotate and body.same_deals_as is None:
        raise ApiError(
            422,
            "rotate needs same_deals_as: the match whose cards to deal again",
            "rotate には same_deals_as（同じ配札にする対戦）が必要です",
        )
    services = get_services(request)
    async with services.db.session() as session:
        room = await room_by_code(session, code, lock=True)
        _host_only(room, person)
        if await _running_match(session, room.id) is not None:
            raise ApiError(409, "a match is already running", "すでに対戦中です")
        game = game_or_error(room.game_id)
        seats = await room_seats(session, room.id)
        empty = [n for n in range(room.seat_count) if n not in seats]
        if empty:
            listed = ", ".join(str(n) for n in empty)
            raise ApiError(
                409,
                f"empty seats: {listed}; fill them with people or bots first",
                f"空席があります（{listed}）。人かボットで埋めてください",
            )
        if body.same_deals_as is not None:
            await _check_same_deals(session, room, person, body.same_deals_as)
        options = effective_options(game, room.seat_count, room.options)
        live = await services.tables.start_match(
            session,
            room.id,
            game.id,
            room.seat_count,
            options,
            body.same_deals_as,
            body.rotate,
            turn_timer=room.turn_timer,
            take_backs=room.take_backs,
        )
        room_id = room.id
    await services.tables.activate(live)
    await _announce(services, room_id)
    return await _room_answer(services, code, person)


async def _check_same_deals(session: Any, room: Room, person: Person, source_id: int) -> None:
    """The match whose cards are dealt again must be a finished match of this room's game and
    seat count, played in this room. A match of a room the host is not a member of is "not found"."""
    source = await session.get(MatchRow, source_id)
    if source is None or not await is_member(session, source.room_id, person.id):
        raise ApiError(
            404, f"there is no match {source_id} you can see", f"対戦 {source_id} は見つかりません"
        )
    if source.status != "finished":
        raise ApiError(
            409,
            f"match {source_id} has not finished; only a finished match's cards can be dealt again",
            f"対戦 {source_id} はまだ終わっていません。終わった対戦の配札だけを使えます",
        )
    if source.game_id != room.game_id:
        raise ApiError(
            409,
            f"match {source_id} was a game of {source.game_id}; this room plays {room.game_id}",
            f"対戦 {source_id} は別のゲーム（{source.game_id}）です。この部屋のゲームは {room.game_id} です",
        )
    if source.players != room.seat_count:
        raise ApiError(
            409,
            f"match {source_id} had {source.players} seats; this room has {room.seat_count}",
            f"対戦 {source_id} は{source.players}席でした。この部屋は{room.seat_count}席です",
        )
    if source.room_id != room.id:
        raise ApiError(
            409,
            f"match {source_id} was played in another room; only this room's matches can be dealt again here",
            f"対戦 {source_id} は別の部屋の対戦です。この部屋の対戦の配札だけを使えます",
        )


@router.get(
    "/{code}/leaderboard",
    response_model=list[RoomLeaderboardEntry],
    responses=error_responses(401, 403, 404),
)
async def leaderboard(code: Code, request: Request, person: SignedIn) -> list[dict[str, Any]]:
    """Cumulative scores of everyone who has played in this room (bots as one entry); members only."""
    async with get_services(request).db.session() as session:
        room = await room_by_code(session, code)
        if not await is_member(session, room.id, person.id):
            raise ApiError(
                403,
                "only the room's members can see its leaderboard; open the room first",
                "ランキングは部屋のメンバーだけが見られます。先に部屋を開いてください",
            )
        return await room_leaderboard(session, room)
