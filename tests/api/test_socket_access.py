"""Who may open a room's WebSocket: code holders with a session, from this site only."""

from __future__ import annotations

import json

import pytest
import websockets

from tests.api.harness import browser, make_room, running_server

pytestmark = pytest.mark.asyncio


async def test_a_socket_without_a_session_or_with_a_wrong_code_is_refused(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server) as anonymous,
    ):
        code = (await make_room(host))["code"]
        async with anonymous.socket(code) as ws:
            error = await ws.recv()
            assert error["type"] == "error" and error["code"] == "forbidden" and "name" in error["message"]
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        async with host.socket(code + "nope") as ws:
            error = await ws.recv()
            assert error["code"] == "forbidden" and "invite code" in error["message"]


async def test_a_socket_opened_by_a_page_on_another_site_is_refused(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        headers = {"Cookie": f"session={host.token}", "Origin": "https://evil.example"}
        with pytest.raises(websockets.InvalidStatus):
            async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}", additional_headers=headers):
                pass
        same_site = {"Cookie": f"session={host.token}", "Origin": server.base_url}
        async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}", additional_headers=same_site) as ws:
            assert json.loads(await ws.recv())["type"] == "room"


async def test_opening_the_socket_joins_the_room_and_shows_the_person_connected(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host))["code"]
        await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        async with host.socket(code) as host_ws:
            hello = await host_ws.recv()
            assert hello["room"]["seats"][0]["connected"] is True
            async with guest.socket(code) as _guest_ws:
                joined = await host_ws.wait_for(
                    lambda m: (
                        m["type"] == "room"
                        and any(p["name"] == "Guest" and p["connected"] for p in m["room"]["members"])
                    )
                )
                assert joined["room"]["me"]["person_id"] == host.me["id"]
            left = await host_ws.wait_for(
                lambda m: (
                    m["type"] == "room"
                    and any(p["name"] == "Guest" and not p["connected"] for p in m["room"]["members"])
                )
            )
            assert left["room"]["seats"][0]["connected"] is True


async def test_a_new_name_reaches_open_tables_at_once(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Old") as guest,
    ):
        code = (await make_room(host))["code"]
        await guest.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        async with host.socket(code) as host_ws:
            await host_ws.recv()
            renamed = await guest.http.patch("/api/me", json={"name": "New"})
            assert renamed.status_code == 200
            seen = await host_ws.wait_for(
                lambda m: m["type"] == "room" and m["room"]["seats"][1]["name"] == "New"
            )
            assert {p["name"] for p in seen["room"]["members"]} == {"Host", "New"}
