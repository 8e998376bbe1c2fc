"""Lean state messages: views patched per reader, finished hands sent once (and again on
reconnect), one view build per seat and version however many sockets show it, and actions that
name their match."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.live.wire import StateReader
from tests.api.harness import TableSocket, browser, make_room, play_until_over, running_server
from tests.api.test_table import seat_and_start, until_turn

pytestmark = pytest.mark.asyncio


def raw_states(socket: TableSocket) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, socket.raw) if m["type"] == "state"]


async def test_finished_hands_are_sent_once_and_views_are_patches_after_the_first_state(
    database_url: str,
) -> None:
    async with running_server(database_url) as server, browser(server, "Ann") as ann:
        code = (await make_room(ann, seats=3, hands=2))["code"]
        await seat_and_start(ann, code, {0: ann, 1: "bot", 2: "bot"})
        async with ann.socket(code) as ws:
            final = await play_until_over([ws], timeout=90)
            sent = raw_states(ws)
        assert len(final["views"]["0"]["hands"]) == 2
        assert all("hands" not in view for m in sent for view in m["views"].values())
        # Each finished hand went out exactly once, in the message of the version that ended it.
        carried = [h for m in sent for h in m.get("hands", [])]
        assert carried == final["views"]["0"]["hands"]
        assert sent[0]["patched"] == []  # the first state is whole
        assert sum(1 for m in sent if m["patched"] == ["0"]) >= len(sent) - 3
        # Messages do not grow with the match: the second hand's are no bigger than the first's.
        by_hand: dict[int, list[int]] = {1: [], 2: []}
        replay = StateReader()
        for text in ws.raw:
            message = json.loads(text)
            if message["type"] == "state":
                hand_no = replay.read(message)["views"]["0"]["hand_no"]
                if message["patched"] and "hands" not in message:
                    by_hand[hand_no].append(len(text))
        assert max(by_hand[2]) <= max(by_hand[1]) * 1.5

        async with ann.socket(code) as again:  # a reconnect gets every finished hand at once
            state = await again.wait_state()
        (first,) = raw_states(again)
        assert first["hands_from"] == 0 and len(first["hands"]) == 2
        assert state["views"]["0"] == final["views"]["0"]


async def test_one_view_is_built_per_seat_and_version_for_every_socket_that_shows_it(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Bea") as bea,
        browser(server, "Cy") as cy,
        browser(server, "Dee") as dee,
    ):
        code = (await make_room(bea, seats=3, hands=1))["code"]
        await cy.get(f"/api/rooms/{code}")
        await dee.get(f"/api/rooms/{code}")
        room = await seat_and_start(bea, code, {0: bea, 1: bea, 2: bea})
        live = server.services.tables.live(room["match"]["id"])
        assert live is not None
        calls: list[int | None] = []
        match = live.match
        engine_view = type(match).view

        def counting_view(self: Any, seat: int | None) -> dict[str, Any]:
            if self is match:
                calls.append(seat)
            return engine_view(self, seat)

        # On the class: a compiled engine's match (engine/build.py) takes no instance attributes.
        monkeypatch.setattr(type(match), "view", counting_view)
        async with (
            bea.socket(code) as tab1,
            bea.socket(code) as tab2,
            cy.socket(code) as watch1,
            dee.socket(code) as watch2,
        ):
            state = await until_turn(tab1)
            for socket in (tab2, watch1, watch2):
                await socket.wait_state(lambda m: m["version"] == state["version"])
            calls.clear()
            (seat, legal), *_ = [(int(s), a) for s, a in state["legal"].items() if a]
            await tab1.act(seat, state["version"], legal[0])
            for socket in (tab1, tab2, watch1, watch2):
                await socket.wait_state(lambda m: m["version"] == state["version"] + 1)
        assert sorted(calls, key=str) == sorted([0, 1, 2, None], key=str)


async def test_an_action_names_its_match_and_another_rooms_match_is_refused(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Eve") as eve:
        mine = (await make_room(eve, seats=3, hands=1))["code"]
        other = (await make_room(eve, seats=3, hands=1))["code"]
        await seat_and_start(eve, mine, {0: eve, 1: eve, 2: eve})
        other_room = await seat_and_start(eve, other, {0: eve, 1: eve, 2: eve})
        async with eve.socket(mine) as ws:
            state = await until_turn(ws)
            (seat, legal), *_ = [(int(s), a) for s, a in state["legal"].items() if a]
            await ws.act(seat, state["version"], legal[0], match_id=other_room["match"]["id"])
            error = await ws.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "forbidden"
            await ws.act(seat, state["version"], legal[0], match_id=10**9)
            assert (await ws.wait_for(lambda m: m["type"] == "error"))["code"] == "illegal"
            await ws.send({"type": "action", "match_id": "7", "seat": seat, "version": 0, "action": {}})
            assert (await ws.wait_for(lambda m: m["type"] == "error"))["code"] == "malformed"
            await ws.act(seat, state["version"], legal[0], match_id=state["match_id"])
            moved = await ws.wait_state(lambda m: m["version"] > state["version"])
            assert moved["match_id"] == state["match_id"]


async def test_taking_a_seat_mid_match_sends_that_seats_view_though_nothing_was_played(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Fay") as fay,
        browser(server, "Gus") as gus,
    ):
        code = (await make_room(fay, seats=3, hands=1))["code"]
        await gus.get(f"/api/rooms/{code}")
        await seat_and_start(fay, code, {0: fay, 1: fay, 2: fay})
        async with gus.socket(code) as ws:
            watching = await ws.wait_state()
            assert watching["views"] == {} and watching["spectator"] is not None
            await fay.http.delete(f"/api/rooms/{code}/seats/2")
            await gus.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
            seated = await ws.wait_state(lambda m: "2" in m["views"])
        assert seated["version"] == watching["version"]
        assert seated["views"]["2"]["hand"] and seated["spectator"] is None
