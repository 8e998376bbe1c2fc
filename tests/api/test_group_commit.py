"""Group commit (app/store/commits.py): actions of many matches queued together are written by
one statement, and each caller still learns its own outcome, exactly as if written alone."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from sqlalchemy import select, text, update
from sqlalchemy.exc import DBAPIError

from app.store.commits import Extensions
from app.store.db import COMMIT, ENGINE, LISTEN, NOTIFY
from app.store.matches import Controller, MatchStore, SeatNotHeld, VersionConflict
from app.store.models import MatchRow, Room
from tests.api.harness import browser, make_room, running_server

MATCHES = 6


async def _matches(server: Any, code: str, count: int) -> list[int]:
    """`count` running three-seat matches of room `code`, each with an empty log."""
    db = server.services.db
    ids = []
    async with db.session() as session:
        room_id = await session.scalar(select(Room.id).where(Room.code == code))
        for _ in range(count):
            match_id, _ = await MatchStore.create(session, room_id, "holy-grail", 3, {}, [])
            ids.append(match_id)
        await session.commit()
    return ids


async def _logs(server: Any, ids: list[int]) -> dict[int, tuple[int, list[Any]]]:
    """Each match's version and stored log (seat and action per row, in order)."""
    async with server.services.db.session() as session:
        found = {}
        for match_id in ids:
            version = await session.scalar(select(MatchRow.version).where(MatchRow.id == match_id))
            rows = (
                await session.execute(
                    text("SELECT seat, action, auto FROM match_actions WHERE match_id = :m ORDER BY seq"),
                    {"m": match_id},
                )
            ).all()
            found[match_id] = (int(version or 0), [list(row) for row in rows])
        # These matches have no real game in their logs: finished, no process will resume them.
        await session.execute(update(MatchRow).where(MatchRow.id.in_(ids)).values(status="finished"))
        await session.commit()
    return found


def _counting_batches(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every batch written by one statement from now on."""
    sizes: list[int] = []
    many = Extensions._many

    async def counted(cursor: Any, batch: list[dict[str, Any]]) -> Any:
        sizes.append(len(batch))
        return await many(cursor, batch)

    monkeypatch.setattr(Extensions, "_many", staticmethod(counted))
    return sizes


async def test_actions_of_many_matches_queued_together_commit_in_one_statement_each_judged_alone(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Six matches extended at once: four commit, one that another writer moved on is refused
    with a version conflict, one whose seat the caller no longer holds is refused as such; the
    four rows (one with a bot's auto-move mark) are stored and the two others write nothing."""
    sizes = _counting_batches(monkeypatch)
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], MATCHES)
        store: MatchStore = server.services.tables.store
        play = {"type": "play", "card": "W1"}
        cut = {"type": "cut"}
        bot = Controller(kind="bot", level="basic")
        stranger = Controller(kind="person", person_id=987654321)
        calls = [
            store.append(ids[0], 0, [(-1, {"type": "deal", "seed": 1})], [], None, None),
            store.append(ids[1], 0, [(-1, {"type": "deal", "seed": 2})], [], None, None),
            store.append(ids[2], 5, [(-1, {"type": "deal", "seed": 3})], [], None, None),  # not at 5
            store.append(ids[3], 0, [(0, play)], [], None, None, holder=stranger),
            store.append(ids[4], 0, [(-1, {"type": "deal", "seed": 5}), (-1, cut)], [], None, None),
            store.append(ids[5], 0, [(1, play)], [], None, None, holder=bot, auto=None),
        ]
        # Seat 1 of the last match is a bot's, as the caller believes.
        async with server.services.db.session() as session:
            await session.execute(
                text("UPDATE match_seats SET kind = 'bot' WHERE match_id = :m AND n = 1"), {"m": ids[5]}
            )
            await session.commit()
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        logs = await _logs(server, ids)

    assert sizes and max(sizes) >= 2, sizes  # queued together, written together
    assert outcomes[0] is None and outcomes[1] is None and outcomes[4] is None and outcomes[5] is None
    assert isinstance(outcomes[2], VersionConflict)
    assert isinstance(outcomes[3], SeatNotHeld)
    assert logs[ids[0]] == (1, [[-1, {"type": "deal", "seed": 1}, None]])
    assert logs[ids[1]] == (1, [[-1, {"type": "deal", "seed": 2}, None]])
    assert logs[ids[2]] == (0, [])
    assert logs[ids[3]] == (0, [])
    assert logs[ids[4]] == (2, [[-1, {"type": "deal", "seed": 5}, None], [-1, {"type": "cut"}, None]])
    assert logs[ids[5]] == (1, [[1, play, None]])


async def test_a_batch_the_database_refuses_as_a_whole_is_written_one_action_at_a_time(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the one statement fails (as a deadlock with another process's batch would), nothing
    of it is written, and each action is tried on its own: the good ones commit, the one that
    conflicts is refused, and nobody's action is lost or written twice."""
    failures: list[int] = []

    async def refused(cursor: Any, batch: list[dict[str, Any]]) -> Any:
        failures.append(len(batch))
        await cursor.execute("SELECT 1/0")  # a real error from the server, as a deadlock would be
        raise AssertionError("unreachable")

    monkeypatch.setattr(Extensions, "_many", staticmethod(refused))
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], 4)
        store: MatchStore = server.services.tables.store
        outcomes = await asyncio.gather(
            *(
                store.append(match_id, int(n == 2), [(-1, {"type": "deal", "seed": n})], [], None, None)
                for n, match_id in enumerate(ids)
            ),
            return_exceptions=True,
        )
        deal = [(-1, {"type": "deal", "seed": 0})]
        again = await asyncio.gather(store.append(ids[0], 0, deal, [], None, None), return_exceptions=True)
        logs = await _logs(server, ids)

    assert failures and max(failures) >= 2
    assert [type(outcome).__name__ for outcome in outcomes] == [
        "NoneType", "NoneType", "VersionConflict", "NoneType"
    ]  # fmt: skip
    assert isinstance(again[0], VersionConflict)  # the first one was written, once
    assert [logs[match_id][0] for match_id in ids] == [1, 1, 0, 1]
    assert [len(logs[match_id][1]) for match_id in ids] == [1, 1, 0, 1]


async def test_when_no_connection_can_be_had_every_waiting_action_is_refused_with_the_cause() -> None:
    """Nobody waits forever: each queued action fails with the pool's error, and a later one
    is tried again on a new connection."""
    tries: list[int] = []

    @contextlib.asynccontextmanager
    async def no_connection() -> AsyncIterator[Any]:
        tries.append(1)
        raise TimeoutError("couldn't get a connection after 30.00 sec")
        yield  # pragma: no cover

    extensions = Extensions(no_connection, writers=1)
    params = {"match_id": 1, "before": 0, "after": 1, "seat": None, "kind": None, "person_id": None}
    outcomes = await asyncio.gather(
        *(extensions.commit({**params, "entries": "[]"}) for _ in range(3)), return_exceptions=True
    )
    assert all(isinstance(outcome, TimeoutError) for outcome in outcomes), outcomes
    with pytest.raises(TimeoutError):
        await extensions.commit({**params, "entries": "[]"})
    assert len(tries) == 2  # the three queued together failed on one attempt


async def test_two_processes_batching_the_same_matches_at_once_each_version_is_won_exactly_once(
    database_url: str,
) -> None:
    """Two stores on their own connections (as two server processes would be) race to extend the
    same twenty matches, round after round, in batches: each round every match is extended by
    exactly one of them, the other is told of a version conflict, and the stored logs hold
    exactly the winners' entries. Batches that lock the same rows from two sides must not lose,
    double or stall a move (a deadlock falls back to one statement per move)."""
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], 20)
        ours: MatchStore = server.services.tables.store
        theirs = MatchStore(server.services.db)
        winners: dict[int, list[str]] = {match_id: [] for match_id in ids}
        try:
            for version in range(6):
                calls = [
                    (name, match_id, store.append(match_id, version, [(-1, {"by": name})], [], None, None))
                    for match_id in (ids if version % 2 else ids[::-1])
                    for name, store in (("ours", ours), ("theirs", theirs))
                ]
                outcomes = await asyncio.wait_for(
                    asyncio.gather(*(call for _, _, call in calls), return_exceptions=True), 30
                )
                for (name, match_id, _), outcome in zip(calls, outcomes, strict=True):
                    if outcome is None:
                        winners[match_id].append(name)
                    else:
                        assert isinstance(outcome, VersionConflict), outcome
            logs = await _logs(server, ids)
        finally:
            await theirs.close()

    for match_id in ids:
        assert len(winners[match_id]) == 6, winners[match_id]  # one winner per version
        version, rows = logs[match_id]
        assert version == 6
        assert [row[1]["by"] for row in rows] == winners[match_id]


async def test_log_entries_are_stored_as_given_past_64_bits_and_in_any_script(database_url: str) -> None:
    """The log's JSON text (`log_text`): a seed at the top of 64 bits, one past them (which the
    fast encoder refuses) and text beyond ASCII all read back from the database as appended, alone
    and in one batch."""
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], 3)
        store: MatchStore = server.services.tables.store
        entries: list[list[Any]] = [
            [(-1, {"type": "deal", "seed": 2**64 - 1})],
            [(-1, {"type": "deal", "seed": 2**70}), (-1, {"type": "cut", "note": "été 漢字"})],
            [(-1, {"type": "deal", "seed": -(2**63)})],
        ]
        await store.append(ids[0], 0, entries[0], [], None, None)
        together = zip(ids[1:], entries[1:], strict=True)
        await asyncio.gather(*(store.append(i, 0, e, [], None, None) for i, e in together))
        logs = await _logs(server, ids)
    for match_id, appended in zip(ids, entries, strict=True):
        assert logs[match_id] == (len(appended), [[seat, action, None] for seat, action in appended])


async def test_a_flusher_keeps_its_connection_while_commits_keep_coming_and_gives_it_back_when_idle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One connection from the pool for a stream of commits with short gaps between them; it
    goes back after `LINGER` seconds without a commit, or at once when the store closes."""
    from app.store import commits

    taken: list[object] = []
    returned: list[object] = []

    @contextlib.asynccontextmanager
    async def connection() -> AsyncIterator[Any]:
        conn = SimpleNamespace(closed=False, cursor=lambda: None)  # a connection that stays open
        taken.append(conn)
        try:
            yield conn
        finally:
            returned.append(conn)

    async def written(self: Extensions, cursor: Any, batch: list[Any]) -> list[Any]:
        return [(True, True)] * len(batch)

    monkeypatch.setattr(Extensions, "_write", written)
    monkeypatch.setattr(commits, "LINGER", 0.3)
    extensions = Extensions(connection, writers=2)
    params = {
        "match_id": 1,
        "before": 0,
        "after": 1,
        "seat": None,
        "kind": None,
        "person_id": None,
        "entries": "[]",
    }
    for _ in range(6):
        assert await extensions.commit(params) == (True, True)
        await asyncio.sleep(0.05)  # shorter than LINGER: the idle flusher takes the next one
    assert len(taken) == 1 and not returned
    await asyncio.sleep(0.5)
    assert returned == taken and not extensions._flushers
    assert await extensions.commit(params) == (True, True)  # a new flusher, a new connection
    assert len(taken) == 2
    monkeypatch.setattr(commits, "LINGER", 30)
    assert await extensions.commit(params) == (True, True)
    await asyncio.wait_for(extensions.close(), 1)  # no waiting out LINGER
    assert returned == taken and not extensions._flushers


async def _end_commit_connections(server: Any) -> int:
    """End every backend of the server's commit pool (`pg_terminate_backend`); how many."""
    async with server.services.db.session() as session:
        ended = await session.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = current_database() AND application_name = :role"
            ),
            {"role": COMMIT},
        )
        return len(ended.all())


async def test_actions_whose_connection_was_ended_are_written_on_another_one(database_url: str) -> None:
    """The commit pool's connections are ended while idle (a database restart, an operator's
    kill): the next actions, alone and in a batch, are written on new connections instead of
    being refused, each exactly once, and the pool keeps no dead connection for later."""
    async with running_server(database_url, bot_delay=0) as server, browser(server, "Hana") as host:
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], 4)
        store: MatchStore = server.services.tables.store
        deal = [(-1, {"type": "deal", "seed": 1})]
        await store.append(ids[0], 0, deal, [], None, None)  # the pool holds a connection now
        assert await _end_commit_connections(server) >= 1
        await store.append(ids[0], 1, deal, [], None, None)
        assert await _end_commit_connections(server) >= 1
        await asyncio.gather(*(store.append(match_id, 0, deal, [], None, None) for match_id in ids[1:]))
        assert await store.writable()
        logs = await _logs(server, ids)
    assert [logs[match_id][0] for match_id in ids] == [2, 1, 1, 1]


async def test_every_connection_names_its_role_and_carries_the_configured_timeouts(database_url: str) -> None:
    """The settings' timeouts and keepalives reach every connection the server opens: the
    ordinary queries', the commits', and the bus's listener and sender, each named for its role
    in pg_stat_activity."""
    settings = {
        "pubsub": "postgres",
        "db_connect_timeout": 7,
        "db_statement_timeout": 12.5,
        "db_keepalives_idle": 11,
        "db_keepalives_interval": 4,
        "db_keepalives_count": 5,
        "db_tcp_user_timeout": 9.0,
    }
    async with (
        running_server(database_url, bot_delay=0, **settings) as server,
        browser(server, "Hana") as host,
    ):
        room = await make_room(host, "holy-grail", 3)
        ids = await _matches(server, room["code"], 1)
        await server.services.tables.store.append(ids[0], 0, [(-1, {"n": 1})], [], None, None)
        await server.services.pubsub.publish("room:0", {"kind": "room"})  # the sender connects
        async with server.services.db.engine.connect() as conn:
            timeout = (await conn.execute(text("SHOW statement_timeout"))).scalar_one()
            raw = await conn.get_raw_connection()
            engine_parameters = raw.driver_connection.info.get_parameters()
            await conn.rollback()
        async with server.services.tables.store.pool.connection() as conn:
            commit_timeout = (await (await conn.execute("SHOW statement_timeout")).fetchone() or [None])[0]
            commit_parameters = conn.info.get_parameters()
        roles: set[str] = set()
        for _ in range(50):
            async with server.services.db.session() as session:
                rows = await session.execute(
                    text("SELECT application_name FROM pg_stat_activity WHERE datname = current_database()")
                )
                roles = {name for (name,) in rows}
            if {LISTEN, NOTIFY} <= roles:
                break
            await asyncio.sleep(0.1)
        await _logs(server, ids)
    assert {ENGINE, COMMIT, LISTEN, NOTIFY} <= roles, roles
    assert timeout == commit_timeout == "12500ms"
    for parameters in (engine_parameters, commit_parameters):
        assert {
            key: parameters.get(key)
            for key in (
                "connect_timeout",
                "keepalives",
                "keepalives_idle",
                "keepalives_interval",
                "keepalives_count",
                "tcp_user_timeout",
            )
        } == {
            "connect_timeout": "7",
            "keepalives": "1",
            "keepalives_idle": "11",
            "keepalives_interval": "4",
            "keepalives_count": "5",
            "tcp_user_timeout": "9000",
        }


async def test_a_statement_longer_than_the_statement_timeout_is_cancelled_by_the_server(
    database_url: str,
) -> None:
    """No statement holds a connection (and a table) for ever: the server cancels it."""
    async with running_server(database_url, bot_delay=0, db_statement_timeout=0.3) as server:
        store: MatchStore = server.services.tables.store
        assert await store.writable()  # the commits' pool is open
        async with store.pool.connection() as conn:
            with pytest.raises(psycopg.errors.QueryCanceled):
                await conn.execute("SELECT pg_sleep(5)")
        async with server.services.db.engine.connect() as conn:
            with pytest.raises(DBAPIError) as cancelled:
                await conn.execute(text("SELECT pg_sleep(5)"))
            assert isinstance(cancelled.value.orig, psycopg.errors.QueryCanceled)
