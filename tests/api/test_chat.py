"""The room chat: a line reaches every member's socket after it is stored, the history pages
back, lines are checked and rate-limited, outsiders are refused, and two server processes on
one database deliver each other's lines (and share one rate limit)."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack
from typing import Any

import pytest
import websockets
from sqlalchemy import create_engine, text

from tests.api.harness import Person, TableSocket, browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio

HTML = '<img src=x onerror="alert(1)">'


def is_chat(message: dict[str, Any]) -> bool:
    return message["type"] == "chat"


async def opened(person: Person, code: str, stack: AsyncExitStack) -> TableSocket:
    """A socket to the room that has received its first room message."""
    ws = await stack.enter_async_context(person.socket(code))
    await ws.wait_for(lambda m: m["type"] == "room")
    return ws


def stored_lines(database_url: str) -> list[str]:
    engine = create_engine(database_url)
    with engine.connect() as conn:
        lines = [row[0] for row in conn.execute(text("SELECT text FROM chat_messages ORDER BY id"))]
    engine.dispose()
    return lines


async def test_a_line_reaches_both_players_and_a_spectator_and_is_stored_first(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
        browser(server, "Cy") as cy,
        AsyncExitStack() as stack,
    ):
        code = (await make_room(ada, seats=3))["code"]
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await ben.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        await cy.get(f"/api/rooms/{code}")  # watches: a member without a seat
        sockets = [await opened(p, code, stack) for p in (ada, ben, cy)]
        await sockets[2].send({"type": "chat", "text": "  good luck!  "})
        heard = [(await ws.wait_for(is_chat))["message"] for ws in sockets]
        assert heard[0] == heard[1] == heard[2]
        line = heard[0]
        assert line["text"] == "good luck!" and line["name"] == "Cy" and line["person_id"] == cy.me["id"]
        assert isinstance(line["id"], int) and line["at"]
        # Whoever hears of it can read it back: it was committed before it was published.
        assert stored_lines(database_url) == ["good luck!"]
        await sockets[0].send({"type": "chat", "text": HTML})
        for ws in sockets:
            assert (await ws.wait_for(is_chat))["message"]["text"] == HTML  # stored and sent verbatim


async def test_a_person_who_reconnects_reads_the_history_newest_last_in_pages(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
    ):
        code = (await make_room(ada))["code"]
        await ben.get(f"/api/rooms/{code}")
        async with ben.socket(code) as ben_ws:
            await ben_ws.send({"type": "chat", "text": "b1"})
            await ben_ws.wait_for(is_chat)
        # Ben is away while Ada writes.
        async with ada.socket(code) as ada_ws:
            for n in range(1, 5):
                await ada_ws.send({"type": "chat", "text": f"a{n}"})
                await ada_ws.wait_for(is_chat)
        async with ben.socket(code) as ben_ws:
            await ben_ws.wait_for(lambda m: m["type"] == "room")
            latest = await ben.get(f"/api/rooms/{code}/chat")
            assert [m["text"] for m in latest["messages"]] == ["b1", "a1", "a2", "a3", "a4"]
            assert latest["has_more"] is False
            assert [m["name"] for m in latest["messages"]] == ["Ben", "Ada", "Ada", "Ada", "Ada"]
            page = await ben.get(f"/api/rooms/{code}/chat?limit=2")
            assert [m["text"] for m in page["messages"]] == ["a3", "a4"] and page["has_more"] is True
            first = page["messages"][0]["id"]
            page = await ben.get(f"/api/rooms/{code}/chat?limit=2&before={first}")
            assert [m["text"] for m in page["messages"]] == ["a1", "a2"] and page["has_more"] is True
            first = page["messages"][0]["id"]
            page = await ben.get(f"/api/rooms/{code}/chat?limit=2&before={first}")
            assert [m["text"] for m in page["messages"]] == ["b1"] and page["has_more"] is False
        await ben.get(f"/api/rooms/{code}/chat?limit=201", expect=422)
        await ben.get(f"/api/rooms/{code}/chat?limit=0", expect=422)


async def test_empty_long_and_control_character_lines_are_refused_and_not_stored(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Ada") as ada:
        code = (await make_room(ada))["code"]
        async with ada.socket(code) as ws:
            await ws.wait_for(lambda m: m["type"] == "room")
            for bad in ("", "   ", "x" * 501, "bell\x07", "two\nlines", "tab\there", "\u2028", 42, None):
                await ws.send({"type": "chat", "text": bad})
                error = await ws.wait_for(lambda m: m["type"] in ("error", "chat"))
                assert error["type"] == "error" and error["code"] == "bad_chat", (bad, error)
                assert error["messages"]["en"] and error["messages"]["ja"] != error["messages"]["en"]
            await ws.send({"type": "chat"})  # no text at all
            assert (await ws.wait_for(lambda m: m["type"] in ("error", "chat")))["code"] == "bad_chat"
            longest = "あ" * 500
            await ws.send({"type": "chat", "text": f"  {longest} "})  # 500 after trimming
            assert (await ws.wait_for(lambda m: m["type"] in ("error", "chat")))["message"]["text"] == longest
        assert stored_lines(database_url) == [longest]


async def test_a_sixth_line_within_five_seconds_is_rate_limited_and_not_stored(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Ada") as ada,
        browser(server, "Ben") as ben,
    ):
        code = (await make_room(ada))["code"]
        await ben.get(f"/api/rooms/{code}")
        async with ada.socket(code) as ada_ws, ben.socket(code) as ben_ws:
            await ada_ws.wait_for(lambda m: m["type"] == "room")
            await ben_ws.wait_for(lambda m: m["type"] == "room")
            for n in range(6):
                await ada_ws.send({"type": "chat", "text": f"spam {n}"})
            answers = [await ada_ws.wait_for(lambda m: m["type"] in ("error", "chat")) for _ in range(6)]
            assert [a["type"] for a in answers] == ["chat"] * 5 + ["error"]
            assert answers[5]["code"] == "rate_limited" and "5" in answers[5]["messages"]["ja"]
            # The limit is per person: Ben still talks.
            await ben_ws.send({"type": "chat", "text": "calm down"})
            answer = await ben_ws.wait_for(
                lambda m: m["type"] == "error" or (m["type"] == "chat" and m["message"]["name"] == "Ben")
            )
            assert answer["type"] == "chat" and answer["message"]["text"] == "calm down"
        assert stored_lines(database_url) == [f"spam {n}" for n in range(5)] + ["calm down"]


async def test_people_outside_the_room_can_neither_read_nor_write_its_chat(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Ada") as ada,
        browser(server, "Eve") as eve,
        browser(server) as anonymous,
    ):
        room = await make_room(ada, seats=3, hands=1)
        code = room["code"]
        async with ada.socket(code) as ws:
            await ws.send({"type": "chat", "text": "members only"})
            await ws.wait_for(is_chat)
        refused = await eve.get(f"/api/rooms/{code}/chat", expect=403)
        assert refused["messages"]["ja"] and "member" in refused["detail"]
        await anonymous.get(f"/api/rooms/{code}/chat", expect=401)
        await eve.get(f"/api/rooms/{code}nope/chat", expect=404)
        # A match of the room: its chat is for members only as well.
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await ada.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        match_id = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
        await eve.get(f"/api/matches/{match_id}/chat", expect=404)
        await ada.get(f"/api/matches/{match_id}/chat")
        # A socket without a session is closed before it can say anything.
        async with anonymous.socket(code) as ws:
            error = await ws.recv()
            assert error["code"] == "forbidden"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.send({"type": "chat", "text": "let me in"})
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
        assert stored_lines(database_url) == ["members only"]


async def test_a_finished_match_shows_the_chat_of_its_own_time_span(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Ada") as ada:
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        for n in (1, 2):
            await ada.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        async with ada.socket(code) as ws:
            await ws.wait_for(lambda m: m["type"] == "room")
            await ws.send({"type": "chat", "text": "before"})
            await ws.wait_for(is_chat)
            match_id = (await ada.post(f"/api/rooms/{code}/start"))["match"]["id"]
            await ws.wait_state(lambda m: m["match_id"] == match_id)
            await ws.send({"type": "chat", "text": "during"})
            await ws.wait_for(is_chat)
            await play_until_over([ws], match_id=match_id)
            await asyncio.sleep(0.05)
            await ws.send({"type": "chat", "text": "after"})
            await ws.wait_for(is_chat)
        detail = await ada.get(f"/api/matches/{match_id}")
        assert detail["status"] == "finished"
        span = await ada.get(f"/api/matches/{match_id}/chat")
        assert [m["text"] for m in span["messages"]] == ["during"] and span["has_more"] is False
        room_chat = await ada.get(f"/api/rooms/{code}/chat")
        assert [m["text"] for m in room_chat["messages"]] == ["before", "during", "after"]


async def test_two_server_processes_deliver_chat_across_and_share_one_rate_limit(database_url: str) -> None:
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
        browser(one, "Ada") as ada,
        browser(two) as ben,
    ):
        ben.me = await ben.post("/api/people", {"name": "Ben"}, expect=201)
        code = (await make_room(ada))["code"]
        await ben.get(f"/api/rooms/{code}")
        async with ada.socket(code) as ada_ws, ben.socket(code) as ben_ws:
            await ada_ws.wait_for(lambda m: m["type"] == "room")
            await ben_ws.wait_for(lambda m: m["type"] == "room")
            await ben_ws.send({"type": "chat", "text": "from server two"})
            heard = await ada_ws.wait_for(is_chat)
            assert heard["message"]["text"] == "from server two" and heard["message"]["name"] == "Ben"
            await ada_ws.send({"type": "chat", "text": "from server one"})
            heard = await ben_ws.wait_for(lambda m: is_chat(m) and m["message"]["name"] == "Ada")
            assert heard["message"]["text"] == "from server one"
            # The longest line, escaped at its widest (500 emoji), still fits one NOTIFY.
            await ben_ws.send({"type": "chat", "text": "🂡" * 500})
            heard = await ada_ws.wait_for(lambda m: is_chat(m) and m["message"]["name"] == "Ben")
            assert heard["message"]["text"] == "🂡" * 500

            # Ada in two tabs, one on each process, sends eight lines at once: five are stored.
            async with browser(two) as ada_elsewhere:
                ada_elsewhere.http.cookies.set("session", ada.token)
                async with ada_elsewhere.socket(code) as tab_two:
                    await tab_two.wait_for(lambda m: m["type"] == "room")
                    await asyncio.gather(
                        *(ada_ws.send({"type": "chat", "text": f"one {n}"}) for n in range(4)),
                        *(tab_two.send({"type": "chat", "text": f"two {n}"}) for n in range(4)),
                    )
                    # The line Ada sent a moment ago counts too: four of these eight make five.
                    refused = 0
                    for ws in (ada_ws, tab_two):
                        seen = 0
                        while seen < 4:
                            answer = await ws.wait_for(lambda m: m["type"] in ("error", "chat"))
                            seen += answer["type"] == "chat"
                            refused += answer["type"] == "error"
                        refused += sum(m["type"] == "error" for m in await ws.quiet(0.5))
    lines = [line for line in stored_lines(database_url) if line.startswith(("one", "two"))]
    assert len(lines) == 4
    assert refused == 4
