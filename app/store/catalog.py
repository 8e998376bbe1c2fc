"""The game catalog and the seed data a fresh database starts with.

Both steps are idempotent upserts, so they run at every start: new games appear as soon as the
engine registers them, and a re-run changes nothing.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import PROJECT_ROOT
from app.store.models import GameRow, Preset
from engine import GAMES, Game

log = logging.getLogger(__name__)

PRESETS_FILE = PROJECT_ROOT / "seeds" / "presets.json"


def game_defaults(game: Game) -> dict[str, Any]:
    """The engine's default options in JSON form (the table for the fewest players)."""
    return game.default_options(game.min_players)


def defaults_by_players(game: Game) -> dict[str, dict[str, Any]]:
    """Defaults per seat count, for games whose default table depends on it."""
    return {str(n): game.default_options(n) for n in range(game.min_players, game.max_players + 1)}


def options_order(game: Game) -> list[str]:
    """The option names in the order the game's `Options` declares them.

    The stored schema lives in a JSONB column, and JSONB sorts object keys, so the schema's
    `properties` come back alphabetical; forms follow this list instead. Taken from the schema
    the engine builds (not the stored one), so the names match `options_schema` even with aliases.
    """
    return list(game.Options.model_json_schema().get("properties", {}))


async def sync_catalog(session: AsyncSession) -> None:
    """Upsert one `games` row per game in the engine registry."""
    for game in GAMES.values():
        values = {
            "id": game.id,
            "names": dict(game.names),
            "min_players": game.min_players,
            "max_players": game.max_players,
            "default_options": game_defaults(game),
            "options_schema": game.Options.model_json_schema(),
        }
        statement = insert(GameRow).values(**values)
        update: dict[str, ColumnElement[Any]] = {
            key: statement.excluded[key] for key in values if key != "id"
        }
        update["updated_at"] = func.now()
        await session.execute(statement.on_conflict_do_update(index_elements=[GameRow.id], set_=update))


def load_presets(path: Path = PRESETS_FILE) -> dict[str, list[dict[str, Any]]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {game_id: presets for game_id, presets in raw.items() if not game_id.startswith("_")}


async def seed_presets(session: AsyncSession, path: Path = PRESETS_FILE) -> None:
    """Load option presets for every registered game; a game without a listed 'default' gets one.

    A preset whose options the engine rejects is skipped with a warning rather than stored, so a
    seed file can never offer a table that cannot start.
    """
    listed = load_presets(path)
    for game in GAMES.values():
        presets = list(listed.get(game.id, []))
        if not any(p["key"] == "default" for p in presets):
            presets.insert(0, {"key": "default", "names": {"en": "Default", "ja": "標準"}, "options": {}})
        for position, preset in enumerate(presets):
            seats = preset.get("seats") or game.min_players
            try:
                game.parse_options({**game.default_options(seats), **preset["options"]}, seats)
            except Exception as exc:  # noqa: BLE001 - any engine complaint means "do not offer it"
                log.warning("skipping preset %s/%s: %s", game.id, preset["key"], exc)
                continue
            values = {
                "game_id": game.id,
                "key": preset["key"],
                "names": preset["names"],
                "options": preset["options"],
                "seats": preset.get("seats"),
                "position": position,
            }
            statement = insert(Preset).values(**values)
            await session.execute(
                statement.on_conflict_do_update(
                    index_elements=[Preset.game_id, Preset.key],
                    set_={k: statement.excluded[k] for k in ("names", "options", "seats", "position")},
                )
            )
    unknown = sorted(set(listed) - set(GAMES))
    if unknown:
        log.info("presets for games not in the engine yet (skipped): %s", ", ".join(unknown))


async def catalog_rows(session: AsyncSession) -> list[GameRow]:
    return list((await session.execute(select(GameRow).order_by(GameRow.id))).scalars())


async def presets_by_game(session: AsyncSession) -> dict[str, list[dict[str, Any]]]:
    rows = (await session.execute(select(Preset).order_by(Preset.game_id, Preset.position))).scalars()
    result: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        result.setdefault(row.game_id, []).append(
            {"key": row.key, "names": row.names, "options": row.options, "seats": row.seats}
        )
    return result
