"""Who may see and drive a table (issue #26): a match of another room is refused before it is
loaded, a room's code shows only the invitation, one seat per person during a match, seat
changes reach every process, and a socket ends with its session."""

from __future__ import annotations

import pytest

from tests.api.harness import browser, make_room, running_server

pytestmark = pytest.mark.asyncio


async def test_an_action_naming_another_rooms_match_is_refused_without_loading_it(database_url: str) -> None:
    async with (
        running_server(database_url) as one,
        running_server(database_url) as two,
        browser(one, "Host") as host,
        browser(two, "Stranger") as stranger,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        match_id = (await host.post(f"/api/rooms/{code}/start"))["match"]["id"]

        own_code = (await make_room(stranger))["code"]
        async with stranger.socket(own_code) as ws:
            await ws.wait_for(lambda m: m["type"] == "room")
            for named in (match_id, match_id + 1000, 2**70):
                await ws.act(0, 0, {"type": "play", "cards": ["x"]}, match_id=named)
                error = await ws.wait_for(lambda m: m["type"] == "error")
                assert error["code"] == ("forbidden" if named == match_id else "illegal"), error
        tables = two.services.tables
        assert tables.live(match_id) is None, "the other room's match was loaded to refuse it"
        assert match_id not in tables._locks
