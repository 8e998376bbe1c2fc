"""Absent players and the turn timer (issue 13): deadlines kept in PostgreSQL, enforced by the
server, acted on by exactly one process.

The servers here run with `deadline_scale` < 1 (`CARDTABLE_DEADLINE_SCALE`, test-only): every
deadline is scheduled at that share of the room's seconds, so a room keeps real settings (the
API still refuses a grace under 10 s or a timer under 15 s) while a test waits a fraction of a
second. A shifted clock would have needed every process and PostgreSQL's now() to agree on it;
a scale keeps the database's clock the one authority on when a deadline is due.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.api.harness import Server, TableSocket, browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio

FAST = {"deadline_poll": 0.05, "bot_level": "basic"}


def _rows(database_url: str, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params))
    finally:
        engine.dispose()


def _moves(database_url: str, match_id: int, seat: int) -> list[tuple[int, datetime]]:
    """(seq, committed at) of every action of `seat` in the match's log."""
    return [
        (seq, at)
        for seq, at in _rows(
            database_url,
            "SELECT seq, created_at FROM match_actions WHERE match_id = :m AND seat = :s ORDER BY seq",
            m=match_id,
            s=seat,
        )
    ]


def _committed_at(database_url: str, match_id: int, seq: int) -> datetime:
    return _rows(
        database_url,
        "SELECT created_at FROM match_actions WHERE match_id = :m AND seq = :q",
        m=match_id,
        q=seq,
    )[0][0]


async def _eventually(check: Any, timeout: float = 15.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        found = await asyncio.to_thread(check)
        if found:
            return found
        assert asyncio.get_running_loop().time() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.05)


@asynccontextmanager
async def autoplay(socket: TableSocket) -> AsyncIterator[None]:
    """Play the first legal action of this person's seats whenever it is their turn."""

    async def run() -> None:
        acted: set[int] = set()
        while True:
            message = await socket.wait_state()
            for seat, legal in message["legal"].items():
                if legal and message["version"] not in acted:
                    acted.add(message["version"])
                    await socket.act(int(seat), message["version"], legal[0])
                    break

    task = asyncio.create_task(run())
    try:
        yield
    finally:
        task.cancel()


@pytest.mark.parametrize("servers", [1, 2], ids=["one server", "Ben on a second server"])
async def test_an_away_seat_is_played_by_a_bot_after_the_grace_and_given_back_at_the_next_turn(
    database_url: str, servers: int
) -> None:
    """With two servers, Ben's sockets are on the second one while either may claim his away
    deadline: he still gets his seat back at his next turn."""
    settings = {"deadline_scale": 0.05, **FAST, **({"pubsub": "postgres"} if servers == 2 else {})}
    async with (
        running_server(database_url, **settings) as server,
        running_server(database_url, **settings) if servers == 2 else nullcontext(server) as other,
        browser(server, "Ada") as ada,
        browser(other, "Ben") as ben,
    ):
        room = await make_room(ada, seats=3, hands=1)
        code = room["code"]
        assert room["away_grace"] == 60 and room["turn_timer"] is None
        patched = await ada.http.patch(f"/api/rooms/{code}", json={"away_grace": 10})  # 0.5 s here
        assert patched.status_code == 200 and patched.json()["away_grace"] == 10
        await ada.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
        await ben.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
        await ada.post(f"/api/rooms/{code}/seats/2", {"as": "bot", "level": "basic"})
        # Ada has two tabs: one plays her turns, the other is read by the test.
        async with ada.socket(code) as ada_ws, ada.socket(code) as ada_play:
            async with ben.socket(code) as ben_ws:
                await ben_ws.wait_for(lambda m: m["type"] == "room")
                started = await ada.post(f"/api/rooms/{code}/start")
                match_id = started["match"]["id"]
                await ben_ws.wait_state()
            async with autoplay(ada_play):
                # Everyone hears at once that Ben is away; the table goes on without him.
                await ada_ws.wait_for(
                    lambda m: m["type"] == "room" and not m["room"]["seats"][1]["connected"], timeout=5
                )
                due_at = (
                    await _eventually(
                        lambda: _rows(
                            database_url,
                            "SELECT due_at FROM seat_deadlines WHERE kind = 'away' AND seat = 1",
                        )
                    )
                )[0][0]
                seen = await ada_ws.wait_for(
                    lambda m: m["type"] == "room" and m["room"]["stand_ins"] == [1], timeout=10
                )
                assert seen["room"]["seats"][1]["kind"] == "person"  # still Ben's seat
                # Turn after turn, whichever process commits the table's moves (a claim is held
                # for 10 s: one move per claim would take that long each).
                moves = await _eventually(
                    lambda: (found := _moves(database_url, match_id, 1))[1:] and found, 8
                )
                # The bot played for him only once the grace was over.
                assert all(at >= due_at for _, at in moves)
                async with ben.socket(code) as ben_ws:
                    back = await ben_ws.wait_for(lambda m: m["type"] == "room")
                    assert back["room"]["stand_ins"] == [] and back["room"]["seats"][1]["connected"]
                    await ada_ws.wait_for(lambda m: m["type"] == "room" and m["room"]["stand_ins"] == [])
                    # At his next turn the table waits for him again: nobody moves for him.
                    first = await ben_ws.wait_state()

                    def his_turn(m: dict[str, Any]) -> bool:
                        return bool(m["legal"].get("1"))

                    turn = first if his_turn(first) else await ben_ws.wait_state(his_turn)
                    late = [m for m in await ben_ws.quiet(0.8) if m["type"] == "state"]  # > grace
                    if late and turn["version"] == first["version"]:
                        # A stand-in's move was under way as he came back: the seat is his from
                        # the turn after it.
                        assert ben_ws.state is not None
                        turn = ben_ws.state if his_turn(ben_ws.state) else await ben_ws.wait_state(his_turn)
                        late = [m for m in await ben_ws.quiet(0.8) if m["type"] == "state"]
                    assert not late
                    await ben_ws.act(1, turn["version"], turn["legal"]["1"][0])
                    await ben_ws.wait_state(lambda m: m["version"] > turn["version"])
                    final = await play_until_over([ben_ws], timeout=60, match_id=match_id)
                    assert not _rows(database_url, "SELECT 1 FROM seat_deadlines WHERE kind = 'away'")
        assert next(iter(final["views"].values()))["phase"] == "match_over"
        # He stays credited with the seat's score, stand-in moves included.
        credited = _rows(
            database_url,
            "SELECT person_id FROM match_results WHERE match_id = :m AND seat = 1",
            m=match_id,
        )
        assert credited == [(ben.me["id"],)]


async def _timer_room(host: Any, seconds: int) -> tuple[str, int]:
    """Host at seat 0 with a turn timer, basic bots in seats 1 and 2; the match started."""
    code = (await host.post("/api/rooms", {"game_id": "holy-grail", "seats": 3, "options": {"hands": 1},
                                           "turn_timer": seconds}, expect=201))["code"]  # fmt: skip
    await host.post(f"/api/rooms/{code}/seats/0", {"as": "me"})
    for seat in (1, 2):
        await host.post(f"/api/rooms/{code}/seats/{seat}", {"as": "bot", "level": "basic"})
    return code, (await host.post(f"/api/rooms/{code}/start"))["match"]["id"]


async def test_a_turn_timer_move_happens_once_with_two_servers_on_one_database(database_url: str) -> None:
    """Both processes sweep the same deadlines every 50 ms; each expired turn is claimed and
    played by one of them, never twice, and never before the turn has lasted the timer."""
    scale = 1 / 15  # a 15 s timer lasts 1 s
    settings = {"pubsub": "postgres", "deadline_scale": scale, **FAST}
    async with (
        running_server(database_url, **settings) as one,
        running_server(database_url, **settings) as two,
        browser(one, "Ada") as ada,
    ):
        code, match_id = await _timer_room(ada, 15)
        async with ada.socket(code) as ada_ws:  # connected (not away), but she never plays
            countdown = await ada_ws.wait_for(lambda m: m["type"] == "timers" and "0" in m["timers"])
            assert 0.5 < countdown["timers"]["0"] <= 1.0
            moves = await _eventually(lambda: (found := _moves(database_url, match_id, 0))[2:] and found, 20)
            state = await ada_ws.wait_state(lambda m: m["version"] > moves[2][0])
            assert state["match_id"] == match_id
        for seq, at in moves[:3]:
            turn_began = _committed_at(database_url, match_id, seq - 1)
            assert (at - turn_began).total_seconds() >= 15 * scale
        claims = [
            c for c in one.services.tables.clock.claims + two.services.tables.clock.claims if c[0] == "turn"
        ]
        assert len(claims) == len(set(claims)), "two processes acted on one deadline"
        played = {seq for seq, _ in _moves(database_url, match_id, 0)}
        # One claim per timed-out turn, whichever process made it.
        assert len([c for c in claims if c[1] == match_id and c[2] == 0]) == len(played)
        assert {c[3] for c in claims} == {seq for seq in played}


async def test_a_turn_countdown_survives_a_server_restart(database_url: str) -> None:
    scale = 0.2  # a 15 s timer lasts 3 s
    async with running_server(database_url, deadline_scale=scale, **FAST) as one, browser(one, "Ada") as ada:
        code, match_id = await _timer_room(ada, 15)
        async with ada.socket(code) as ada_ws:
            await ada_ws.wait_state(lambda m: bool(m["legal"].get("0")))
    rows = _rows(
        database_url, "SELECT due_at, version, now() FROM seat_deadlines WHERE kind = 'turn' AND seat = 0"
    )
    assert len(rows) == 1
    due_at, version, now = rows[0]
    assert 1.5 < (due_at - now).total_seconds() <= 3.0  # stopped in the middle of the countdown
    assert _moves(database_url, match_id, 0) == [] or all(
        seq < version for seq, _ in _moves(database_url, match_id, 0)
    )
    async with running_server(database_url, deadline_scale=scale, **FAST):  # a new process
        moves = await _eventually(lambda: [m for m in _moves(database_url, match_id, 0) if m[0] >= version])
    seq, at = moves[0]
    assert seq == version  # the turn that was running, played once
    # At the deadline kept in the database, not a countdown started afresh by the new process.
    assert due_at <= at and (at - due_at).total_seconds() < 1.0


async def test_room_timing_settings_are_validated_host_only_and_frozen_during_a_match(
    database_url: str,
) -> None:
    async with (
        running_server(database_url, **FAST) as server,
        browser(server, "Host") as host,
        browser(server, "Guest") as guest,
    ):
        for bad in ({"away_grace": 9}, {"away_grace": 601}, {"away_grace": "60"}, {"turn_timer": 14},
                        {"turn_timer": 601}, {"turn_timer": 30.5}):  # fmt: skip
            refused = await host.http.post("/api/rooms", json={"game_id": "holy-grail", "seats": 3, **bad})
            assert refused.status_code == 422, bad
            assert set(refused.json()["messages"]) == {"en", "ja"}
        room = await make_room(host, seats=3, hands=1)
        code = room["code"]
        assert (room["away_grace"], room["turn_timer"], room["stand_ins"], room["timers"]) == (
            60,
            None,
            [],
            {},
        )
        for bad in ({"away_grace": 9}, {"away_grace": None}, {"turn_timer": 601}, {"turn_timer": True}):
            answer = await host.http.patch(f"/api/rooms/{code}", json=bad)
            assert answer.status_code == 422, bad
            assert "away_grace" in answer.json()["detail"] or "turn_timer" in answer.json()["detail"]
        await guest.get(f"/api/rooms/{code}")
        assert (await guest.http.patch(f"/api/rooms/{code}", json={"turn_timer": 30})).status_code == 403
        # Each field on its own: the others stay as they are.
        timed = (await host.http.patch(f"/api/rooms/{code}", json={"turn_timer": 30})).json()
        assert (timed["away_grace"], timed["turn_timer"], timed["seat_count"]) == (60, 30, 3)
        graced = (await host.http.patch(f"/api/rooms/{code}", json={"away_grace": 600})).json()
        assert (graced["away_grace"], graced["turn_timer"]) == (600, 30)
        off = (await host.http.patch(f"/api/rooms/{code}", json={"turn_timer": None})).json()
        assert (off["away_grace"], off["turn_timer"]) == (600, None)
        assert (await guest.get(f"/api/rooms/{code}"))["away_grace"] == 600
        for seat in range(3):
            await host.post(f"/api/rooms/{code}/seats/{seat}", {"as": "bot" if seat else "me"})
        await host.post(f"/api/rooms/{code}/start")
        during = await host.http.patch(f"/api/rooms/{code}", json={"away_grace": 30, "turn_timer": 20})
        assert during.status_code == 409
        body = during.json()
        assert "between matches" in body["detail"] and "away_grace" in body["detail"]
        assert "対戦" in body["messages"]["ja"]
        assert (await host.get(f"/api/rooms/{code}"))["away_grace"] == 600


async def test_a_turn_timer_move_happens_once_with_two_os_processes_on_one_database(
    database_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The same with two `python -m app` processes (each its own event loop and sweeper): every
    timed-out turn is logged as acted on by exactly one of them."""
    from tests.api.test_proxy import app_processes

    scale = 1 / 15
    monkeypatch.setenv("CARDTABLE_DEADLINE_SCALE", str(scale))
    monkeypatch.setenv("CARDTABLE_DEADLINE_POLL", "0.05")
    monkeypatch.setenv("CARDTABLE_BOT_LEVEL", "basic")
    monkeypatch.setenv("CARDTABLE_MIGRATE_ON_START", "false")
    with app_processes(database_url, 2, tmp_path) as ports:
        server = Server(
            base_url=f"http://127.0.0.1:{ports[0]}", ws_url=f"ws://127.0.0.1:{ports[0]}", app=None
        )
        async with browser(server, "Ada") as ada:
            code, match_id = await _timer_room(ada, 15)
            async with ada.socket(code):  # connected (not away), but she never plays
                moves = await _eventually(
                    lambda: (found := _moves(database_url, match_id, 0))[3:] and found, 30
                )
    # (Moves after her socket closed may be a stand-in's: only those made while she was here count.)
    for seq, at in moves:
        assert (at - _committed_at(database_url, match_id, seq - 1)).total_seconds() >= 15 * scale
    logged = [
        line
        for log in tmp_path.glob("app*.log")  # each process's output (tests/servers.py)
        for line in log.read_text().splitlines()
        if f"in match {match_id} (turn of version" in line and "seat 0" in line
    ]
    versions = [int(line.split("turn of version ")[1].split(")")[0]) for line in logged]
    assert len(versions) == len(set(versions)), "two processes acted on one deadline"
    assert sorted(v for v in versions if v <= moves[-1][0]) == [seq for seq, _ in moves]
