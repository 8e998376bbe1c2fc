"""Database faults while people play, applied from outside as an operator (or a hosted
database) would: a backend of one connection role ended with `pg_terminate_backend`, or the
whole PostgreSQL server restarted. Every table must go on by itself within seconds.

The servers are `python -m app` processes, as they run for real (uvicorn with uvloop), sharing
one database through the LISTEN/NOTIFY bus (tests/api/test_failover.py's `running`). Each
connection role names itself in `pg_stat_activity.application_name` (app/store/db.py), which
is how these tests find the backend to end."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.store.db import COMMIT, LISTEN, NOTIFY
from app.store.embedded_pg import EmbeddedPostgres, free_loopback_port
from tests.api.harness import TLS, Server, TableSocket, browser
from tests.api.test_failover import Table, running
from tests.api.test_pubsub import a_match_across_two_servers

pytestmark = pytest.mark.asyncio

NEXT_MOVE_WITHIN = 10.0
"""Seconds from a killed commit connection to the table's next move."""
SHOWN_WITHIN = 5.0
"""Seconds from a move to the other process's socket showing it, after a killed bus connection."""
PLAYS_AGAIN_WITHIN = 15.0
"""Seconds from PostgreSQL being back after a restart to every table's next move."""
MOVES_PER_ROUND_AT_MOST = 12
"""Moves one round of the notify test may take for each process to have made one (a trick winner
leads the next trick, so one person's seats can play several moves in a row)."""


def _libpq(database_url: str) -> str:
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


def terminate(database_url: str, role: str) -> int:
    """End every backend of this database whose connection calls itself `role`; how many."""
    with psycopg.connect(_libpq(database_url), autocommit=True) as conn:
        ended = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND application_name = %s AND pid <> pg_backend_pid()",
            (role,),
        ).fetchall()
    return len(ended)


def server_at(port: int) -> Server:
    return Server(base_url=f"http://127.0.0.1:{port}", ws_url=f"ws://127.0.0.1:{port}", app=None)


@contextlib.asynccontextmanager
async def a_match_across_two_processes(
    one: Server, two: Server
) -> AsyncIterator[tuple[TableSocket, TableSocket]]:
    """A one-hand match of people only, both sockets holding its first state: Oda (seats 0 and
    2) through process one, Tom (seat 1) through process two. Nothing moves unless one plays."""
    async with a_match_across_two_servers(one, two) as (oda_ws, tom_ws):
        await oda_ws.wait_state()
        await tom_ws.wait_state()
        yield oda_ws, tom_ws


async def play_one_move(sockets: tuple[TableSocket, TableSocket]) -> tuple[TableSocket, int]:
    """Whoever is to act plays the first legal action; the other socket (on the other process)
    and the version it must show."""
    newest = max(socket.state["version"] for socket in sockets if socket.state is not None)
    for socket in sockets:  # each shows the newest state (the actor's own answer may be unread)
        await shown_within(socket, newest, SHOWN_WITHIN)
    for socket in sockets:
        state = socket.state
        if state is not None and state["version"] == newest and any(state["legal"].values()):
            seat, legal = next((int(s), actions) for s, actions in state["legal"].items() if actions)
            await socket.act(seat, state["version"], legal[0])
            watcher = sockets[1] if socket is sockets[0] else sockets[0]
            return watcher, newest + 1
    raise AssertionError("nobody is to act")


async def shown_within(socket: TableSocket, version: int, seconds: float) -> float:
    """Seconds until `socket` is sent a state of `version` or later (fails after `seconds`)."""
    started = time.monotonic()
    if socket.state is None or socket.state["version"] < version:
        await asyncio.wait_for(socket.wait_state(lambda m: m["version"] >= version), seconds)
    return time.monotonic() - started


async def test_a_killed_commit_connection_refuses_or_makes_the_move_and_the_table_plays_on(
    database_url: str,
) -> None:
    """The group commit's connection is ended while a person and three bots play: the move in
    flight is made, or refused so the person plays it again, and the table moves again within
    NEXT_MOVE_WITHIN seconds, and goes on after that (before, under uvloop the statement waited
    for ever on the dead connection and the table never moved again)."""
    with running(database_url, 1, CARDTABLE_BOT_DELAY="0.2") as (processes, _):
        table = Table(f"http://127.0.0.1:{processes.ports[0]}", "Committer")
        await table.open()
        player = asyncio.create_task(table.play())
        try:
            assert await table.moves_within(30) is not None
            for _ in range(3):
                assert terminate(database_url, COMMIT) >= 1
                assert await table.moves_within(NEXT_MOVE_WITHIN) is not None
                assert await table.moves_within(NEXT_MOVE_WITHIN) is not None
        finally:
            table.stopped = True
            player.cancel()
            await asyncio.gather(player, return_exceptions=True)


async def test_a_killed_listener_catches_up_so_the_other_process_shows_the_move(database_url: str) -> None:
    """Every process's listening connection is ended and a person plays at once, while nobody
    listens: the other process still shows the move within SHOWN_WITHIN seconds, because a
    listener that connects again catches up from the store (before, the notification was lost
    and the other process showed a stale table until the next move, which was its own
    person's to make). A room change made meanwhile (a newcomer opening the room) reaches the
    other process's sockets too."""
    with running(database_url, 2) as (processes, _):
        one, two = (server_at(port) for port in processes.ports)
        async with a_match_across_two_processes(one, two) as sockets:
            for _ in range(2):
                assert terminate(database_url, LISTEN) == 2
                watcher, version = await play_one_move(sockets)
                await shown_within(watcher, version, SHOWN_WITHIN)
            oda_ws = sockets[0]
            code = oda_ws.room["code"] if oda_ws.room else ""
            assert terminate(database_url, LISTEN) == 2
            async with browser(two, "Newcomer") as newcomer, newcomer.socket(code) as newcomer_ws:
                await newcomer_ws.wait_for(lambda m: m["type"] == "room")

                def lists_the_newcomer(message: dict[str, Any]) -> bool:
                    members = message["room"]["members"] if message["type"] == "room" else []
                    return any(member["person_id"] == newcomer.me["id"] for member in members)

                await oda_ws.wait_for(lists_the_newcomer, timeout=SHOWN_WITHIN)


async def test_a_killed_notify_sender_sends_again_so_the_other_process_shows_every_move(
    database_url: str,
) -> None:
    """Every process's NOTIFY connection is ended; the moves made afterwards reach the other
    process within SHOWN_WITHIN seconds each, again and again (before, under uvloop the sender
    waited for ever on its dead connection: the process never spoke to the others again)."""
    with running(database_url, 2) as (processes, _):
        one, two = (server_at(port) for port in processes.ports)
        async with a_match_across_two_processes(one, two) as sockets:
            watcher, version = await play_one_move(sockets)  # both senders have connected
            await shown_within(watcher, version, SHOWN_WITHIN)
            for _ in range(2):
                assert terminate(database_url, NOTIFY) == 2
                # At least three moves, and until each process has made one: a sender connects
                # again when its process next publishes, and the next round ends both again.
                senders: set[int] = set()
                for played in range(1, MOVES_PER_ROUND_AT_MOST + 1):
                    watcher, version = await play_one_move(sockets)
                    senders.add(0 if watcher is sockets[1] else 1)
                    await shown_within(watcher, version, SHOWN_WITHIN)
                    if played >= 3 and len(senders) == 2:
                        break
                assert len(senders) == 2, "one process made every move of the round"


async def readiness(port: int) -> tuple[int, str | None]:
    """What the process's /readyz answers: its status code and its reason."""
    async with httpx.AsyncClient(timeout=10, verify=TLS) as http:
        answer = await http.get(f"http://127.0.0.1:{port}/readyz")
    return answer.status_code, answer.json()["reason"]


async def ready_within(port: int, seconds: float) -> None:
    """Wait until the process's /readyz says 200 (fails after `seconds`)."""
    deadline = time.monotonic() + seconds
    while (answer := await readiness(port)) != (200, None):
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.1)


async def test_every_table_of_two_processes_plays_again_soon_after_a_postgresql_restart(
    cluster_home: Path,
) -> None:
    """PostgreSQL is stopped and started again while two processes serve a table each (a person
    and three bots): /readyz says 503 while the database is away, and within PLAYS_AGAIN_WITHIN
    seconds of it being back both tables move again and both processes are ready (before,
    every table stayed frozen until the server processes were restarted)."""
    pg_port = free_loopback_port()
    cluster = EmbeddedPostgres(cluster_home / "pgdata", fast_unsafe=True, port=pg_port)
    database_url = cluster.start()
    try:
        with running(database_url, 2, CARDTABLE_BOT_DELAY="0.2") as (processes, _):
            tables = [
                Table(f"http://127.0.0.1:{port}", f"Restart {n}") for n, port in enumerate(processes.ports)
            ]
            for table in tables:
                await table.open()
            players = [asyncio.create_task(table.play()) for table in tables]
            try:
                assert all(await asyncio.gather(*(table.moves_within(30) for table in tables)))
                await asyncio.to_thread(cluster.stop)
                assert [(await readiness(port))[0] for port in processes.ports] == [503, 503]
                await asyncio.sleep(1.0)
                await asyncio.to_thread(cluster.start)
                back = time.monotonic()
                waited = await asyncio.gather(*(table.moves_within(PLAYS_AGAIN_WITHIN) for table in tables))
                assert None not in waited, waited
                for port in processes.ports:
                    await ready_within(port, PLAYS_AGAIN_WITHIN - (time.monotonic() - back))
                again = await asyncio.gather(*(table.moves_within(NEXT_MOVE_WITHIN) for table in tables))
                assert None not in again, again
            finally:
                for table in tables:
                    table.stopped = True
                for player in players:
                    player.cancel()
                await asyncio.gather(*players, return_exceptions=True)
    finally:
        cluster.stop()
