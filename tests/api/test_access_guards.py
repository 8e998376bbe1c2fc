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


async def test_the_code_alone_shows_the_invitation_and_only_members_see_the_leaderboard(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Hana") as hana,
        browser(server, "Outsider") as outsider,
        browser(server) as anonymous,
    ):
        code = (await make_room(hana, seats=3, hands=1))["code"]
        await hana.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await hana.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        await hana.post(f"/api/rooms/{code}/start")

        invitation = await anonymous.get(f"/api/rooms/{code}")
        full = await hana.get(f"/api/rooms/{code}")
        shared = ("code", "name", "display_name", "game_id", "game_names", "seat_count", "invite_url")
        assert invitation == {**{key: full[key] for key in shared}, "host_name": "Hana"}

        assert (await anonymous.http.get(f"/api/rooms/{code}/leaderboard")).status_code == 401
        refused = await outsider.http.get(f"/api/rooms/{code}/leaderboard")
        assert refused.status_code == 403 and refused.json()["messages"]["ja"]
        members = {m["name"] for m in (await hana.get(f"/api/rooms/{code}"))["members"]}
        assert members == {"Hana"}, "reading the leaderboard made the outsider a member"
        assert isinstance(await hana.get(f"/api/rooms/{code}/leaderboard"), list)
        # Opening the room with a session joins it, and then the leaderboard is theirs to see.
        assert (await outsider.get(f"/api/rooms/{code}"))["me"]["is_member"] is True
        assert isinstance(await outsider.get(f"/api/rooms/{code}/leaderboard"), list)

        head = await anonymous.http.head("/docs")
        assert head.status_code == 200 and head.headers["content-type"].startswith("text/html")

