"""People: a name makes a durable identity held in a session cookie; a password is optional."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from app.errors import ApiError, error_responses
from app.live import bus
from app.schemas import PersonOut
from app.security import (
    SESSION_COOKIE,
    SESSION_MAX_AGE,
    check_password,
    hash_password_async,
    normalize_account_id,
)
from app.services import SignedIn, get_services
from app.store import people

router = APIRouter(prefix="/api")


class NameBody(BaseModel):
    # Documented as the 1-32 characters a name may have; the check itself (with a readable
    # message in both languages) is app/store/people.py clean_name's, after runs of spaces are tidied.
    name: str = Field(
        max_length=200,
        description="1 to 32 printable characters once spaces are tidied",
        json_schema_extra={"minLength": 1, "maxLength": 32},
    )


class PasswordBody(BaseModel):
    password: str = Field(max_length=1000)


class LoginBody(BaseModel):
    account: str = Field(max_length=64)
    password: str = Field(max_length=1000)


def _set_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=SESSION_MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=get_services(request).settings.secure_cookies,
        path="/",
    )


@router.post("/people", status_code=201, response_model=PersonOut, responses=error_responses(403))
async def create(body: NameBody, request: Request, response: Response) -> dict[str, Any]:
    """Choosing a name creates a person and signs this browser in as them."""
    async with get_services(request).db.session() as session:
        person = await people.create_person(session, body.name)
        token = await people.open_session(session, person)
        answer = people.person_json(person)
    _set_cookie(request, response, token)
    return answer


@router.get("/me", response_model=PersonOut, responses=error_responses(401))
async def me(person: SignedIn) -> dict[str, Any]:
    return people.person_json(person)


@router.patch("/me", response_model=PersonOut, responses=error_responses(401, 403))
async def rename(body: NameBody, request: Request, person: SignedIn) -> dict[str, Any]:
    services = get_services(request)
    async with services.db.session() as session:
        row, room_ids = await people.rename(session, person.id, body.name)
        answer = people.person_json(row)
    for room_id in room_ids:  # open tables show the new name at once
        await services.pubsub.publish(bus.room_channel(room_id), bus.room_changed())
    return answer


@router.post("/me/password", response_model=PersonOut, responses=error_responses(401, 403))
async def set_password(body: PasswordBody, request: Request, person: SignedIn) -> dict[str, Any]:
    """Add or change the password that lets this person sign in on another device."""
    if len(body.password) < 8:
        raise ApiError(422, "a password needs at least 8 characters", "パスワードは8文字以上にしてください")
    hashed = await hash_password_async(body.password)  # argon2 is slow on purpose
    async with get_services(request).db.session() as session:
        return people.person_json(await people.set_password_hash(session, person.id, hashed))


@router.post("/login", response_model=PersonOut, responses=error_responses(401, 403, 429))
async def login(body: LoginBody, request: Request, response: Response) -> dict[str, Any]:
    """Sign in with the public account id shown on the profile and the password.

    Too many wrong passwords for the account or from this address answer 429 (Retry-After) before
    any hashing; an unknown account costs the same argon2 work as a known one."""
    services = get_services(request)
    settings = services.settings
    account = normalize_account_id(body.account)
    address = request.client.host if request.client else "unknown"
    limits = {"limit": settings.login_max_failures, "window": settings.login_window_seconds}
    async with services.db.session() as session:
        wait = await people.retry_after(session, account, address, **limits)
        if wait is not None:
            raise ApiError(
                429,
                f"too many wrong passwords; try again in {wait} seconds",
                f"パスワードの誤りが多すぎます。{wait}秒後にもう一度お試しください",
                headers={"Retry-After": str(wait)},
            )
        person = await people.person_by_account(session, account)
    if not await check_password(person.password_hash if person else None, body.password) or person is None:
        async with services.db.session() as session:
            await people.record_failure(session, account, address, window=settings.login_window_seconds)
        raise ApiError(401, "wrong account id or password", "アカウントIDかパスワードが違います")
    async with services.db.session() as session:
        person = await people.person_by_id(session, person.id)
        token = await people.open_session(session, person)
        answer = people.person_json(person)
    _set_cookie(request, response, token)
    return answer


@router.post("/logout", status_code=204, response_class=Response, responses=error_responses(403))
async def logout(request: Request) -> Response:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        services = get_services(request)
        async with services.db.session() as session:
            hashed = await people.close_session(session, token)
        await services.sessions.signed_out(hashed)  # its open tables close, everywhere
    response = Response(status_code=204)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax")
    return response
