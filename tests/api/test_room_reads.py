"""A room change is read from the database once per process and event, however many sockets
of the room the process serves (docs/ARCHITECTURE.md; each socket used to
read it again, so a reconnect storm of N sockets cost every room change N reads)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from app.live.room_feed import RoomFeed
from tests.api.harness import Server, TableSocket, browser, make_room, running_server

SOCKETS = 20


def _named(message: dict[str, Any], name: str) -> bool:
    return message["type"] == "room" and any(m["name"] == name for m in message["room"]["members"])


async def _all_shown(sockets: list[TableSocket], name: str) -> None:
    await asyncio.gather(*(s.wait_for(lambda m: _named(m, name)) for s in sockets))


@contextlib.asynccontextmanager
async def _room_of_sockets(
    server: Server, code: str, stack: contextlib.AsyncExitStack
) -> AsyncIterator[list[TableSocket]]:
    """SOCKETS guests' sockets in the room, settled: every socket has shown the last guest, and
    the reads their joins made have been let go."""
    sockets = []
    for n in range(SOCKETS):
        guest = await stack.enter_async_context(browser(server, f"Guest {n}"))
        sockets.append(await stack.enter_async_context(guest.socket(code)))
    await _all_shown(sockets, f"Guest {SOCKETS - 1}")
    await asyncio.sleep(RoomFeed.KEPT_FOR + 0.5)
    yield sockets


async def test_a_room_change_is_read_once_for_all_the_sockets_of_the_room(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with contextlib.AsyncExitStack() as stack, _room_of_sockets(server, code, stack) as sockets:
            feed: RoomFeed = server.app.state.room_feed
            for n in range(3):
                before = feed.reads
                await host.http.patch("/api/me", json={"name": f"Host {n}"})
                await _all_shown(sockets, f"Host {n}")
                assert feed.reads - before == 1, (n, feed.reads - before)


async def test_a_person_joining_a_room_of_many_sockets_costs_one_read(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with contextlib.AsyncExitStack() as stack, _room_of_sockets(server, code, stack) as sockets:
            feed: RoomFeed = server.app.state.room_feed
            before = feed.reads
            newcomer = await stack.enter_async_context(browser(server, "Newcomer"))
            newcomer_socket = await stack.enter_async_context(newcomer.socket(code))
            await _all_shown([*sockets, newcomer_socket], "Newcomer")
            await newcomer_socket.quiet(0.3)  # the join's own room event is not read again
            assert feed.reads - before == 1


async def test_every_copy_of_a_room_says_when_it_was_read_so_a_client_keeps_the_later_one(
    database_url: str,
) -> None:
    """The socket's copy read when it connected, before the host's change, is older than the
    change's own answer, whichever reaches the page first, and than the socket's copy after the
    change (the page keeps the copy with the largest `read_at`: static/js/pages/room.js). A
    browser once showed the older copy over its own saved change and lost the next one."""
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with host.socket(code) as socket:
            on_connect = await socket.wait_for(lambda m: m["type"] == "room")
            answer = await host.http.patch(f"/api/rooms/{code}", json={"turn_timer": 30})
            assert answer.status_code == 200, answer.text
            changed = answer.json()
            after = await socket.wait_for(lambda m: m["type"] == "room" and m["room"]["turn_timer"] == 30)
        assert on_connect["room"]["turn_timer"] is None and changed["turn_timer"] == 30
        # (the answer and the socket's copy after the change are read at about the same time,
        # in either order; both after the change, both later than the copy before it)
        first = on_connect["room"]["read_at"]
        assert first < changed["read_at"] and first < after["room"]["read_at"], (first, changed, after)
        read_again = (await host.http.get(f"/api/rooms/{code}")).json()
        assert read_again["read_at"] >= max(changed["read_at"], after["room"]["read_at"])
