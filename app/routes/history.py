"""History: a person's matches, one match's score table, and the overall leaderboard."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Request

from app.errors import error_responses
from app.limits import BIGINT_MAX
from app.schemas import LeaderboardEntry, MatchDetail, MatchSummary
from app.services import SignedIn, get_services
from app.store.history import match_detail, my_matches, overall_leaderboard

router = APIRouter(prefix="/api")


@router.get("/me/matches", response_model=list[MatchSummary], responses=error_responses(401))
async def matches_of_me(request: Request, person: SignedIn) -> list[dict[str, Any]]:
    async with get_services(request).db.session() as session:
        return await my_matches(session, person.id)


@router.get("/matches/{match_id}", response_model=MatchDetail, responses=error_responses(401, 404))
async def one_match(
    request: Request, person: SignedIn, match_id: int = Path(ge=1, le=BIGINT_MAX)
) -> dict[str, Any]:
    """Ids are PostgreSQL bigints: anything outside is refused (422) before a query is made."""
    async with get_services(request).db.session() as session:
        return await match_detail(session, match_id, person.id)


@router.get("/leaderboard", response_model=list[LeaderboardEntry], responses=error_responses(401))
async def leaderboard(request: Request, person: SignedIn) -> list[dict[str, Any]]:
    async with get_services(request).db.session() as session:
        return await overall_leaderboard(session, person.id)
