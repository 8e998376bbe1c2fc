"""The long-lived objects of one app instance, shared by every request and WebSocket."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from app.config import Settings
from app.errors import ApiError
from app.live.presence import Presence
from app.live.pubsub import PubSub
from app.live.reviews import Reviews
from app.live.sessions import SessionWatch
from app.live.tables import TableService
from app.metrics import Metrics
from app.security import SESSION_COOKIE
from app.store.db import Database
from app.store.models import Person
from app.store.people import person_by_token


@dataclass
class Services:
    settings: Settings
    db: Database
    pubsub: PubSub
    tables: TableService
    presence: Presence
    sessions: SessionWatch
    metrics: Metrics
    reviews: Reviews


def get_services(connection: HTTPConnection) -> Services:
    return connection.app.state.services


async def current_person(connection: HTTPConnection) -> Person | None:
    """The person whose session cookie came with this request or WebSocket, if any."""
    services = get_services(connection)
    token = connection.cookies.get(SESSION_COOKIE)
    if not token:
        return None
    async with services.db.session() as session:
        return await person_by_token(session, token)


async def require_person(request: Request) -> Person:
    person = await current_person(request)
    if person is None:
        raise ApiError(401, "choose a name first (no session)", "先に名前を決めてください（未ログイン）")
    return person


SignedIn = Annotated[Person, Depends(require_person)]
"""Route parameter type for endpoints that need a signed-in person (401 otherwise)."""
