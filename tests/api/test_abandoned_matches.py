"""A match that bots finished after every person had left is abandoned: history and its page
say so, and it counts in no leaderboard; a match a person saw through counts as before."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import create_engine, text

from tests.api.harness import browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio

FAST = {"deadline_scale": 0.02, "deadline_poll": 0.05, "bot_level": "basic"}


def _status(database_url: str, match_id: int) -> tuple[str, bool]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            status, abandoned = conn.execute(
                text("SELECT status, abandoned FROM matches WHERE id = :m"), {"m": match_id}
            ).one()
    finally:
        engine.dispose()
    return status, abandoned


async def test_a_match_bots_finish_after_everyone_left_is_abandoned_and_left_out_of_leaderboards(
    database_url: str,
) -> None:
    async with running_server(database_url, bot_delay=0, **FAST) as server, browser(server, "Ada") as ada:
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await ada.http.patch(f"/api/rooms/{code}", json={"away_grace": 10})  # 0.2 s here
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await ada.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot", "level": "basic"})

        # First match: Ada plays it to the end, connected.
        async with ada.socket(code) as ada_ws:
            await ada_ws.wait_for(lambda m: m["type"] == "room")
            played = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
            await play_until_over([ada_ws], timeout=90, match_id=played)
        assert _status(database_url, played) == ("finished", False)

        # Second match: Ada leaves at once; a stand-in bot plays her seat to the end.
        async with ada.socket(code) as ada_ws:
            await ada_ws.wait_for(lambda m: m["type"] == "room")
            left = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
            await ada_ws.wait_state()
        for _ in range(600):
            if _status(database_url, left)[0] == "finished":
                break
            await asyncio.sleep(0.1)
        assert _status(database_url, left) == ("finished", True)

        history = {m["id"]: m for m in await ada.get("/api/me/matches")}
        assert history[played]["abandoned"] is False and history[left]["abandoned"] is True
        assert (await ada.get(f"/api/matches/{left}"))["abandoned"] is True
        # Only the match she saw through counts: one match in both leaderboards.
        board = await ada.get(f"/api/rooms/{code}/leaderboard")
        mine = next(entry for entry in board if entry.get("person_id") == ada.me["id"])
        assert mine["matches"] == 1, board
        overall = await ada.get("/api/leaderboard")
        assert next(e for e in overall if e.get("person_id") == ada.me["id"])["matches"] == 1, overall
