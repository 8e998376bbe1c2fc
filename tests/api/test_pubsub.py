"""Pub/sub: the in-process bus, and LISTEN/NOTIFY letting two server processes share a table."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.live.pubsub import InProcessPubSub
from app.live.table import Table
from tests.api.harness import Server, TableSocket, browser, make_room, play_until_over, running_server

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


async def test_a_person_connected_to_one_server_shows_as_connected_on_the_other(database_url: str) -> None:
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
        browser(one, "Ada") as ada,
        browser(two, "Ben") as ben,
    ):
        code = (await make_room(ada, seats=3, hands=1))["code"]
        await ben.get(f"/api/rooms/{code}")

        def dot(room: dict, person_id: int) -> bool:
            return next(m["connected"] for m in room["members"] if m["person_id"] == person_id)

        assert not dot(await ben.get(f"/api/rooms/{code}"), ada.me["id"])
        async with ben.socket(code) as ben_ws:
            await ben_ws.wait_for(lambda m: m["type"] == "room")
            async with ada.socket(code) as ada_ws:  # Ada's socket is on server one
                await ada_ws.wait_for(lambda m: m["type"] == "room")
                # Server two's socket hears of it, and server two's room answer says so.
                await ben_ws.wait_for(lambda m: m["type"] == "room" and dot(m["room"], ada.me["id"]))
                assert dot(await ben.get(f"/api/rooms/{code}"), ada.me["id"])
            await ben_ws.wait_for(lambda m: m["type"] == "room" and not dot(m["room"], ada.me["id"]))
        # Ben's own socket is gone too, once server two has handled its close.
        for _ in range(100):
            if not dot(await ada.get(f"/api/rooms/{code}"), ben.me["id"]):
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("Ben still shows as connected after closing his socket")


async def test_presence_rows_of_a_server_that_stopped_beating_do_not_count(database_url: str) -> None:
    """A crashed process leaves its rows behind; once its heartbeat is old they are ignored."""
    async with running_server(database_url) as server, browser(server, "Cy") as cy:
        code = (await make_room(cy))["code"]
        engine = create_engine(database_url)
        try:
            with engine.begin() as conn:
                for process, age in (("crashed", "1 hour"), ("alive", "1 second")):
                    conn.execute(
                        text(
                            "INSERT INTO server_processes (id, seen_at)"
                            " VALUES (:p, now() - CAST(:age AS interval))"
                        ),
                        {"p": process, "age": age},
                    )
                conn.execute(
                    text(
                        "INSERT INTO room_presence (process_id, room_id, person_id)"
                        " SELECT 'crashed', id, :m FROM rooms WHERE code = :c"
                    ),
                    {"c": code, "m": cy.me["id"]},
                )
            answer = await cy.get(f"/api/rooms/{code}")
            assert not answer["members"][0]["connected"]
            with engine.begin() as conn:
                conn.execute(text("UPDATE room_presence SET process_id = 'alive'"))
            answer = await cy.get(f"/api/rooms/{code}")
            assert answer["members"][0]["connected"]
        finally:
            engine.dispose()


@contextlib.asynccontextmanager
async def _two_buses(database_url: str) -> AsyncIterator[tuple[Any, Any]]:
    """Two processes' LISTEN/NOTIFY buses on one database, started, closed afterwards."""
    from sqlalchemy.engine import make_url

    from app.live.pubsub import PostgresPubSub

    libpq = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
    one, two = PostgresPubSub(libpq), PostgresPubSub(libpq)
    await one.start()
    await two.start()
    try:
        yield one, two
    finally:
        await one.close()
        await two.close()


async def test_listen_notify_delivers_a_burst_in_order_to_other_processes_and_once_locally(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each process hears its own NOTIFYs too: they are recognised by how they begin and dropped
    unread (half of what a process hears when two share tables), never delivered twice. A burst
    is packed into few notifications, each carrying many messages in order."""
    from app.live import pubsub

    read: list[Any] = []
    loads = pubsub.orjson.loads

    def counting_loads(text: str | bytes) -> Any:
        parsed = loads(text)
        read.append(parsed)
        return parsed

    monkeypatch.setattr(pubsub.orjson, "loads", counting_loads)
    async with (
        _two_buses(database_url) as (one, two),
        one.subscribe("room:9") as local,
        two.subscribe("room:9") as remote,
    ):
        for n in range(200):
            await one.publish("room:9", {"kind": "state", "version": n})
        heard = [(await asyncio.wait_for(anext(remote), 5))["version"] for _ in range(200)]
        mine = [(await asyncio.wait_for(anext(local), 5))["version"] for _ in range(200)]
        assert heard == mine == list(range(200))
        with pytest.raises(TimeoutError):  # one's own notifications are not delivered twice
            await asyncio.wait_for(anext(local), 0.3)
    # Two parsed each of one's notifications once; one parsed none of its own.
    assert sum(len(payload["messages"]) for payload in read) == 200
    assert len(read) < 20, len(read)  # the publisher did not wait: the burst went in a few batches


async def test_a_burst_too_long_for_one_notification_is_split_and_an_oversized_message_dropped(
    database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Messages are packed into payloads under PostgreSQL's limit, in order; a message that would
    not fit a payload even alone is dropped with an error, and the rest of its batch still goes."""
    async with _two_buses(database_url) as (one, two), two.subscribe("room:11") as remote:
        payloads = one._payloads([b'{"n":%d,"pad":"%s"}' % (n, b"x" * 1000) for n in range(20)])
        assert len(payloads) == 3 and all(len(payload) < one.PAYLOAD_LIMIT for payload in payloads)
        # At the limit: a payload may take PAYLOAD_LIMIT - 1 bytes, never more.
        largest = one.PAYLOAD_LIMIT - 1
        packing = len(one._payloads([b"1"])[0]) - 1
        assert [len(p) for p in one._payloads([b"1" * (largest - packing)])] == [largest]
        assert one._payloads([b"1" * (largest - packing + 1)]) == []
        second = largest - packing - 1 - 3000  # the comma between the two
        assert [len(p) for p in one._payloads([b"1" * 3000, b"2" * second])] == [largest]
        assert len(one._payloads([b"1" * 3000, b"2" * (second + 1)])) == 2
        await one.publish("room:11", {"kind": "chat", "text": "a"})
        await one.publish("room:11", {"kind": "chat", "text": "x" * one.PAYLOAD_LIMIT})
        for n in range(30):
            await one.publish("room:11", {"kind": "chat", "text": f"{n:03d}" + "y" * 900})
        heard = [(await asyncio.wait_for(anext(remote), 5))["text"][:3] for _ in range(31)]
    assert heard == ["a", *(f"{n:03d}" for n in range(30))]
    assert "too long for a notification" in caplog.text


async def test_a_bus_whose_connections_are_ended_listens_and_notifies_again(database_url: str) -> None:
    """Every connection of both buses is ended (a database restart, killed sessions): each
    listener connects again, the sender does too on its next batch, and messages published
    afterwards arrive."""
    async with _two_buses(database_url) as (one, two), two.subscribe("room:12") as remote:
        await one.publish("room:12", {"kind": "room", "n": 0})
        assert (await asyncio.wait_for(anext(remote), 5))["n"] == 0
        engine = create_engine(database_url)
        try:
            with engine.begin() as conn:
                ended = conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                ).all()
            assert len(ended) == 3  # two listeners and one's sender
        finally:
            engine.dispose()
        heard: list[int] = []
        for n in range(1, 60):  # until both listen again
            await one.publish("room:12", {"kind": "room", "n": n})
            with contextlib.suppress(TimeoutError):
                while n not in heard:
                    heard.append((await asyncio.wait_for(anext(remote), 0.1))["n"])
            if n in heard:
                break
        else:
            pytest.fail("no message arrived after the buses' connections were ended")
        assert heard == sorted(heard)  # in order, none twice


async def test_text_with_quotes_backslashes_and_japanese_crosses_the_bus_unchanged(database_url: str) -> None:
    """Bus messages travel as JSON inside a JSON array of payloads (`NOTIFY_ALL`): a chat line
    with every character that needs escaping arrives as it was sent."""
    lines = ['say "hi"', 'back\\slash \\"', "こんにちは、\u3042 {}[],:", "tab\tnew\nline\u0001", "🂡 ♠"]
    async with _two_buses(database_url) as (one, two), two.subscribe("room:10") as remote:
        for line in lines:
            await one.publish("room:10", {"kind": "chat", "message": {"text": line}})
        heard = [(await asyncio.wait_for(anext(remote), 5))["message"]["text"] for _ in lines]
    assert heard == lines


async def test_a_person_opening_a_room_while_taking_a_seat_in_it_never_deadlocks(database_url: str) -> None:
    """A newcomer's socket joins the room (a membership row) while their own request takes a seat
    (the room locked, then the same membership): both orders of the two transactions must end
    well, on one process or two, so the socket gets its room and the seat is taken."""
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
        browser(one, "Oda") as oda,
    ):
        for attempt in range(12):
            code = (await make_room(oda, seats=3, hands=1))["code"]
            async with browser(two if attempt % 2 else one) as newcomer:
                newcomer.me = await newcomer.post("/api/people", {"name": f"New {attempt}"}, expect=201)

                async def open_socket(code: str = code, newcomer: Any = newcomer) -> dict[str, Any]:
                    async with newcomer.socket(code) as ws:
                        return await ws.wait_for(lambda m: m["type"] == "room")

                room, _ = await asyncio.gather(
                    open_socket(), newcomer.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
                )
                assert room["room"]["code"] == code
            seats = (await oda.get(f"/api/rooms/{code}"))["seats"]
            assert seats[1]["kind"] == "person" and seats[1]["name"] == f"New {attempt}"


def count_log_reads(server: Server) -> list[int]:
    """Count the times `server` reads a match's log back from the database to follow moves
    another process made (`MatchStore.actions_from`); the list grows by one entry per read."""
    store = server.services.tables.store
    original = store.actions_from
    reads: list[int] = []

    async def counted(match_id: int, seq: int) -> list[Any]:
        reads.append(seq)
        return await original(match_id, seq)

    store.actions_from = counted
    return reads


@contextlib.asynccontextmanager
async def a_match_across_two_servers(
    one: Server, two: Server
) -> AsyncIterator[tuple[TableSocket, TableSocket]]:
    """A one-hand Holy Grail match just started, Oda (seats 0 and 2) at it through server one and
    Tom (seat 1) through server two: their sockets."""
    async with browser(one, "Oda") as oda, browser(two) as tom:
        tom.me = await tom.post("/api/people", {"name": "Tom"}, expect=201)
        code = (await make_room(oda, seats=3, hands=1))["code"]
        async with oda.socket(code) as oda_ws, tom.socket(code) as tom_ws:
            await oda.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
            await tom.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
            await oda.post(f"/api/rooms/{code}/seats/2", {"as": "me"})
            await oda.post(f"/api/rooms/{code}/start")
            yield oda_ws, tom_ws


async def play_a_match_across_two_servers(one: Server, two: Server) -> tuple[dict[str, Any], dict[str, Any]]:
    """`a_match_across_two_servers` played to its end; the last state each of them was sent."""
    async with a_match_across_two_servers(one, two) as (oda_ws, tom_ws):
        await play_until_over([oda_ws, tom_ws])
        return oda_ws.state, tom_ws.state


def final_scores(state: dict[str, Any]) -> list[float]:
    (scores,) = {tuple(view["scores"]) for view in state["views"].values()}
    return list(scores)


async def test_each_process_follows_the_others_moves_from_the_bus_without_reading_the_log(
    database_url: str,
) -> None:
    """A state message between processes carries the log entries it announces, so neither
    process reads the other's moves back from the database (one round trip per move fewer),
    and both send the same states to the end of the match."""
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
    ):
        reads = {"one": count_log_reads(one), "two": count_log_reads(two)}
        oda_last, tom_last = await play_a_match_across_two_servers(one, two)
    assert oda_last["version"] == tom_last["version"]
    assert final_scores(oda_last) == final_scores(tom_last)
    assert reads == {"one": [], "two": []}


async def test_a_state_message_too_long_for_a_notify_leaves_its_entries_to_the_database(
    database_url: str,
) -> None:
    """When the entries would not fit a NOTIFY (here: any payload counts as too long), the
    message goes without them and the other process reads the moves from the log instead."""
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
    ):
        for server in (one, two):
            server.services.pubsub.LOG_LIMIT = 0
        reads = {"one": count_log_reads(one), "two": count_log_reads(two)}
        oda_last, tom_last = await play_a_match_across_two_servers(one, two)
    assert oda_last["version"] == tom_last["version"]
    assert final_scores(oda_last) == final_scores(tom_last)
    assert reads["one"] and reads["two"], reads


def spy_follows(server: Server, monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """Record each version `server` follows from another process's commit: `now` when it was
    followed in the bus's turn (`Table.caught_up_now`), `waited` when under the match's lock
    (`Table.catch_up`)."""
    tables = server.services.tables
    seen: dict[str, list[int]] = {"now": [], "waited": []}
    caught_up_now, catch_up = Table.caught_up_now, Table.catch_up

    def now(table: Table, live: Any, at_least: int, announced: Any) -> bool:
        behind = live.committed < at_least
        done = caught_up_now(table, live, at_least, announced)
        if behind and done and table.tables is tables:
            seen["now"].append(at_least)
        return done

    async def waited(table: Table, live: Any, at_least: int, announced: Any = None) -> bool:
        if table.tables is tables:
            seen["waited"].append(at_least)
        return await catch_up(table, live, at_least, announced)

    monkeypatch.setattr(Table, "caught_up_now", now)
    monkeypatch.setattr(Table, "catch_up", waited)
    return seen


async def test_a_move_made_on_the_other_process_is_followed_in_the_bus_turn_or_waits_for_a_held_lock(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A state message from the other process, carrying its entries, is followed and sent in the
    bus's turn (no task, no lock) when nobody holds the match's lock here; while somebody does,
    it waits for the lock and follows under it, and the socket sees the move only then."""
    async with (
        running_server(database_url, pubsub="postgres") as one,
        running_server(database_url, pubsub="postgres") as two,
    ):
        servers = {"one": one, "two": two}
        follows = {name: spy_follows(server, monkeypatch) for name, server in servers.items()}
        async with a_match_across_two_servers(one, two) as (oda_ws, tom_ws):
            sockets = {"one": oda_ws, "two": tom_ws}

            async def whose_turn() -> tuple[str, dict[str, Any]]:
                """The server of the person to act, and the state that asks them to."""
                newest = max(ws.state["version"] if ws.state else -1 for ws in sockets.values())
                for name, ws in sockets.items():
                    if ws.state and ws.state["version"] == newest and any(ws.state["legal"].values()):
                        return name, ws.state
                waiting = {
                    asyncio.create_task(ws.wait_state(lambda m: any(m["legal"].values()))): name
                    for name, ws in sockets.items()
                }
                done, pending = await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    task.cancel()
                await asyncio.gather(*pending, return_exceptions=True)
                first = done.pop()
                return waiting[first], first.result()

            async def one_move(hold_the_watchers_lock: bool) -> tuple[str, int]:
                """The person to act plays; returns the other server and the version it must show."""
                actor, state = await whose_turn()
                watcher = "two" if actor == "one" else "one"
                shown = sockets[watcher].state
                if shown is None or shown["version"] < state["version"]:
                    await sockets[watcher].wait_state(lambda m: m["version"] >= state["version"])
                seat, legal = next((int(s), a) for s, a in state["legal"].items() if a)
                lock = servers[watcher].services.tables.lock(state["match_id"])
                if hold_the_watchers_lock:
                    await lock.acquire()
                await sockets[actor].act(seat, state["version"], legal[0])
                after = state["version"] + 1

                def moved(m: dict[str, Any]) -> bool:
                    return m["type"] == "state" and m["version"] >= after

                if hold_the_watchers_lock:
                    with pytest.raises(TimeoutError):
                        await sockets[watcher].wait_for(moved, timeout=1.0)
                    lock.release()
                await sockets[watcher].wait_for(moved)
                return watcher, after

            watcher, version = await one_move(hold_the_watchers_lock=False)
            assert version in follows[watcher]["now"] and version not in follows[watcher]["waited"], follows
            watcher, version = await one_move(hold_the_watchers_lock=True)
            assert version in follows[watcher]["waited"] and version not in follows[watcher]["now"], follows


async def test_catching_up_with_the_store_brings_every_live_table_to_the_logged_version(
    database_url: str,
) -> None:
    """Announcements can be lost (a bus listener reconnecting): `catch_up_all` has every table
    a process holds follow what the log holds beyond its copy. Here the two processes share no
    bus at all, so process two hears nothing of the moves made through process one."""
    async with (
        running_server(database_url) as one,
        running_server(database_url) as two,
        browser(one, "Oda") as oda,
    ):
        code = (await make_room(oda, seats=3, hands=1))["code"]
        for seat in range(3):
            await oda.post(f"/api/rooms/{code}/seats/{seat}", {"as": "me"})
        match_id = (await oda.post(f"/api/rooms/{code}/start"))["match"]["id"]
        async with browser(two) as tab:
            tab.http.cookies.set("session", oda.token)
            async with tab.socket(code) as on_two:
                behind = await on_two.wait_state()
        async with oda.socket(code) as on_one:
            state = await on_one.wait_state()
            for _ in range(3):  # Oda holds every seat: each state is her turn
                seat, legal = next((int(s), a) for s, a in state["legal"].items() if a)
                await on_one.act(seat, state["version"], legal[0])
                state = await on_one.wait_state(lambda m, v=state["version"]: m["version"] > v)
        ahead = one.services.tables.live(match_id)
        copy = two.services.tables.live(match_id)
        assert ahead is not None and copy is not None and copy.version == behind["version"] < ahead.version

        assert await two.services.tables.catch_up_all() == 1
        copy = two.services.tables.live(match_id)
        assert copy is not None and copy.committed == ahead.committed
        assert copy.match.log == ahead.match.log
        assert await two.services.tables.catch_up_all() == 0  # nothing more to follow
