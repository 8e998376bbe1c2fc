"""Pub/sub: the in-process bus, and LISTEN/NOTIFY letting two server processes share a table."""

from __future__ import annotations

import asyncio

import pytest

from app.pubsub import InProcessPubSub
from tests.api.harness import browser, make_room, running_server

pytestmark = pytest.mark.asyncio


async def test_in_process_bus_delivers_to_every_subscriber_of_a_channel_only() -> None:
    bus = InProcessPubSub()
    async with (
        bus.subscribe("room:1") as first,
        bus.subscribe("room:1") as second,
        bus.subscribe("room:2") as other,
    ):
        await bus.publish("room:1", {"kind": "room"})
        assert await asyncio.wait_for(anext(first), 1) == {"kind": "room"}
        assert await asyncio.wait_for(anext(second), 1) == {"kind": "room"}
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(anext(other), 0.05)
    await bus.publish("room:1", {"kind": "late"})  # nobody listens any more: dropped, no error


async def test_two_servers_on_one_database_share_a_table_through_listen_notify(database_url: str) -> None:
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
        browser(one, "Oda") as oda,
        browser(two) as tom,
    ):
        tom.me = await tom.post("/api/people", {"name": "Tom"}, expect=201)
        code = (await make_room(oda, seats=3, hands=1))["code"]
        async with oda.socket(code) as oda_ws, tom.socket(code) as tom_ws:
            await oda_ws.recv()
            # A seat taken through server two shows up on server one's socket.
            await tom.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
            seen = await oda_ws.wait_for(
                lambda m: m["type"] == "room" and m["room"]["seats"][1]["kind"] == "person"
            )
            assert seen["room"]["seats"][1]["name"] == "Tom"
            await oda.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
            await oda.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
            await oda.post(f"/api/rooms/{code}/start")  # started on server one

            tom_state = await tom_ws.wait_state()
            oda_state = await oda_ws.wait_state()
            assert tom_state["version"] == oda_state["version"]
            actor, watcher, state = (
                (tom_ws, oda_ws, tom_state) if tom_state["legal"].get("1") else (oda_ws, tom_ws, oda_state)
            )
            seat, legal = next((int(s), a) for s, a in state["legal"].items() if a)
            await actor.act(seat, state["version"], legal[0])
            moved = await watcher.wait_state(lambda m: m["version"] == state["version"] + 1)
            played = next(iter(moved["views"].values()))["trick"]["cards"]
            assert {"seat": seat, "card": legal[0]["cards"][0]} in played
