"""What a live WebSocket keeps for its whole life: no HTTP middleware frames, no idle task, no
handshake headers (memory per live table, issue #11; bench/load.py --memory-tables measures it)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
import websockets

from app.mailbox import Gate, Mailbox
from app.routes.ws import RoomConnection
from app.ws_protocol import MAX_MESSAGE_BYTES, protocol_class
from tests.api.harness import browser, make_room, play_until_over, running_server
from tests.api.test_table import three_people_playing

pytestmark = pytest.mark.asyncio


def awaiting_chain(task: asyncio.Task[Any]) -> list[str]:
    """Qualified names of the coroutines a task is suspended in, outermost first."""
    names: list[str] = []
    coroutine: Any = task.get_coro()
    while coroutine is not None and hasattr(coroutine, "cr_code"):
        names.append(coroutine.cr_code.co_qualname)
        coroutine = coroutine.cr_await
    return names


def socket_chains() -> list[list[str]]:
    return [chain for task in asyncio.all_tasks() if "_serve" in (chain := awaiting_chain(task))]


def forwarding_tasks() -> list[asyncio.Task[Any]]:
    return [t for t in asyncio.all_tasks() if "RoomConnection._forward" in awaiting_chain(t)]


async def until(condition: Any, timeout: float = 10) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.01)


async def test_a_live_socket_is_served_past_the_http_middleware(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with host.socket(code) as ws:
            assert (await ws.recv())["type"] == "room"
            [chain] = socket_chains()
            # uvicorn's own layers, then straight from the app to the endpoint.
            app_at = chain.index("CardTableApp.__call__")
            assert chain[0].endswith(".run_asgi") and app_at <= 2
            assert chain[app_at + 1 : app_at + 3] == ["room_socket", "_serve"]
            http_only = ("RequestGuard", "SecurityHeaders", "ServerErrorMiddleware", "ExceptionMiddleware")
            assert not [name for name in chain if name.startswith(http_only)]
            # HTTP still goes through them.
            page = await host.http.get("/")
            assert "content-security-policy" in page.headers


async def test_an_idle_socket_keeps_no_task_of_its_own_and_still_hears_every_change(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host))["code"]
        async with host.socket(code) as ws:
            assert (await ws.recv())["type"] == "room"
            await until(lambda: not forwarding_tasks())
            for n in range(3):
                await guest.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
                taken = await ws.wait_for(
                    lambda m, n=n: m["type"] == "room" and m["room"]["seats"][n]["kind"] == "person"
                )
                assert taken["room"]["seats"][n]["name"] == "Guest"
                await until(lambda: not forwarding_tasks())
            await host.post(f"/api/rooms/{code}/start")
            state = await ws.wait_state()
            assert state["match_id"] and not state["views"]  # the host holds no seat: spectator view
            await until(lambda: not forwarding_tasks())


async def test_an_accepted_socket_lets_go_of_its_handshake(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with host.socket(code) as ws:
            assert (await ws.recv())["type"] == "room"
            protocol_type = protocol_class("message")
            [protocol] = [
                o
                for o in gc.get_objects()
                if type(o).__name__ == protocol_type.__name__ and o.handshake_complete
            ]
            assert protocol.request is None and protocol.response is None
            assert isinstance(protocol.queue, Mailbox) and isinstance(protocol.writable, Gate)
            assert "session=" in dict(protocol.scope["headers"])[b"cookie"].decode()  # what the app reads


async def test_a_mailbox_hands_items_over_in_order_and_drops_the_oldest_when_full() -> None:
    box: Mailbox[int] = Mailbox(limit=3)
    waiting = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    assert not waiting.done()
    box.put_nowait(1)
    assert await waiting == 1
    for n in range(2, 7):
        box.put_nowait(n)
    assert box.qsize() == 3
    assert [await box.get(), box.get_nowait(), await box.get()] == [4, 5, 6]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_a_mailbox_has_one_consumer_and_a_cancelled_wait_loses_nothing() -> None:
    box: Mailbox[str] = Mailbox()
    first = asyncio.ensure_future(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError):
        await box.get()
    first.cancel()
    with pytest.raises(asyncio.CancelledError):
        await first
    box.put_nowait("kept")
    assert await asyncio.wait_for(box.get(), 1) == "kept"


async def test_a_gate_lets_every_waiter_through_once_set_and_holds_them_while_cleared() -> None:
    gate = Gate(is_set=True)
    assert await gate.wait() is True
    gate.clear()
    waiters = [asyncio.ensure_future(gate.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(w.done() for w in waiters) and not gate.is_set()
    waiters[0].cancel()
    gate.set()
    assert await asyncio.gather(*waiters[1:]) == [True, True]
    assert gate.is_set() and await gate.wait() is True


async def test_a_message_over_the_size_limit_closes_the_socket_past_the_middleware(database_url: str) -> None:
    async with running_server(database_url) as server, browser(server, "Host") as host:
        code = (await make_room(host))["code"]
        async with host.socket(code) as ws:
            assert (await ws.recv())["type"] == "room"
            await ws.connection.send("x" * (MAX_MESSAGE_BYTES + 1))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


def room_connections(person_id: int) -> list[RoomConnection]:
    return [o for o in gc.get_objects() if type(o) is RoomConnection and o.person_id == person_id]


async def test_a_state_change_goes_to_a_ready_socket_in_the_publishers_turn_and_in_order(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three people play a hand: their sockets are ready whenever a move is published, so the
    states go out in the bus's turn (`RoomConnection._sent_now`), not through a forwarding task,
    and every socket still receives the versions in order."""
    queued: list[int] = []
    forward = RoomConnection.forward

    async def counted(self: RoomConnection, message: dict[str, Any], heard_at: float) -> bool:
        if message.get("kind") == "state":
            queued.append(int(message["version"]))
        return await forward(self, message, heard_at)

    monkeypatch.setattr(RoomConnection, "forward", counted)
    async with three_people_playing(database_url) as people:
        sockets = [ws for _, ws, _ in people]
        final = await play_until_over(sockets, timeout=90)
    assert final["version"] > 30
    for ws in sockets:
        versions = [m["version"] for m in ws.received if m["type"] == "state"]
        assert versions == sorted(set(versions)), versions
    # The opening states may queue behind the room messages of the start; the hand's do not.
    sent = sum(len([m for m in ws.received if m["type"] == "state"]) for ws in sockets)
    assert len(queued) <= 6 and sent > 3 * 30, (queued, sent)


async def test_a_state_change_waits_behind_a_send_under_way_on_its_socket(database_url: str) -> None:
    """While a socket is sending (its send lock held), a state change for it is queued and
    follows once the send is done: never written in between."""
    async with three_people_playing(database_url) as people:
        for _, ws, _ in people:  # each socket's latest state of the opening (nobody acts yet)
            await ws.wait_state()
            await ws.quiet(0.3)
        await until(lambda: not forwarding_tasks())
        states = [ws.state for _, ws, _ in people]
        acting = next(n for n, s in enumerate(states) if s and s["legal"][str(people[n][2])])
        _, actor, seat = people[acting]
        watcher, watcher_ws, _ = people[(acting + 1) % 3]
        state = states[acting]
        assert state is not None
        version = state["version"]
        assert all(s and s["version"] == version for s in states)
        [watching] = room_connections(watcher.me["id"])
        async with watching._send_lock:  # a send under way on the watcher's socket
            await actor.act(seat, version, state["legal"][str(seat)][0])
            moved = await actor.wait_state(lambda m: m["version"] > version)
            assert not [m for m in await watcher_ws.quiet(0.3) if m["type"] == "state"]
            assert forwarding_tasks()  # the change waits for the lock in its socket's queue
        follow = await watcher_ws.wait_state()
        assert follow["version"] == moved["version"]


async def test_a_message_sent_from_a_task_is_written_at_once_when_ready_and_waits_while_the_socket_is_paused(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`RoomConnection.send_text` (room changes, errors, timers, the states a bus's turn could
    not send) writes through the protocol when it is ready, as the bus's turn does, and through
    the ASGI send, which waits, while the transport is paused (its buffer full)."""
    from starlette.websockets import WebSocket

    through_asgi: list[str] = []
    asgi_send_text = WebSocket.send_text

    async def counted(self: WebSocket, data: str) -> None:
        through_asgi.append(data)
        await asgi_send_text(self, data)

    monkeypatch.setattr(WebSocket, "send_text", counted)
    async with three_people_playing(database_url) as people:
        watcher, watcher_ws, _ = people[0]
        await watcher_ws.wait_state()
        await watcher_ws.quiet(0.3)
        [watching] = room_connections(watcher.me["id"])
        protocol = watching._direct
        assert protocol is not None and protocol.ready()
        through_asgi.clear()  # the handshake's accept and what went before

        await watching.send({"type": "pong"})
        assert [m["type"] for m in await watcher_ws.quiet(0.3)] == ["pong"]
        assert through_asgi == []

        protocol.writable.clear()  # type: ignore[attr-defined]  # as uvicorn does on pause_writing
        try:
            sending = asyncio.create_task(watching.send({"type": "pong"}))
            assert await watcher_ws.quiet(0.3) == [] and not sending.done()
            assert through_asgi == ['{"type": "pong"}']  # waiting in the ASGI send
        finally:
            protocol.writable.set()  # type: ignore[attr-defined]
        await sending
        assert [m["type"] for m in await watcher_ws.quiet(0.3)] == ["pong"]
