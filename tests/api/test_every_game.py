"""Nothing in the server is specific to one game: every game in the engine registry can be set
up, started and played to the end by bots through the server, with its results stored."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text

from engine import GAMES
from tests.api.harness import browser, running_server

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("game_id", sorted(GAMES))
async def test_bots_play_a_one_hand_match_of_every_registered_game_to_the_end(
    database_url: str, game_id: str
) -> None:
    game = GAMES[game_id]
    seats = game.min_players
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Host") as host:
        room = await host.post(
            "/api/rooms", {"game_id": game_id, "seats": seats, "options": {"hands": 1}}, expect=201
        )
        code = room["code"]
        for n in range(seats):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        async with host.socket(code) as watcher:
            await watcher.recv()
            await host.post(f"/api/rooms/{code}/start")
            final = await watcher.wait_for(
                lambda m: m["type"] == "state" and m["spectator"]["to_act"] == [], 60
            )
        assert final["views"] == {} and final["spectator"]["hand"] == []

    engine = create_engine(database_url)
    with engine.connect() as conn:
        status, version = conn.execute(text("SELECT status, version FROM matches")).one()
        results = conn.execute(text("SELECT count(*) FROM match_results")).scalar_one()
        hands = conn.execute(text("SELECT count(*) FROM hand_results")).scalar_one()
    engine.dispose()
    assert status == "finished" and version == final["version"]
    assert results == seats and hands >= 1
