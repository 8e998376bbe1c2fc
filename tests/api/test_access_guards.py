"""Who may see and drive a table: a match of another room is refused before it is
loaded, a room's code shows only the invitation, one seat per person during a match, seat
changes reach every process, and a socket ends with its session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import websockets
from sqlalchemy import create_engine, text

from tests.api.harness import Person, Server, TableSocket, browser, make_room, running_server
from tests.api.test_table import db_rows

pytestmark = pytest.mark.asyncio

SEATS_SHOWN_WITHIN = 5.0
"""Seconds from a seat change made through one process to the other process's socket showing it."""


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
        assert match_id not in tables._tables, "a table was kept for it"


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


async def _seated_alone(host: Person, code: str) -> None:
    """`host` takes every seat of the room and starts (seats may be shared before a match)."""
    room = await host.get(f"/api/rooms/{code}")
    for n in range(room["seat_count"]):
        await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
    await host.post(f"/api/rooms/{code}/start")


@asynccontextmanager
async def _ada_on_two_processes(
    database_url: str, **settings: Any
) -> AsyncIterator[tuple[Server, Server, Person, Person]]:
    """Two servers sharing the database and its bus, and Ada signed in on both (one session)."""
    async with (
        running_server(database_url, pubsub="postgres", **settings) as one,
        running_server(database_url, pubsub="postgres", **settings) as two,
        browser(one, "Ada") as ada,
        browser(two) as ada_on_two,
    ):
        ada_on_two.http.cookies.set("session", ada.token)
        yield one, two, ada, ada_on_two


async def _first_move(ws: TableSocket) -> tuple[dict, int, dict]:
    """The socket's first state, an awaited seat of it and that seat's first legal action."""
    state = await ws.wait_state()
    seat, legal = next((int(s), actions) for s, actions in state["legal"].items() if actions)
    return state, seat, legal[0]


async def test_a_seat_changed_through_one_process_is_neither_shown_nor_played_on_another(
    database_url: str,
) -> None:
    async with _ada_on_two_processes(database_url) as (_, two, ada, ada_on_two), browser(two, "Dan") as dan:
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await dan.get(f"/api/rooms/{code}")
        await _seated_alone(ada, code)
        async with ada.socket(code) as ada_ws:
            state, seat, action = await _first_move(ada_ws)
            assert (await ada_on_two.http.delete(f"/api/rooms/{code}/seats/{seat}")).status_code == 200
            await dan.post(f"/api/rooms/{code}/seats/{seat}", {"as": "me"})
            # Her open socket on the other process stops showing the seat...
            await ada_ws.wait_state(lambda m: str(seat) not in m["views"])
            # ...and a socket she opens there now never shows it.
            async with ada.socket(code) as again:
                fresh = await again.wait_state()
                assert str(seat) not in fresh["views"] and fresh["views"]
            await ada_ws.act(seat, state["version"], action)
            refused = await ada_ws.wait_for(lambda m: m["type"] == "error")
            assert refused["code"] == "forbidden"
        [(version,)] = db_rows(database_url, "SELECT version FROM matches")
        assert version == state["version"]
        async with dan.socket(code) as dan_ws:
            mine = await dan_ws.wait_state()
            assert list(mine["views"]) == [str(seat)]


async def test_a_seat_left_through_a_process_without_the_match_sends_the_other_process_new_views_at_once(
    database_url: str,
) -> None:
    """Ada leaves a seat through the process that does not hold the match in memory, and no
    move follows (the bot that takes the seat waits): her socket on the other process is sent
    views without that seat at once, at the same version, not at the next move."""
    async with _ada_on_two_processes(database_url, bot_delay=30) as (_, _two, ada, ada_on_two):
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await _seated_alone(ada, code)
        async with ada.socket(code) as ada_ws:
            state, seat, _ = await _first_move(ada_ws)
            assert (await ada_on_two.http.delete(f"/api/rooms/{code}/seats/{seat}")).status_code == 200
            fresh = await ada_ws.wait_for(
                lambda m: m["type"] == "state" and str(seat) not in m["views"], timeout=SEATS_SHOWN_WITHIN
            )
            assert fresh["version"] == state["version"] and fresh["views"]


async def test_an_action_commits_only_while_the_database_says_the_seat_is_the_senders(
    database_url: str,
) -> None:
    """The seat changes in the database without any process hearing of it (an announcement
    that was lost): the commit itself refuses the former holder, and a new socket reads the
    holders afresh."""
    async with running_server(database_url) as server, browser(server, "Ada") as ada:
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await _seated_alone(ada, code)
        async with browser(server, "Dan") as dan:
            async with ada.socket(code) as ada_ws:
                state, seat, action = await _first_move(ada_ws)
                engine = create_engine(database_url)
                with engine.begin() as conn:
                    for table in ("room_seats", "match_seats"):
                        conn.execute(
                            text(f"UPDATE {table} SET person_id = :person WHERE n = :n"),
                            {"n": seat, "person": dan.me["id"]},
                        )
                engine.dispose()
                await ada_ws.act(seat, state["version"], action)
                refused = await ada_ws.wait_for(lambda m: m["type"] == "error")
                assert refused["code"] == "forbidden"
                async with ada.socket(code) as again:
                    assert str(seat) not in (await again.wait_state())["views"]
            [(version,)] = db_rows(database_url, "SELECT version FROM matches")
            assert version == state["version"]


async def _closed_for_no_session(ws: TableSocket, within: float = 5) -> None:
    """The server closes the socket with 4401 (no session) within `within` seconds."""
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await ws.wait_for(lambda m: False, timeout=within)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401


async def test_signing_out_through_one_process_closes_the_sessions_sockets_on_every_process(
    database_url: str,
) -> None:
    async with _ada_on_two_processes(database_url) as (one, _, ada, ada_on_two), browser(one, "Ben") as ben:
        code = (await make_room(ada))["code"]
        async with ada.socket(code) as on_one, ada_on_two.socket(code) as on_two, ben.socket(code) as other:
            for ws in (on_one, on_two, other):
                await ws.wait_for(lambda m: m["type"] == "room")
            assert (await ada_on_two.http.post("/api/logout")).status_code == 204
            await _closed_for_no_session(on_two)
            await _closed_for_no_session(on_one)
            await other.send({"type": "ping"})
            assert (await other.wait_for(lambda m: m["type"] == "pong"))["type"] == "pong"


async def test_a_session_that_ends_otherwise_closes_its_sockets_at_the_next_check(database_url: str) -> None:
    async with running_server(database_url, session_check=0.1) as server, browser(server, "Ada") as ada:
        code = (await make_room(ada))["code"]
        async with ada.socket(code) as ws:
            await ws.wait_for(lambda m: m["type"] == "room")
            engine = create_engine(database_url)
            with engine.begin() as conn:
                conn.execute(text("DELETE FROM sessions WHERE person_id = :id"), {"id": ada.me["id"]})
            engine.dispose()
            await _closed_for_no_session(ws)
