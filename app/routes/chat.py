"""The chat's history over HTTP: a room's recent lines, and the lines of one match's time span.

Lines are sent over the room's WebSocket (`app/routes/ws.py`, `app/store/chat.py`); these routes let
a person who joins or reconnects read what was said, and the match page show a finished match's
chat. Members only.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request

from app.errors import error_responses
from app.limits import BIGINT_MAX
from app.routes.rooms import Code
from app.schemas import ChatPage
from app.services import SignedIn, get_services
from app.store import chat
from app.store.history import visible_match
from app.store.rooms import require_member

router = APIRouter(prefix="/api")

Before = Annotated[int | None, Query(ge=1, le=BIGINT_MAX, description="only lines older than this id")]
Limit = Annotated[int, Query(ge=1, le=chat.MAX_PAGE, description="lines per page")]


@router.get("/rooms/{code}/chat", response_model=ChatPage, responses=error_responses(401, 403, 404))
async def room_chat(
    code: Code, request: Request, person: SignedIn, before: Before = None, limit: Limit = chat.DEFAULT_PAGE
) -> dict[str, Any]:
    """The room's latest lines (or those before `before`), newest last."""
    async with get_services(request).db.session() as session:
        room = await require_member(session, code, person.id, "chat")
        return await chat.page(session, room.id, before=before, limit=limit)


@router.get("/matches/{match_id}/chat", response_model=ChatPage, responses=error_responses(401, 404))
async def match_chat(
    request: Request,
    person: SignedIn,
    match_id: int = Path(ge=1, le=BIGINT_MAX),
    before: Before = None,
    limit: Limit = chat.DEFAULT_PAGE,
) -> dict[str, Any]:
    """The room's lines written while this match ran (from its start to its end, or to now)."""
    async with get_services(request).db.session() as session:
        row = await visible_match(session, match_id, person.id)
        return await chat.page(
            session, row.room_id, before=before, limit=limit, since=row.created_at, until=row.finished_at
        )
