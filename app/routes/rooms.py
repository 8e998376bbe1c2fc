"""Rooms: private tables reached by invite code; seats, bots, options, start and rematch."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from app.errors import ApiError, error_responses
from app.limits import (
    AWAY_GRACE_DEFAULT,
    AWAY_GRACE_MAX,
    AWAY_GRACE_MIN,
    BIGINT_MAX,
    TURN_TIMER_MAX,
    TURN_TIMER_MIN,
)
from app.live import bus
from app.schemas import RoomInvitationOut, RoomLeaderboardEntry, RoomOut
from app.services import Services, SignedIn, current_person, get_services
from app.store import history, rooms, seats

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
    # The room's name; absent or null: the default ("‹host›'s ‹game› table"), see app/store/room_names.py.
    name: str | None = Field(default=None, max_length=500)
    away_grace: AwayGrace = AWAY_GRACE_DEFAULT
    turn_timer: TurnTimer | None = None
    take_backs: TakeBacks = "until_next"
    # Whether a seated person may ask for the strong bot's choice for their own seat (a hint).
    hints: bool = Field(default=False, strict=True)


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
    hints: bool | None = Field(default=None, strict=True)


class StartBody(BaseModel):
    # Play the same cards again: reuse this finished match's shuffles (a match of this room).
    same_deals_as: int | None = Field(default=None, ge=1, le=BIGINT_MAX)
    # With same_deals_as: every hand's cards go one seat round (seat s gets what seat s-1 had).
    rotate: bool = False


class SeatBody(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    as_: Literal["me", "bot"] = Field(default="me", alias="as")
    # With "bot": the host may hand a person's seat to a bot in one step (someone left the table).
    replace: bool = False
    # With "bot": how well it plays; absent keeps a seated bot's level, else the server default.
    level: Literal["basic", "strong"] | None = None


async def _room_answer(services: Services, code: str, viewer_id: int | None) -> dict[str, Any]:
    async with services.db.session() as session:
        return await rooms.room_json(session, code, viewer_id)


async def _announce(services: Services, room_id: int, match_id: int | None = None) -> None:
    """Tell every socket in the room that seats/options/members changed (and the table, if live)."""
    await services.pubsub.publish(bus.room_channel(room_id), bus.room_changed())
    if match_id is not None:
        await services.tables.seats_changed(match_id)


@router.post("", status_code=201, response_model=RoomOut, responses=error_responses(401, 403))
async def create_room(body: CreateRoomBody, request: Request, person: SignedIn) -> dict:
    """The creator becomes host and member; the invite code is the only way in."""
    services = get_services(request)
    async with services.db.session() as session:
        code = await rooms.create_room(
            session,
            person.id,
            body.game_id,
            body.seats,
            dict(body.options),
            body.preset,
            body.name,
            body.away_grace,
            body.turn_timer,
            body.take_backs,
            body.hints,
        )
    return await _room_answer(services, code, person.id)


@router.get("/{code}", response_model=RoomOut | RoomInvitationOut, responses=error_responses(404))
async def get_room(code: Code, request: Request) -> dict:
    """A signed-in person holding the code becomes a member by opening it and sees the room;
    without a session the code shows only the invitation (name, host, game)."""
    services = get_services(request)
    person = await current_person(request)
    async with services.db.session() as session:
        if person is None:
            return await rooms.invitation_json(session, code)
        room_id, joined = await rooms.open_room(session, code, person.id)
    if joined:
        await _announce(services, room_id)
    return await _room_answer(services, code, person.id)


@router.patch("/{code}", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def patch_room(code: Code, body: PatchRoomBody, request: Request, person: SignedIn) -> dict:
    """Host only. Seat count, options, `away_grace`, `turn_timer`, `take_backs` and `hints` change
    between matches; the name at any time."""
    services = get_services(request)
    sent = body.model_fields_set
    async with services.db.session() as session:
        room_id = await rooms.change_settings(
            session,
            code,
            person.id,
            seats=body.seats,
            options=body.options,
            **{
                key: getattr(body, key)
                for key in ("name", "away_grace", "turn_timer", "take_backs", "hints")
                if key in sent
            },
        )
    await _announce(services, room_id)
    return await _room_answer(services, code, person.id)


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
        change = await seats.take_seat(
            session,
            code,
            n,
            person.id,
            as_bot=body.as_ == "bot",
            replace=body.replace,
            level=body.level,
            default_level=services.settings.bot_level,
        )
    await _announce(services, change.room_id, change.match_id)
    return await _room_answer(services, code, person.id)


@router.delete("/{code}/seats/{n}", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def leave_seat(code: Code, n: SeatNumber, request: Request, person: SignedIn) -> dict:
    """Leave your own seat, or (host) clear anyone's. During a match a bot (the server's default
    level) plays a person's seat from then on, until someone takes it; the person who left keeps
    the seat's scores. A bot's seat cleared during a match waits, empty."""
    services = get_services(request)
    async with services.db.session() as session:
        change = await seats.leave_seat(session, code, n, person.id, services.settings.bot_level)
    await _announce(services, change.room_id, change.match_id)
    return await _room_answer(services, code, person.id)


@router.post("/{code}/start", response_model=RoomOut, responses=error_responses(401, 403, 404, 409))
async def start(code: Code, request: Request, person: SignedIn, body: StartBody | None = None) -> dict:
    """Host: start a match with the current seating (a rematch once the last one has ended).
    With `same_deals_as`, the new match deals the same cards as that finished match of this room
    (rotated one seat with `rotate`); see app/store/rematch.py."""
    body = body or StartBody()
    if body.rotate and body.same_deals_as is None:
        raise ApiError(
            422,
            "rotate needs same_deals_as: the match whose cards to deal again",
            "rotate には same_deals_as（同じ配札にする対戦）が必要です",
        )
    services = get_services(request)
    async with services.db.session() as session:
        ready = await seats.ready_to_start(session, code, person.id, body.same_deals_as)
        live = await services.tables.start_match(
            session,
            ready.room_id,
            ready.game_id,
            ready.players,
            ready.options,
            body.same_deals_as,
            body.rotate,
            turn_timer=ready.turn_timer,
            take_backs=ready.take_backs,
        )
    await services.tables.activate(live)
    await _announce(services, ready.room_id)
    return await _room_answer(services, code, person.id)


@router.get(
    "/{code}/leaderboard",
    response_model=list[RoomLeaderboardEntry],
    responses=error_responses(401, 403, 404),
)
async def leaderboard(code: Code, request: Request, person: SignedIn) -> list[dict[str, Any]]:
    """Cumulative scores of everyone who has played in this room (bots as one entry); members only."""
    async with get_services(request).db.session() as session:
        room = await rooms.require_member(session, code, person.id, "leaderboard")
        return await history.room_leaderboard(session, room.id)
