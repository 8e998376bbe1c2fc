"""History: a person's matches, one match's score table, and the overall leaderboard."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.repository import match_detail, my_matches, overall_leaderboard
from app.services import SignedIn, get_services

router = APIRouter(prefix="/api")


@router.get("/me/matches")
async def matches_of_me(request: Request, person: SignedIn) -> list[dict[str, Any]]:
    async with get_services(request).db.session() as session:
        return await my_matches(session, person)


@router.get("/matches/{match_id}")
async def one_match(match_id: int, request: Request, person: SignedIn) -> dict[str, Any]:
    async with get_services(request).db.session() as session:
        return await match_detail(session, match_id, person)


@router.get("/leaderboard")
async def leaderboard(request: Request, person: SignedIn) -> list[dict[str, Any]]:
    async with get_services(request).db.session() as session:
        return await overall_leaderboard(session, person)
