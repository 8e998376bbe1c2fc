"""Rooms: invite codes, membership, seats, bots, options and starting a match (REST side)."""

from __future__ import annotations

import pytest

from tests.api.harness import browser, make_room, running_server

pytestmark = pytest.mark.asyncio


async def test_creating_a_room_makes_the_creator_host_and_gives_an_unguessable_invite(
    database_url: str,
) -> None:
    async with running_server(database_url) as server, browser(server, "Hana") as hana:
        room = await make_room(hana, seats=4, hands=2)
        assert room["host_id"] == hana.me["id"]
        assert room["invite_url"] == f"/r/{room['code']}"
        assert len(room["code"]) >= 22  # 16 random bytes, URL-safe
        assert room["options"] == {"hands": 2} and room["option_overrides"] == {"hands": 2}
        assert [s["kind"] for s in room["seats"]] == [None] * 4
        assert room["members"] == [
            {"person_id": hana.me["id"], "name": "Hana", "connected": False, "is_host": True}
        ]
        assert room["match"] is None
        other = await make_room(hana)
        assert other["code"] != room["code"]


async def test_a_wrong_code_is_404_and_only_code_holders_become_members(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        room = await make_room(host)
        missing = await guest.http.get(f"/api/rooms/{room['code']}x")
        assert missing.status_code == 404 and "invite code" in missing.json()["detail"]
        assert (
            await guest.http.post(f"/api/rooms/{room['code']}x/seats/0", json={"as": "me"})
        ).status_code == 404

        seen = await guest.get(f"/api/rooms/{room['code']}")
        assert {m["name"] for m in seen["members"]} == {"Host", "Guest"}
        assert seen["me"] == {"person_id": guest.me["id"], "is_host": False, "is_member": True, "seats": []}


async def test_invalid_rooms_are_refused_with_readable_reasons(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Ada") as ada:
        unknown = await ada.http.post("/api/rooms", json={"game_id": "chess", "seats": 2})
        assert unknown.status_code == 422 and "unknown game" in unknown.json()["detail"]
        too_many = await ada.http.post("/api/rooms", json={"game_id": "holy-grail", "seats": 11})
        assert too_many.status_code == 422 and "3 to 10" in too_many.json()["detail"]
        bad_option = await ada.http.post(
            "/api/rooms", json={"game_id": "holy-grail", "seats": 3, "options": {"colour": 1}}
        )
        assert bad_option.status_code == 422 and "colour" in bad_option.json()["detail"]
        async with browser(server) as anonymous:
            response = await anonymous.http.post("/api/rooms", json={"game_id": "holy-grail", "seats": 3})
            assert response.status_code == 401


async def test_members_take_and_leave_seats_and_one_person_may_hold_several(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, seats=4))["code"]
        await guest.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        room = await host.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
        assert room["me"]["seats"] == [0, 2]
        taken = await guest.http.post(f"/api/rooms/{code}/seats/0", json={"as": "me"})
        assert taken.status_code == 409 and "taken" in taken.json()["detail"]
        room = await guest.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        assert [(s["kind"], s["name"]) for s in room["seats"]] == [
            ("person", "Host"),
            ("person", "Guest"),
            ("person", "Host"),
            (None, None),
        ]
        # A guest cannot clear someone else's seat; the host can.
        refused = await guest.http.delete(f"/api/rooms/{code}/seats/2")
        assert refused.status_code == 403 and "host" in refused.json()["detail"]
        room = (await host.http.delete(f"/api/rooms/{code}/seats/1")).json()
        assert room["seats"][1]["kind"] is None
        room = (await host.http.delete(f"/api/rooms/{code}/seats/2")).json()
        assert room["me"]["seats"] == [0]
        out_of_range = await guest.http.post(f"/api/rooms/{code}/seats/4", json={"as": "me"})
        assert out_of_range.status_code == 404


async def test_only_the_host_adds_bots_and_a_person_may_replace_a_bot(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host))["code"]
        await guest.get(f"/api/rooms/{code}")
        refused = await guest.http.post(f"/api/rooms/{code}/seats/1", json={"as": "bot"})
        assert refused.status_code == 403
        room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        assert room["seats"][1] == {
            "n": 1,
            "kind": "bot",
            "person_id": None,
            "name": "Bot",
            "connected": True,
            "level": "strong",
        }
        await guest.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
        on_person = await host.http.post(f"/api/rooms/{code}/seats/2", json={"as": "bot"})
        assert on_person.status_code == 409
        room = await guest.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        assert room["seats"][1]["kind"] == "person" and room["seats"][1]["person_id"] == guest.me["id"]


async def test_the_host_changes_seats_and_options_before_the_start_only(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, seats=5))["code"]
        await guest.get(f"/api/rooms/{code}")
        await guest.post(f"/api/rooms/{code}/seats/4", {"as": "me"})
        assert (await guest.http.patch(f"/api/rooms/{code}", json={"seats": 3})).status_code == 403
        bad = await host.http.patch(f"/api/rooms/{code}", json={"options": {"hands": 0}})
        assert bad.status_code == 422 and "at least one hand" in bad.json()["detail"]
        assert bad.json()["messages"]["ja"] == "1ハンド以上を指定してください"  # the engine's own Japanese
        room = (
            await host.http.patch(f"/api/rooms/{code}", json={"seats": 3, "options": {"hands": 1}})
        ).json()
        assert room["seat_count"] == 3 and len(room["seats"]) == 3 and room["options"] == {"hands": 1}
        assert room["me"]["seats"] == []  # seat 4 no longer exists, so the guest's seat went with it

        for n in range(3):
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot" if n else "me"})
        started = await host.post(f"/api/rooms/{code}/start")
        assert started["match"]["status"] == "running" and started["match"]["number"] == 1
        late = await host.http.patch(f"/api/rooms/{code}", json={"seats": 4})
        assert late.status_code == 409 and "running" in late.json()["detail"]
        again = await host.http.post(f"/api/rooms/{code}/start")
        assert again.status_code == 409


async def test_a_match_starts_only_when_every_seat_is_filled_and_only_by_the_host(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, seats=3))["code"]
        await guest.get(f"/api/rooms/{code}")
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        empty = await host.http.post(f"/api/rooms/{code}/start")
        assert empty.status_code == 409 and "empty seats: 1, 2" in empty.json()["detail"]
        await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot"})
        await guest.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
        assert (await guest.http.post(f"/api/rooms/{code}/start")).status_code == 403
        room = await host.post(f"/api/rooms/{code}/start")
        assert room["match"]["version"] >= 2  # the opening chance actions (order, shuffle) are logged


async def test_the_catalog_lists_each_registered_game_with_defaults_and_presets(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server) as anyone:
        games = {g["id"]: g for g in await anyone.get("/api/games")}
        grail = games["holy-grail"]
        assert grail["names"]["ja"] == "聖杯を獲得せよ！"
        assert (grail["min_players"], grail["max_players"]) == (3, 10)
        assert grail["default_options"] == {"hands": None}
        assert grail["rules_url"] == "/rules/holy-grail"
        assert [p["key"] for p in grail["presets"]][:2] == ["default", "quick"]
        assert "properties" in grail["options_schema"]
        for game in games.values():
            assert any(p["key"] == "default" for p in game["presets"])


async def test_a_room_can_be_created_from_a_preset(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Pat") as pat:
        room = await pat.post("/api/rooms", {"game_id": "holy-grail", "preset": "four-friends"}, expect=201)
        assert room["seat_count"] == 4 and room["options"]["hands"] == 4
        missing = await pat.http.post("/api/rooms", json={"game_id": "holy-grail", "preset": "nope"})
        assert missing.status_code == 422
