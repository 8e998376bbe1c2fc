"""The catalog keeps each game's option order, which the stored JSON schema loses."""

from __future__ import annotations

import pytest

from engine import GAMES
from tests.api.harness import browser, running_server

pytestmark = pytest.mark.asyncio


def declared_order(game_id: str) -> list[str]:
    """Option names as the game's `Options` class declares its fields (aliases as sent)."""
    fields = GAMES[game_id].Options.model_fields
    return [field.alias or name for name, field in fields.items()]


async def test_options_order_lists_every_option_in_the_order_each_game_declares_them(
    database_url: str,
) -> None:
    async with running_server(database_url) as server, browser(server) as anyone:
        catalog = {entry["id"]: entry for entry in await anyone.get("/api/games")}
    assert set(catalog) == set(GAMES)
    for game_id, entry in catalog.items():
        assert entry["options_order"] == declared_order(game_id), game_id
        assert set(entry["options_order"]) == set(entry["options_schema"]["properties"]), game_id
    # Why the list is needed: the schema read back from PostgreSQL (JSONB) has its keys reordered.
    reordered = [
        game_id
        for game_id, entry in catalog.items()
        if list(entry["options_schema"]["properties"]) != entry["options_order"]
    ]
    assert "familia" in reordered and "yaya-fugou" in reordered


async def test_the_match_length_comes_first_and_familia_keeps_its_seating_options_together(
    database_url: str,
) -> None:
    async with running_server(database_url) as server, browser(server) as anyone:
        catalog = {entry["id"]: entry for entry in await anyone.get("/api/games")}
    assert all(entry["options_order"][0] == "hands" for entry in catalog.values())
    assert catalog["familia"]["options_order"][1:4] == ["teams", "roles", "seating_rules"]
    assert catalog["yaya-fugou"]["options_order"] == [
        "hands",
        "points_daifugou",
        "points_fugou",
        "points_yaya_fugou",
        "exchange",
        "revolution",
    ]
