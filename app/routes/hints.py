"""Hints: the strong bot's choice for one's own seat, in rooms whose host turned hints on."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field

from app.errors import error_responses
from app.limits import BIGINT_MAX
from app.live.hints import HintLimiter, give_hint
from app.schemas import HintOut
from app.services import SignedIn, get_services

router = APIRouter(prefix="/api")


class HintBody(BaseModel):
    seat: int = Field(strict=True, ge=0, le=63)
    # The state version the person sees (the table's `version`): a hint answers that state only.
    version: int = Field(strict=True, ge=0, le=2_000_000_000)


def _limiter(request: Request) -> HintLimiter:
    """This app's limiter (per app: tests run several apps)."""
    state = request.app.state
    if not hasattr(state, "hint_limiter"):
        state.hint_limiter = HintLimiter()
    return state.hint_limiter


@router.post(
    "/matches/{match_id}/hint", response_model=HintOut, responses=error_responses(401, 403, 404, 409, 429)
)
async def hint(
    body: HintBody, request: Request, person: SignedIn, match_id: int = Path(ge=1, le=BIGINT_MAX)
) -> dict[str, Any]:
    """The strong bot's choice for the person's own seat, from what that seat may know: the
    actions to make (several for a set the game takes one card at a time). Only in rooms with
    hints on (403 otherwise), for the person playing the seat (403), on its turn at the version
    sent (409), at most 10 searches a minute (429; the same state's hint again is free)."""
    services = get_services(request)
    return await give_hint(services, _limiter(request), person.id, match_id, body.seat, body.version)
