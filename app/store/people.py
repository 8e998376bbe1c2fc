"""People: their identity and sessions, the names seats show, and the sign-in limit.

The sign-in limit: after `login_max_failures` wrong passwords for one account, or from one
client address, within `login_window_seconds`, sign-in answers 429 with Retry-After. Failures
live in PostgreSQL (`login_failures`, migration 0004), so every server process sharing the
database enforces the same limit and a restart does not reset it. Attempts that run at the same
moment may each pass the check, so the limit can be exceeded by the number of parallel
requests, never by more.
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Table, delete, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Invalid
from app.security import new_account_id, new_session_token, token_hash
from app.store.models import LoginFailure, Membership, Person, Session

BOT_NAME = "Bot"
"""What every bot's seat is called, in rooms, match pages and replays."""


def seat_name(kind: str | None, person_id: int | None, names: dict[int, str]) -> str | None:
    """The name a seat shows: its person's (`names` by id), "Bot" for a bot, else none."""
    if person_id is not None:
        return names.get(person_id)
    return BOT_NAME if kind == "bot" else None


async def names_of(session: AsyncSession, ids: set[int]) -> dict[int, str]:
    """Display names by person id."""
    if not ids:
        return {}
    rows = await session.execute(select(Person.id, Person.name).where(Person.id.in_(ids)))
    return {pid: name for pid, name in rows}


def clean_name(name: str) -> str:
    """Display names: trimmed, 1–32 characters, no control characters."""
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= 32:
        raise Invalid("a name must have 1 to 32 characters", "名前は1〜32文字にしてください")
    if any(not ch.isprintable() for ch in cleaned):
        raise Invalid("a name cannot contain control characters", "名前に制御文字は使えません")
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


async def person_by_id(session: AsyncSession, person_id: int) -> Person:
    person = await session.get(Person, person_id)
    if person is None:
        raise RuntimeError(f"person {person_id} is gone")
    return person


async def person_by_account(session: AsyncSession, account: str) -> Person | None:
    return await session.scalar(select(Person).where(Person.account == account))


async def rename(session: AsyncSession, person_id: int, name: str) -> tuple[Person, list[int]]:
    """Give the person a new name; returns them and the rooms they are a member of (whose open
    tables should show it at once)."""
    person = await person_by_id(session, person_id)
    person.name = clean_name(name)
    rooms = await session.scalars(select(Membership.room_id).where(Membership.person_id == person_id))
    return person, list(rooms)


async def set_password_hash(session: AsyncSession, person_id: int, hashed: str) -> Person:
    person = await person_by_id(session, person_id)
    person.password_hash = hashed
    return person


async def open_session(session: AsyncSession, person: Person) -> str:
    """A new cookie token for `person`; only its hash is stored."""
    token = new_session_token()
    session.add(Session(token_hash=token_hash(token), person_id=person.id))
    await session.flush()
    return token


async def close_session(session: AsyncSession, token: str) -> str:
    """Sign the session out; returns its hash (what the database and app/live/sessions.py know)."""
    hashed = token_hash(token)
    await session.execute(delete(Session).where(Session.token_hash == hashed))
    return hashed


async def existing_sessions(session: AsyncSession, hashes: list[str]) -> set[str]:
    """Which of these sessions (by token hash) still exist."""
    found = await session.scalars(select(Session.token_hash).where(Session.token_hash.in_(hashes)))
    return set(found)


async def person_by_token(session: AsyncSession, token: str | None) -> Person | None:
    if not token:
        return None
    return await session.scalar(
        select(Person)
        .join(Session, Session.person_id == Person.id)
        .where(Session.token_hash == token_hash(token))
    )


# ---- the sign-in limit ---------------------------------------------------------------------------
login_failures = cast(Table, LoginFailure.__table__)


async def retry_after(
    session: AsyncSession, account: str, address: str, *, limit: int, window: int
) -> int | None:
    """Seconds until another attempt is allowed, or None when it is allowed now."""
    since = func.now() - timedelta(seconds=window)
    waits = []
    for column, value in ((login_failures.c.account, account), (login_failures.c.address, address)):
        # The failure whose leaving the window brings the count below the limit.
        oldest_blocking = await session.scalar(
            select(func.extract("epoch", login_failures.c.failed_at - since))
            .where(column == value, login_failures.c.failed_at > since)
            .order_by(login_failures.c.failed_at.desc())
            .offset(limit - 1)
            .limit(1)
        )
        if oldest_blocking is not None:
            waits.append(max(1, math.ceil(float(oldest_blocking))))
    return max(waits) if waits else None


async def record_failure(session: AsyncSession, account: str, address: str, *, window: int) -> None:
    """Note one wrong password, and forget failures that left the window (keeps the table small)."""
    await session.execute(login_failures.insert().values(account=account[:64], address=address[:64]))
    await session.execute(
        delete(login_failures).where(
            login_failures.c.failed_at < func.now() - timedelta(seconds=window),
            or_(login_failures.c.account == account[:64], login_failures.c.address == address[:64]),
        )
    )
