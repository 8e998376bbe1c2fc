"""Reviewing a finished match: its step-by-step replay with every hand shown, its log, and its
analysis (what each person's decisions cost them, app/live/reviews.py)."""

from __future__ import annotations

import gzip
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, Response

from app.errors import error_responses
from app.limits import BIGINT_MAX
from app.live.replays import ReplayCache, export_log
from app.schemas import AnalysisPending, MatchAnalysisOut, MatchLogExport, ReplayOut
from app.services import SignedIn, get_services
from app.store.history import finished_match, match_review, stored_scores

router = APIRouter(prefix="/api")


def _cache(request: Request) -> ReplayCache:
    """This app's replay cache (per app, not per module: tests run several apps, each with its
    own database and so its own match ids)."""
    state = request.app.state
    if not hasattr(state, "replays"):
        state.replays = ReplayCache(job=get_services(request).metrics.job)
    return state.replays


@router.get(
    "/matches/{match_id}/replay", response_model=ReplayOut, responses=error_responses(401, 403, 404, 409)
)
async def match_replay(
    request: Request, person: SignedIn, match_id: int = Path(ge=1, le=BIGINT_MAX)
) -> Response:
    """One step per logged action with the all-seeing observer's view after it (patch-encoded,
    see app/live/replays.py); gzip when the client accepts it."""
    services = get_services(request)
    async with services.db.session() as session:
        review = await finished_match(session, services.tables.store, match_id, person.id)
    body = await _cache(request).gzipped(review)
    headers = {"Vary": "Accept-Encoding", "Cache-Control": "private, max-age=3600"}
    if "gzip" in request.headers.get("accept-encoding", "").lower():
        return Response(body, media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})
    return Response(gzip.decompress(body), media_type="application/json", headers=headers)


@router.get(
    "/matches/{match_id}/log", response_model=MatchLogExport, responses=error_responses(401, 403, 404, 409)
)
async def match_log(
    request: Request, person: SignedIn, match_id: int = Path(ge=1, le=BIGINT_MAX)
) -> dict[str, Any]:
    """The match as JSON that `game.replay(players, options, log)` rebuilds, with its stored scores."""
    services = get_services(request)
    async with services.db.session() as session:
        review = await finished_match(session, services.tables.store, match_id, person.id)
        hands, scores = await stored_scores(session, match_id)
    return export_log(review, hands, scores)


@router.get(
    "/matches/{match_id}/analysis",
    response_model=MatchAnalysisOut,
    responses={
        202: {"model": AnalysisPending, "description": "The analysis waits for a worker or runs"},
        **error_responses(401, 403, 404, 409),
    },
)
async def match_analysis(
    request: Request, person: SignedIn, match_id: int = Path(ge=1, le=BIGINT_MAX)
) -> Any:
    """The review of a finished match: per decision of each person's seat the best action and the
    loss, and per person a summary (200), or its progress while it waits or runs (202)."""
    services = get_services(request)
    async with services.db.session() as session:
        review = await match_review(session, match_id, person.id)
    progress = {"done": review.done, "total": review.total}
    if review.status in ("queued", "running"):
        services.reviews.kick()
        return JSONResponse({"status": review.status, "progress": progress}, status_code=202)
    result = review.result or {"decisions": [], "summaries": {}}
    return {
        "status": review.status,
        "budget": review.budget or asdict(services.reviews.budget),
        "with_every_hand_known": True,
        "progress": progress,
        "decisions": result["decisions"],
        "summaries": result["summaries"],
    }
