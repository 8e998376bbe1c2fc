"""The game catalog, straight from the database rows synced from the engine registry."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from app.errors import error_responses
from app.schemas import GameOut
from app.services import get_services
from app.store.catalog import catalog_rows, defaults_by_players, options_order, presets_by_game
from engine import GAMES

router = APIRouter(prefix="/api")


@router.get("/games", response_model=list[GameOut], responses=error_responses())
async def list_games(request: Request) -> list[dict[str, Any]]:
    async with get_services(request).db.session() as session:
        rows = await catalog_rows(session)
        presets = await presets_by_game(session)
    answer = []
    for row in rows:
        game = GAMES.get(row.id)
        if game is None:
            continue  # a game the running engine no longer has cannot be played
        answer.append(
            {
                "id": row.id,
                "names": row.names,
                "min_players": row.min_players,
                "max_players": row.max_players,
                "default_options": row.default_options,
                "default_options_by_players": defaults_by_players(game),
                "options_schema": row.options_schema,
                "options_order": options_order(game),
                "presets": presets.get(row.id, []),
                "rules_url": f"/rules/{row.id}",
            }
        )
    return answer
