"""The live table over WebSockets against real PostgreSQL: whole matches, rejected actions,
reconnects, several seats per person, spectators, seat hand-overs to bots, and restarts."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from app.live.automation import Automation
from tests.api.harness import Person, TableSocket, browser, make_room, play_until_over, running_server

pytestmark = pytest.mark.asyncio


def db_rows(database_url: str, query: str, **params: Any) -> list[Any]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(query), params).all())
    finally:
        engine.dispose()


async def seat_and_start(host: Person, code: str, seating: dict[int, Person | str]) -> dict[str, Any]:
    """Seat people (or "bot") as given, then start; returns the room."""
    for n, who in seating.items():
        if who == "bot":
            await host.post(f"/api/rooms/{code}/seats/{n}", {"as": "bot"})
        else:
            assert isinstance(who, Person)
            await who.post(f"/api/rooms/{code}/seats/{n}", {"as": "me"})
    return await host.post(f"/api/rooms/{code}/start")


@asynccontextmanager
async def three_people_playing(database_url: str) -> AsyncIterator[list[tuple[Person, TableSocket, int]]]:
    """Aki, Ben and Cas, each with a socket, in seats 0, 1 and 2 of a started one-hand match."""
    async with (
        running_server(database_url) as server,
        browser(server, "Aki") as aki,
        browser(server, "Ben") as ben,
        browser(server, "Cas") as cas,
    ):
        code = (await make_room(aki, seats=3, hands=1))["code"]
        async with aki.socket(code) as aki_ws, ben.socket(code) as ben_ws, cas.socket(code) as cas_ws:
            people = [(aki, aki_ws, 0), (ben, ben_ws, 1), (cas, cas_ws, 2)]
            await seat_and_start(aki, code, {seat: person for person, _, seat in people})
            yield people


def my_turn(message: dict[str, Any]) -> list[tuple[int, list[dict[str, Any]]]]:
    return [(int(seat), legal) for seat, legal in message["legal"].items() if legal]


async def settle(socket: TableSocket) -> dict[str, Any]:
    """The newest state once the socket has gone quiet (nobody else can move in these tests)."""
    await socket.quiet(0.2)
    assert socket.state is not None
    return socket.state


async def until_turn(socket: TableSocket) -> dict[str, Any]:
    """The first state (already received or next) in which this person has a legal action."""
    if socket.state is not None and my_turn(socket.state):
        return socket.state
    return await socket.wait_state(lambda m: bool(my_turn(m)))


async def test_a_table_of_people_plays_a_hand_without_starting_its_automation(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only people act (the deals come with their actions), so no move starts the bots' and
    chance's task only for it to find nothing to play: it cost a task, a lock and a fresh
    RNG per move at a table of four people."""
    automate = Automation.run
    started: list[int] = []

    async def counted(self: Automation) -> None:
        started.append(self.table.match_id)
        await automate(self)

    monkeypatch.setattr(Automation, "run", counted)
    async with three_people_playing(database_url) as people:
        final = await play_until_over([ws for _, ws, _ in people], timeout=90)
        assert next(iter(final["views"].values()))["phase"] == "match_over"
        assert final["version"] > 30
        assert started == []


async def test_two_people_and_a_bot_play_a_whole_holy_grail_match_to_the_end(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Aki") as aki,
        browser(server, "Ben") as ben,
    ):
        code = (await make_room(aki, seats=3, hands=2))["code"]
        await ben.get(f"/api/rooms/{code}")
        async with aki.socket(code) as aki_ws, ben.socket(code) as ben_ws:
            first = await aki_ws.recv()
            assert first["type"] == "room" and first["room"]["match"] is None
            room = await seat_and_start(aki, code, {0: aki, 1: ben, 2: "bot"})
            match_id = room["match"]["id"]
            final = await play_until_over([aki_ws, ben_ws], timeout=90)

        view = next(iter(final["views"].values()))
        assert view["phase"] == "match_over" and view["to_act"] == []
        assert len(view["hands"]) == 2
        scores = view["scores"]
        for seat in range(3):
            assert scores[seat] == sum(hand["scores"][seat] for hand in view["hands"])

        # Every action is in the log, in order, and the stored results match the engine's scores.
        ((status, version),) = db_rows(
            database_url, "SELECT status, version FROM matches WHERE id = :m", m=match_id
        )
        assert status == "finished" and version == final["version"]
        seqs = [
            row[0]
            for row in db_rows(
                database_url, "SELECT seq FROM match_actions WHERE match_id = :m ORDER BY seq", m=match_id
            )
        ]
        assert seqs == list(range(version))
        hands = db_rows(
            database_url,
            "SELECT hand_no, scores FROM hand_results WHERE match_id = :m ORDER BY hand_no",
            m=match_id,
        )
        assert [(h[0], h[1]) for h in hands] == [(h["hand_no"], h["scores"]) for h in view["hands"]]
        results = db_rows(
            database_url,
            "SELECT seat, person_id, score, rank FROM match_results WHERE match_id = :m ORDER BY seat",
            m=match_id,
        )
        assert [r[2] for r in results] == [float(s) for s in scores]
        assert [r[1] for r in results] == [aki.me["id"], ben.me["id"], None]
        for _seat, _person, score, rank in results:
            assert rank == 1 + sum(1 for other in scores if other > score)

        detail = await ben.get(f"/api/matches/{match_id}")
        assert detail["status"] == "finished"
        assert [h["scores"] for h in detail["hands"]] == [h["scores"] for h in view["hands"]]
        assert detail["hands"][-1]["totals"] == [float(s) for s in scores]
        assert sorted(r["rank"] for r in detail["ranking"]) == sorted(r[3] for r in results)
        assert {r["name"] for r in detail["ranking"]} == {"Aki", "Ben", "Bot"}


async def test_stale_illegal_malformed_and_forbidden_actions_are_rejected_and_change_nothing(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Ann") as ann,
        browser(server, "Bo") as bo,
    ):
        code = (await make_room(ann, seats=3, hands=1))["code"]
        await bo.get(f"/api/rooms/{code}")
        # People hold every seat, so nothing moves unless one of them acts.
        room = await seat_and_start(ann, code, {0: ann, 1: bo, 2: ann})
        match_id = room["match"]["id"]
        async with ann.socket(code) as ann_ws, bo.socket(code) as bo_ws:
            ann_state = await ann_ws.wait_state()
            bo_state = await bo_ws.wait_state()
            version = ann_state["version"]
            assert bo_state["version"] == version
            actor_ws, actor_state = (ann_ws, ann_state) if my_turn(ann_state) else (bo_ws, bo_state)
            other_ws = bo_ws if actor_ws is ann_ws else ann_ws
            ((seat, legal),) = my_turn(actor_state)
            hand = actor_state["views"][str(seat)]["hand"]
            illegal_cards = [c for c in hand if {"type": "play", "cards": [c]} not in legal]

            async def rejected(message: Any, code_expected: str, raw: bool = False) -> dict[str, Any]:
                if raw:
                    await actor_ws.connection.send(message)
                else:
                    await actor_ws.send(message)
                error = await actor_ws.wait_for(lambda m: m["type"] == "error")
                assert error["code"] == code_expected, error
                assert error["message"] and error["messages"]["ja"]
                return error

            await rejected(
                {"type": "action", "seat": seat, "version": version - 1, "action": legal[0]}, "stale"
            )
            # A stale client is sent the current state right after the error.
            assert (await actor_ws.wait_state())["version"] == version
            await rejected(
                {
                    "type": "action",
                    "seat": seat,
                    "version": version,
                    "action": {"type": "play", "cards": ["H99"]},
                },
                "illegal",
            )
            if illegal_cards:
                error = await rejected(
                    {
                        "type": "action",
                        "seat": seat,
                        "version": version,
                        "action": {"type": "play", "cards": [illegal_cards[0]]},
                    },
                    "illegal",
                )
                assert "must" in error["message"] or "hearts" in error["message"]
            await rejected(
                {"type": "action", "seat": seat, "version": version, "action": {"type": "bid", "value": 3}},
                "illegal",
            )
            await rejected("this is not json", "malformed", raw=True)
            await rejected({"type": "action", "seat": seat, "action": legal[0]}, "malformed")
            await rejected(
                {"type": "action", "seat": "zero", "version": version, "action": legal[0]}, "malformed"
            )
            await rejected(
                {"type": "action", "seat": seat, "version": version, "action": "play H5"}, "malformed"
            )
            await rejected({"type": "dance"}, "malformed")
            # A field no legal action has is refused, not stored in the log (and so in replays).
            for extra in ({"note": "x" * 5000}, {"junk": 2**70}):
                error = await rejected(
                    {"type": "action", "seat": seat, "version": version, "action": {**legal[0], **extra}},
                    "malformed",
                )
                assert "no field" in error["message"], error
            others_seat = next(n for n in range(3) if n != seat and n not in map(int, actor_state["views"]))
            await rejected(
                {"type": "action", "seat": others_seat, "version": version, "action": legal[0]}, "forbidden"
            )

            # Nothing changed: no state was pushed to anyone, and the log did not grow.
            assert [m for m in await other_ws.quiet() if m["type"] == "state"] == []
            ((stored,),) = db_rows(database_url, "SELECT version FROM matches WHERE id = :m", m=match_id)
            assert stored == version
            ((count,),) = db_rows(
                database_url, "SELECT count(*) FROM match_actions WHERE match_id = :m", m=match_id
            )
            assert count == version

            # The same seat then plays a legal card and everyone moves on together.
            await actor_ws.act(seat, version, legal[0])
            after = await other_ws.wait_state(lambda m: m["version"] > version)
            assert after["version"] == version + 1
            assert await _ping(ann_ws) == {"type": "pong"}


async def _ping(socket: TableSocket) -> dict[str, Any]:
    await socket.send({"type": "ping"})
    return await socket.wait_for(lambda m: m["type"] == "pong")


async def test_one_person_with_several_seats_gets_a_view_per_seat_and_nobody_else_sees_them(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Fam") as fam,
        browser(server, "Ivy") as ivy,
        browser(server, "Watcher") as watcher,
    ):
        code = (await make_room(fam, seats=4, hands=1))["code"]
        await ivy.get(f"/api/rooms/{code}")
        await watcher.get(f"/api/rooms/{code}")
        await seat_and_start(fam, code, {0: fam, 2: fam, 1: ivy, 3: ivy})
        async with fam.socket(code) as fam_ws, ivy.socket(code) as ivy_ws, watcher.socket(code) as watch_ws:
            fam_state = await fam_ws.wait_state()
            ivy_state = await ivy_ws.wait_state()
            watch_state = await watch_ws.wait_state()

        assert sorted(fam_state["views"]) == ["0", "2"] and sorted(fam_state["legal"]) == ["0", "2"]
        assert sorted(ivy_state["views"]) == ["1", "3"]
        assert fam_state["spectator"] is None and ivy_state["spectator"] is None
        assert [fam_state["views"][s]["seat"] for s in ("0", "2")] == [0, 2]
        hands = {int(s): v["hand"] for s, v in {**fam_state["views"], **ivy_state["views"]}.items()}
        assert all(len(hands[s]) == 14 for s in range(4))  # 4 players: 14 cards per dealing round

        # Nobody's message names a card that only another person holds; the spectator sees none.
        for message, own in (
            (fam_state, hands[0] + hands[2]),
            (ivy_state, hands[1] + hands[3]),
            (watch_state, []),
        ):
            blob = json.dumps(message)
            for seat, cards in hands.items():
                for card in set(cards) - set(own):
                    assert f'"{card}"' not in blob, (seat, card)
        assert watch_state["views"] == {} and watch_state["legal"] == {}
        assert watch_state["spectator"]["seat"] is None and watch_state["spectator"]["hand"] == []
        assert watch_state["spectator"]["hand_counts"] == [14, 14, 14, 14]


async def test_a_reconnecting_client_gets_the_current_view_at_once(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Rin") as rin,
        browser(server, "Sol") as sol,
    ):
        code = (await make_room(rin, seats=3, hands=1))["code"]
        await sol.get(f"/api/rooms/{code}")
        await seat_and_start(rin, code, {0: rin, 1: sol, 2: sol})
        async with sol.socket(code) as sol_ws:
            async with rin.socket(code) as rin_ws:
                state = await rin_ws.wait_state()
                if my_turn(state):
                    await rin_ws.act(0, state["version"], state["legal"]["0"][0])
                    await rin_ws.wait_state(lambda m, v=state["version"]: m["version"] > v)
            # While Rin is away, Sol plays both other seats until it is Rin's turn again.
            state = await settle(sol_ws)
            while my_turn(state):
                ((seat, legal),) = my_turn(state)
                await sol_ws.act(seat, state["version"], legal[0])
                await sol_ws.wait_state(lambda m, v=state["version"]: m["version"] > v)
                state = await settle(sol_ws)
            room = await sol.get(f"/api/rooms/{code}")
            assert room["seats"][0]["connected"] is False and room["seats"][1]["connected"] is True

            async with rin.socket(code) as rin_again:
                hello = await rin_again.recv()
                assert hello["type"] == "room"
                current = await rin_again.recv()
                assert current["type"] == "state"
                assert current["version"] == state["version"] and current["version"] > 2
                assert list(current["views"]) == ["0"] and my_turn(current)
                assert current["views"]["0"]["trick"] == state["views"][next(iter(state["views"]))]["trick"]
                # Sol's socket hears that Rin is back.
                back = await sol_ws.wait_for(
                    lambda m: m["type"] == "room" and m["room"]["seats"][0]["connected"]
                )
                assert back["room"]["seats"][0]["name"] == "Rin"


async def test_a_seat_left_during_a_match_goes_to_a_bot_at_once_and_can_be_taken_back(
    database_url: str,
) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Leaver") as leaver,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await leaver.get(f"/api/rooms/{code}")
        room = await seat_and_start(host, code, {0: host, 1: leaver, 2: host})
        match_id = room["match"]["id"]
        async with host.socket(code) as host_ws:
            await host_ws.wait_state()
            room = (await leaver.http.delete(f"/api/rooms/{code}/seats/1")).json()
            # Nobody has to act for the table to go on: a bot holds the seat from now on.
            assert room["seats"][1]["kind"] == "bot" and room["match"]["status"] == "running"
            # Host plays its seats; the bot now plays seat 1 until the leaver comes back.
            await _host_plays_and_the_bot_answers(host_ws, database_url, match_id, bot_seat=1)

            async with leaver.socket(code) as leaver_ws:
                await leaver.post(f"/api/rooms/{code}/seats/1", {"as": "me"})
                back = await leaver_ws.wait_state(lambda m: "1" in m["views"])
                assert back["spectator"] is None
            ((credited,),) = db_rows(
                database_url, "SELECT person_id FROM match_seats WHERE match_id = :m AND n = 1", m=match_id
            )
            assert credited == leaver.me["id"]


async def test_the_host_hands_an_absent_players_seat_to_a_bot_in_one_step(database_url: str) -> None:
    async with (
        running_server(database_url) as server,
        browser(server, "Host") as host,
        browser(server, "Gone") as gone,
        browser(server, "Guest") as guest,
    ):
        code = (await make_room(host, seats=3, hands=1))["code"]
        await gone.get(f"/api/rooms/{code}")
        await guest.get(f"/api/rooms/{code}")
        room = await seat_and_start(host, code, {0: host, 1: gone, 2: host})
        match_id = room["match"]["id"]
        refused = await guest.http.post(f"/api/rooms/{code}/seats/1", json={"as": "bot", "replace": True})
        assert refused.status_code == 403
        async with host.socket(code) as host_ws:
            await host_ws.wait_state()
            room = await host.post(f"/api/rooms/{code}/seats/1", {"as": "bot", "replace": True})
            assert room["seats"][1]["kind"] == "bot" and room["match"]["status"] == "running"
            await _host_plays_and_the_bot_answers(host_ws, database_url, match_id, bot_seat=1)
        ((credited, kind),) = db_rows(
            database_url, "SELECT person_id, kind FROM match_seats WHERE match_id = :m AND n = 1", m=match_id
        )
        assert (credited, kind) == (gone.me["id"], "bot")  # the scores still count for the one who left


async def _host_plays_and_the_bot_answers(
    host_ws: TableSocket, database_url: str, match_id: int, bot_seat: int
) -> None:
    """The host makes six moves for its seats; the bot in `bot_seat` must have moved meanwhile."""
    bot_moves_before = _moves_by(database_url, match_id, bot_seat)
    for _ in range(6):
        state = await until_turn(host_ws)
        (seat, legal), *_ = my_turn(state)
        await host_ws.act(seat, state["version"], legal[0])
        await host_ws.wait_state(lambda m, v=state["version"]: m["version"] > v)
    assert _moves_by(database_url, match_id, bot_seat) > bot_moves_before


def _moves_by(database_url: str, match_id: int, seat: int) -> int:
    ((count,),) = db_rows(
        database_url,
        "SELECT count(*) FROM match_actions WHERE match_id = :m AND seat = :s",
        m=match_id,
        s=seat,
    )
    return int(count)


async def test_a_restarted_server_resumes_an_unfinished_match_from_its_log(database_url: str) -> None:
    async with running_server(database_url, bot_delay=0.3) as server, browser(server, "Kai") as kai:
        code = (await make_room(kai, seats=3, hands=1))["code"]
        room = await seat_and_start(kai, code, {0: kai, 1: "bot", 2: "bot"})
        match_id = room["match"]["id"]
        token = kai.token
        async with kai.socket(code) as ws:
            state = await until_turn(ws)
            hand_before = state["views"]["0"]["hand"]
            await ws.act(0, state["version"], state["legal"]["0"][0])
            acknowledged = await ws.wait_state(lambda m, v=state["version"]: m["version"] > v)
    # The server stops right after Kai's card, while the bots are still thinking.
    ((stored,),) = db_rows(database_url, "SELECT version FROM matches WHERE id = :m", m=match_id)
    assert stored >= acknowledged["version"]

    async with running_server(database_url) as server, browser(server) as kai_again:
        kai_again.http.cookies.set("session", token)
        async with kai_again.socket(code) as ws:
            await ws.recv()
            resumed = await ws.wait_state()
            assert resumed["version"] >= acknowledged["version"]
            assert state["legal"]["0"][0]["cards"][0] not in resumed["views"]["0"]["hand"]
            assert len(resumed["views"]["0"]["hand"]) == len(hand_before) - 1
            # The bots carry on from the log and the match can be finished.
            final = await play_until_over([ws], timeout=60)
        assert final["views"]["0"]["phase"] == "match_over"
    ((status,),) = db_rows(database_url, "SELECT status FROM matches WHERE id = :m", m=match_id)
    assert status == "finished"


async def test_simultaneous_moves_are_not_stale_while_the_seats_own_options_are_unchanged(
    database_url: str,
) -> None:
    """Yaya Fugou's exchange: both poorer seats give at once. The second gift, sent with the
    version both saw, is accepted, since only the other seat moved; an action from before a
    seat's options changed is still refused as stale."""
    async with running_server(database_url) as server, browser(server, "Mei") as mei:
        code = (await make_room(mei, "yaya-fugou", seats=4, hands=2))["code"]
        await seat_and_start(mei, code, {0: mei, 1: mei, 2: mei, 3: mei})
        async with mei.socket(code) as ws:
            state = await until_turn(ws)
            while len(my_turn(state)) < 2:  # play the first hand out, up to the exchange
                (seat, legal), *_ = my_turn(state)
                await ws.act(seat, state["version"], legal[0])
                state = await ws.wait_state(
                    lambda m, v=state["version"]: m["version"] > v and bool(my_turn(m))
                )
            assert all(view["phase"] == "exchange" for view in state["views"].values())
            seen = state["version"]
            (first, first_legal), (second, second_legal) = my_turn(state)
            await ws.act(first, seen, first_legal[0])
            state = await ws.wait_state(lambda m: m["version"] > seen)
            await ws.act(second, seen, second_legal[0])  # the version before the other gift
            state = await ws.wait_state(lambda m: m["version"] > seen + 1)
            assert not ws.errors
            givers = {first, second}
            receivers = my_turn(state)
            assert receivers and not givers & {seat for seat, _ in receivers}
            receiver, receiver_legal = receivers[0]
            await ws.act(receiver, seen, receiver_legal[0])  # from before it had anything to do
            error = await ws.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "stale"


async def test_a_failed_commit_drops_the_cached_match_and_rebuilds_it_from_the_log(database_url: str) -> None:
    """Another writer (e.g. a second server process) logs the next action first: our commit
    must fail, the action is refused as stale and the table shows what the database holds."""
    async with running_server(database_url) as server, browser(server, "Uma") as uma:
        code = (await make_room(uma, seats=3, hands=1))["code"]
        room = await seat_and_start(uma, code, {0: uma, 1: uma, 2: uma})
        match_id = room["match"]["id"]
        async with uma.socket(code) as ws:
            state = await until_turn(ws)
            ((seat, legal),) = my_turn(state)
            version = state["version"]
            foreign, ours = legal[0], legal[-1]
            engine = create_engine(database_url)
            with engine.begin() as conn:
                conn.execute(
                    text(
                        "INSERT INTO match_actions (match_id, seq, seat, action)"
                        " VALUES (:m, :q, :s, CAST(:a AS jsonb))"
                    ),
                    {"m": match_id, "q": version, "s": seat, "a": json.dumps(foreign)},
                )
                conn.execute(text("UPDATE matches SET version = version + 1 WHERE id = :m"), {"m": match_id})
            engine.dispose()
            await ws.act(seat, version, ours)
            error = await ws.wait_for(lambda m: m["type"] == "error")
            assert error["code"] == "stale"
            rebuilt = await ws.wait_state(lambda m: m["version"] == version + 1)
            played = rebuilt["views"][str(seat)]["trick"]["cards"]
            assert {"seat": seat, "card": foreign["cards"][0]} in played
            if ours != foreign:
                assert ours["cards"][0] in rebuilt["views"][str(seat)]["hand"]


async def test_nobody_sees_an_action_whose_commit_is_still_in_flight(database_url: str) -> None:
    """A client connecting while an action's commit is pending must not be shown that action;
    here the commit then fails, so the action never happened at all."""
    async with (
        running_server(database_url) as server,
        browser(server, "Wes") as wes,
        browser(server, "Vi") as vi,
    ):
        code = (await make_room(wes, seats=3, hands=1))["code"]
        await vi.get(f"/api/rooms/{code}")
        await seat_and_start(wes, code, {0: wes, 1: wes, 2: wes})
        tables = server.services.tables
        release = asyncio.Event()
        entered = asyncio.Event()

        async def slow_failing_commit(live: Any, before: int) -> None:
            entered.set()
            await release.wait()
            raise RuntimeError("the database went away")

        async with wes.socket(code) as ws:
            state = await until_turn(ws)
            ((seat, legal),) = my_turn(state)
            tables.table(state["match_id"]).committer.commit = slow_failing_commit  # this table only
            await ws.act(seat, state["version"], legal[0])
            await asyncio.wait_for(entered.wait(), 5)
            async with vi.socket(code) as watcher:
                await watcher.recv()
                first_state = asyncio.create_task(watcher.wait_state())
                await asyncio.sleep(0.2)
                assert not first_state.done(), "a state was built while the commit was pending"
                release.set()
                seen = await first_state
            assert (await ws.wait_for(lambda m: m["type"] == "error"))["code"] == "stale"

        assert seen["version"] == state["version"]
        assert seen["spectator"]["trick"] == state["views"][str(seat)]["trick"]
