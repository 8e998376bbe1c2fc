"""History: a person's matches, one match's score table, the overall leaderboard and a person's record."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Path, Request

from app.errors import error_responses
from app.limits import BIGINT_MAX
from app.schemas import LeaderboardEntry, MatchDetail, MatchSummary, PersonRecordOut
from app.services import SignedIn, get_services
from app.store.history import match_detail, my_matches, overall_leaderboard
from app.store.records import person_record

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


@router.get("/people/{person_id}/record", response_model=PersonRecordOut, responses=error_responses(401, 403))
async def record_of_person(
    request: Request, person: SignedIn, person_id: int = Path(ge=1, le=BIGINT_MAX)
) -> dict[str, Any]:
    """Per game: matches, wins, average place and hand score, and the last matches. For the person
    and people who share a room with them (403 otherwise)."""
    async with get_services(request).db.session() as session:
        return await person_record(session, person_id, person.id)
