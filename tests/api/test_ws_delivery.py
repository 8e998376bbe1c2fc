"""Every message published to a room reaches every socket that was open when it was published,
however the sockets were opened and however their clients read them."""

from __future__ import annotations

import asyncio
import contextlib
from contextlib import AsyncExitStack
from typing import Any

import pytest

from tests.api.harness import TableSocket, browser, make_room, running_server
from tests.api.test_table import seat_and_start

pytestmark = pytest.mark.asyncio


def everyone_connected(room: dict[str, Any] | None) -> bool:
    return room is not None and all(seat["connected"] for seat in room["seats"])


async def chat_lines(socket: TableSocket, count: int, timeout: float = 10) -> set[str]:
    """The texts of the chat lines the socket receives, until `count` arrived or `timeout` passed."""
    heard: set[str] = set()
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout):
            while len(heard) < count:
                heard.add((await socket.wait_for(lambda m: m["type"] == "chat"))["message"]["text"])
    return heard


async def test_four_sockets_opened_one_after_another_each_receive_every_chat_line_and_room_change(
    database_url: str,
) -> None:
    """Four people at a running match open their sockets one after another, and each writes a
    line the moment the last socket is open: every socket receives all four lines, and the room
    as it is once everyone is connected. The sockets are read one after another (as a busy phone
    might), not concurrently."""
    async with (
        running_server(database_url) as server,
        browser(server, "Ann") as ann,
        browser(server, "Ben") as ben,
        browser(server, "Cas") as cas,
        browser(server, "Dan") as dan,
        AsyncExitStack() as stack,
    ):
        people = [ann, ben, cas, dan]
        code = (await make_room(ann, seats=4))["code"]
        await seat_and_start(ann, code, dict(enumerate(people)))
        sockets = [await stack.enter_async_context(person.socket(code)) for person in people]
        lines = {f"hi from {person.me['name']}" for person in people}
        await asyncio.gather(
            *(
                ws.send({"type": "chat", "text": f"hi from {p.me['name']}"})
                for p, ws in zip(people, sockets, strict=True)
            )
        )
        for person, ws in zip(people, sockets, strict=True):
            assert await chat_lines(ws, 4) == lines, person.me["name"]
            if not everyone_connected(ws.room):
                await ws.wait_for(lambda m: m["type"] == "room" and everyone_connected(m["room"]), timeout=10)
            assert ws.state is not None and ws.state["match_id"] == ws.room["match"]["id"]  # type: ignore[index]
