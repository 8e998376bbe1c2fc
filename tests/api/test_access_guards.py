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


async def test_during_a_match_a_person_takes_one_seat_and_sees_only_that_seat(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Newcomer") as newcomer,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await newcomer.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        await host.post(f"/api/rooms/{code}/start")

        second = await host.http.post(f"/api/rooms/{code}/seats/1", json={"as": "me"})
        assert second.status_code == 409 and "seat 0" in second.json()["detail"]
        assert second.json()["messages"]["ja"]
        room = await host.get(f"/api/rooms/{code}")
        assert room["me"]["seats"] == [0] and room["seats"][1]["kind"] == "bot"

        # Someone without a seat may take over a bot's seat, and is then shown that seat only.
        taken = await newcomer.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
        assert taken["me"]["seats"] == [2]
        async with newcomer.socket(code) as ws:
            state = await ws.wait_state()
            assert list(state["views"]) == ["2"] and state["spectator"] is None


async def test_familia_partners_seat_goes_to_one_person_only_at_the_two_person_table(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, bot_delay=5) as server,
        browser(server, "Anna") as anna,
        browser(server, "Ben") as ben,
    ):
        # Four people's table: Anna (seat 0) may not take her partner's seat 2 from its bot.
        code = (await make_room(anna, game_id="familia", seats=4, hands=1))["code"]
        await anna.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2, 3):
            await anna.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        await anna.post(f"/api/rooms/{code}/start")
        partner = await anna.http.post(f"/api/rooms/{code}/seats/2", json={"as": "me"})
        assert partner.status_code == 409

        # Two people's table: each holds a pair; Anna may take back the seat of her pair she left.
        code = (await make_room(anna, game_id="familia", seats=4, hands=1))["code"]
        await ben.get(f"/api/rooms/{code}")
        for n, who in ((0, anna), (2, anna), (1, ben), (3, ben)):
            await who.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
        await anna.post(f"/api/rooms/{code}/start")
        await anna.http.delete(f"/api/rooms/{code}/seats/2")
        back = await anna.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
        assert back["me"]["seats"] == [0, 2]
        # ...but not a seat of Ben's pair, which was never hers.
        await ben.http.delete(f"/api/rooms/{code}/seats/3")
        other_pair = await anna.http.post(f"/api/rooms/{code}/seats/3", json={"as": "me"})
        assert other_pair.status_code == 409
